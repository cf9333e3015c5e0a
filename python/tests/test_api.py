"""The functions of treefix_accuracy: trees, weights, algorithms, the exact treefix, errors."""

import os

import numpy as np
import pytest

import treefix_accuracy as ta

TOPOLOGIES = [
    "chain",
    "star",
    "random-recursive",
    "prufer",
    "kary:4",
    "broom:0.5",
    "caterpillar-legs",
    "profile:20:2",
]


def test_a_parent_array_makes_a_tree():
    t = ta.tree_from_parents([-1, 0, 0, 1])
    assert (len(t), t.height, t.root) == (4, 2, 0)
    assert t.parents.tolist() == [-1, 0, 0, 1]
    assert t.subtree_sizes.tolist() == [4, 2, 1, 1]
    r = ta.rootfix(t, np.array([1, 2, 3, 4], dtype=np.float32))
    assert r.tolist() == [1, 3, 4, 7]
    assert r.dtype == np.float32


@pytest.mark.parametrize(
    "parents, message",
    [
        ([-1, -1], "two roots"),
        ([1, 0], "no root"),
        ([-1, 5], "outside 0..2"),
        ([-1, 1], "its own parent"),
        ([-1, 2, 1], "cycle"),
        ([], "at least one vertex"),
    ],
)
def test_a_bad_tree_raises_never_crashes(parents, message):
    with pytest.raises(ta.TreeError, match=message):
        ta.tree_from_parents(np.array(parents, dtype=np.int64))


def test_arguments_that_do_not_fit_raise_input_errors():
    t = ta.tree_from_parents([-1, 0, 0])
    with pytest.raises(ta.InputError, match="2 weights for a tree of 3 vertices"):
        ta.rootfix(t, np.ones(2, dtype=np.float32))
    with pytest.raises(ta.InputError, match="no float32"):
        ta.rootfix(t, np.array([0.1, 0.2, 0.3], dtype=np.longdouble))
    with pytest.raises(ta.InputError, match="1-d"):
        ta.rootfix(t, np.ones((3, 1), dtype=np.float32))
    with pytest.raises(ta.InputError, match="unknown algorithm"):
        ta.rootfix(t, np.ones(3, dtype=np.float32), algorithm="magic")
    with pytest.raises(ta.InputError, match="condition number"):
        ta.gensum(10, 0.5)
    # float64 is f64 (added in f64, returned as float64); integers are taken exactly as f32.
    r = ta.rootfix(t, np.array([0.1, 0.2, 0.3]))
    assert r.dtype == np.float64 and r.tolist() == [0.1, 0.1 + 0.2, 0.1 + 0.3]
    assert ta.rootfix(t, [1, 2, 3]).tolist() == [1, 3, 4]
    assert isinstance(ta.InputError("x"), ta.TreefixError)


def test_read_tree_reads_files_and_names_bad_lines(tmp_path):
    p = tmp_path / "t.nwk"
    p.write_text("((a:1,b:2)c:3,d:4)e:5;\n")
    t = ta.read_tree(p)
    assert len(t) == 5
    assert t.labels == ["e", "c", "a", "b", "d"]  # preorder of the file
    assert t.weights.tolist() == [5, 3, 1, 2, 4]
    bad = tmp_path / "bad.nwk"
    bad.write_text("((a:1,b:2;\n")
    with pytest.raises(ta.ReadError, match=r"bad\.nwk:1:"):
        ta.read_tree(bad)
    with pytest.raises(ta.ReadError, match="cannot read"):
        ta.read_tree(tmp_path / "missing.nwk")


def test_gensum_gives_weights_exact_sum_and_condition_number():
    w, exact_sum, cond = ta.gensum(1000, 1e10, seed=3)
    assert w.dtype == np.float32 and w.shape == (1000,)
    assert abs(cond / 1e10 - 1) < 1e-3
    # The exact sum: math.fsum is exact for these float64-representable values.
    import math

    assert exact_sum == math.fsum(w.astype(np.float64).tolist())
    again, _, _ = ta.gensum(1000, 1e10, seed=3)
    assert np.array_equal(w, again)


