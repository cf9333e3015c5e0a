"""treefix-accuracy from Python: the exact treefix and an accuracy oracle for f32 treefix kernels.

Rootfix is the sum along the path root -> v, leaffix the sum over v's subtree (v included in
both). This package builds trees (``tree_from_parents``, ``tree_from_edges``, ``read_tree``,
``generate_tree``), draws ill-conditioned weights (``gensum``), runs our algorithms on the CPU
or a GPU
(``rootfix``, ``leaffix``), computes the correctly rounded treefix (``exact``), grades
results computed anywhere else (``score``, ``assert_accurate``), and answers batched lowest
common ancestors on a spatial computer with their energy and depth (``spatial_lca``), and
writes what the ``accuracy`` command reads (``Tree.save``, ``write_weights``,
``write_results``; ``Score.to_json()`` is ``accuracy score --json``'s document). Arrays
are numpy arrays; float32 ones are read without a copy.

Every error is a ``TreefixError`` (``ReadError``, ``TreeError``, ``InputError``,
``GpuError``, ``AccuracyError``) carrying the one-line message the ``accuracy`` command
prints.
"""

from ._core import (
    ALGORITHMS,
    AccuracyError,
    GpuError,
    InputError,
    OpScore,
    ReadError,
    Score,
    SpatialLca,
    Tree,
    TreeError,
    TreefixError,
    __version__,
    assert_accurate,
    exact,
    generate_tree,
    gensum,
    leaffix,
    read_tree,
    rootfix,
    score,
    spatial_lca,
    tree_from_edges,
    tree_from_parents,
    write_results,
    write_weights,
)

__all__ = [
    "ALGORITHMS",
    "AccuracyError",
    "GpuError",
    "InputError",
    "OpScore",
    "ReadError",
    "Score",
    "SpatialLca",
    "Tree",
    "TreeError",
    "TreefixError",
    "__version__",
    "assert_accurate",
    "exact",
    "generate_tree",
    "gensum",
    "leaffix",
    "read_tree",
    "rootfix",
    "score",
    "spatial_lca",
    "tree_from_edges",
    "tree_from_parents",
    "write_results",
    "write_weights",
]