def nearest(x: np.float32, exact) -> bool:
    """Whether x is an f32 nearest to the rational `exact` (either one on a tie)."""
    from fractions import Fraction

    d = abs(Fraction(float(x)) - exact)
    for n in (np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf))):
        if abs(Fraction(float(n)) - exact) < d:
            return False
    return True


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_exact_is_correctly_rounded_and_vectorial_exact_agrees(topology):
    from fractions import Fraction

    t = ta.generate_tree(topology, 300, seed=2)
    w, _, _ = ta.gensum(len(t), 1e12, seed=2)
    leaf = ta.exact(t, w, "LEAFFIX")  # op names in any case
    root = ta.exact(t, w, "rootfix")
    assert np.array_equal(leaf, ta.leaffix(t, w, "vectorial-exact"))
    assert np.array_equal(root, ta.rootfix(t, w, "vectorial-exact"))
    # Against exact rational sums at every vertex.
    exact_leaf = [Fraction(float(x)) for x in w]
    for v in t.preorder[::-1]:
        p = t.parents[v]
        if p >= 0:
            exact_leaf[p] += exact_leaf[v]
    exact_root = [Fraction(0)] * len(t)
    for v in t.preorder:
        p = t.parents[v]
        exact_root[v] = Fraction(float(w[v])) + (exact_root[p] if p >= 0 else 0)
    assert all(nearest(leaf[v], exact_leaf[v]) for v in range(len(t)))
    assert all(nearest(root[v], exact_root[v]) for v in range(len(t)))


def test_every_algorithm_runs_on_the_cpu():
    t = ta.generate_tree("prufer", 500, seed=5)
    w = np.ones(len(t), dtype=np.float32)
    for a in ta.ALGORITHMS:
        assert np.array_equal(ta.leaffix(t, w, a), t.subtree_sizes.astype(np.float32)), a
        assert np.array_equal(ta.rootfix(t, w, a), (t.depths + 1).astype(np.float32)), a


class ArrayOnly:
    """Exposes nothing but __array__ (as a CPU torch tensor does)."""

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a if dtype is None else self.a.astype(dtype)


class DlpackOnly:
    """Exposes nothing but the DLPack protocol."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_array_protocols_are_accepted():
    t = ta.generate_tree("kary:2", 31, seed=1)
    w, _, _ = ta.gensum(31, 1e3, seed=1)
    want = ta.exact(t, w, "leaffix")
    assert np.array_equal(ta.exact(t, ArrayOnly(w), "leaffix"), want)
    assert np.array_equal(ta.exact(t, DlpackOnly(w), "leaffix"), want)
    # A strided view is made contiguous, its values kept.
    wide = np.repeat(w, 2)[::2]
    assert np.array_equal(ta.exact(t, wide, "leaffix"), want)


def gpu_required():
    return os.environ.get("TREEFIX_REQUIRE_GPU") == "1"


def test_the_gpu_kernels_give_their_twins_bits():
    t = ta.generate_tree("random-recursive", 5000, seed=9)
    w, _, _ = ta.gensum(len(t), 1e8, seed=9)
    try:
        on_gpu = ta.leaffix(t, w, "vectorial-exact", backend="gpu")
    except ta.GpuError as e:
        if gpu_required():
            raise
        pytest.skip(f"no GPU adapter: {e}")
    assert np.array_equal(on_gpu, ta.exact(t, w, "leaffix"))
    for a in ["parallel", "vectorial"]:
        got = ta.rootfix(t, w, a, backend="gpu")
        assert np.array_equal(got.view(np.uint32), ta.rootfix(t, w, a).view(np.uint32)), a


def test_auto_without_an_adapter_warns_and_runs_the_twins():
    # The GPU is started once per process: a process whose adapter filter matches nothing.
    import subprocess
    import sys

    code = """
import warnings, numpy as np, treefix_accuracy as ta
t = ta.generate_tree("chain", 100, seed=1)
w, _, _ = ta.gensum(len(t), 1e4, seed=1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    got = ta.rootfix(t, w, "vectorial", backend="AUTO")
assert np.array_equal(got.view(np.uint32), ta.rootfix(t, w, "vectorial").view(np.uint32))
assert [str(c.message) for c in caught if "no usable GPU adapter" in str(c.message)], caught
assert all(issubclass(c.category, UserWarning) for c in caught)
try:
    ta.rootfix(t, w, "vectorial", backend="gpu")
except ta.GpuError as e:
    assert "TREEFIX_ADAPTER" in str(e), e
else:
    raise AssertionError("gpu without an adapter must raise")
"""
    env = dict(os.environ, TREEFIX_ADAPTER="no adapter has this name")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_backend_name_outside_the_three_is_an_input_error():
    t = ta.generate_tree("chain", 10, seed=1)
    w = np.ones(10, dtype=np.float32)
    with pytest.raises(ta.InputError, match="expected auto, cpu, gpu"):
        ta.rootfix(t, w, backend="cuda")


def test_spatial_lca_answers_with_their_cost():
    """Batched LCA on a spatial computer: the replay's answers equal a plain walk up the tree;
    its cost comes with them; ids outside the tree and breadth-first layouts are refused."""
    t = ta.generate_tree("random-recursive", 2000, seed=3)
    parents = t.parents
    depths = t.depths

    def plain(u, v):
        while depths[u] > depths[v]:
            u = parents[u]
        while depths[v] > depths[u]:
            v = parents[v]
        while u != v:
            u, v = parents[u], parents[v]
        return u

    rng = np.random.default_rng(7)
    u = rng.integers(0, 2000, 3000)
    v = rng.integers(0, 2000, 3000)
    u[:10] = v[:10]  # u = v
    v[10:20] = 0  # the root: an ancestor of every vertex
    r = ta.spatial_lca(t, u, v)
    assert r.answers.dtype == np.int64 and len(r.answers) == 3000
    assert r.answers.tolist() == [plain(a, b) for a, b in zip(u, v)]
    assert (r.order, r.curve) == ("light-first", "hilbert")
    assert r.energy > 0 and r.depth >= r.chain_depth > 0 and r.cycles > 0
    z = ta.spatial_lca(t, u, v, curve="z", order="depth-first")
    assert z.answers.tolist() == r.answers.tolist()
    with pytest.raises(ta.InputError, match="not a vertex"):
        ta.spatial_lca(t, [0, 2000], [1, 1])
    with pytest.raises(ta.InputError, match="as many"):
        ta.spatial_lca(t, [0, 1], [1])
    with pytest.raises(ta.InputError, match="preorder"):
        ta.spatial_lca(t, [0], [1], order="breadth-first")


def test_a_gpu_without_xdg_runtime_dir_is_quiet():
    # Mesa's driver complains on stderr about every device it creates without the variable;
    # the package points it at a private directory first, as the binary does.
    import subprocess
    import sys

    code = """
import os, numpy as np, treefix_accuracy as ta
t = ta.generate_tree("chain", 100, seed=1)
w, _, _ = ta.gensum(len(t), 1e4, seed=1)
try:
    ta.rootfix(t, w, "parallel", backend="gpu")
except ta.GpuError as e:
    print("no adapter:", e)
print("runtime dir:", os.environ.get("XDG_RUNTIME_DIR"))
"""
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    if "no adapter:" in done.stdout:
        if gpu_required():
            raise AssertionError(done.stdout)
        pytest.skip(f"no GPU adapter: {done.stdout.strip()}")
    assert "XDG_RUNTIME_DIR" not in done.stderr, done.stderr
    assert "treefix-runtime" in done.stdout, done.stdout


def test_the_gpu_kernels_run_in_float16_and_bfloat16():
    t = ta.generate_tree("random-recursive", 3000, seed=4)
    w, _, _ = ta.gensum(len(t), 1e3, seed=4)
    half = (w / np.abs(w).sum() * 1e4).astype(np.float16)
    try:
        ta.rootfix(t, half, "parallel", backend="gpu")
    except ta.GpuError as e:
        if gpu_required():
            raise
        pytest.skip(f"no GPU adapter: {e}")
    for a in ["parallel", "vectorial", "contraction", "vectorial-exact"]:
        for acc in [None, "f32"]:
            got = ta.leaffix(t, half, a, backend="gpu", accumulate=acc)
            want = ta.leaffix(t, half, a, accumulate=acc)
            assert got.dtype == np.float16
            assert np.array_equal(got.view(np.uint16), want.view(np.uint16)), (a, acc)
