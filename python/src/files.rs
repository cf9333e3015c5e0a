//! Writing what `accuracy` reads: `tree_from_edges` for edge lists, `write_weights` and
//! `write_results` (the library's writers, python/README.md), `Tree.save` in tree.rs.

use crate::convert;
use crate::error::{input, to_py};
use crate::preflight;
use crate::tree::Tree;
use analysis::Op;
use pyo3::prelude::*;
use std::path::PathBuf;

/// A tree from an edge list (networkx's G.edges, rustworkx's edge_list): edge i joins src[i]
/// and dst[i], vertices 0..n-1 with n - 1 edges. Without root the edges point from parent to
/// child; with root they are undirected and the tree hangs from root. Raises InputError
/// naming the first edge or vertex that makes it no tree.
#[pyfunction]
#[pyo3(signature = (src, dst, *, root=None))]
pub fn tree_from_edges(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    root: Option<i64>,
) -> PyResult<Tree> {
    let (s, d) = (convert::ids(src, "src")?, convert::ids(dst, "dst")?);
    let (s, d) = (s.as_slice(), d.as_slice());
    preflight::tree_from_parents(s.len() + 1)?;
    let t = py
        .detach(|| treefix_accuracy::tree_from_edges(s, d, root))
        .map_err(to_py)?;
    Ok(Tree::plain(t, None))
}

/// Writes weights for `accuracy --weights-file PATH`: `vertex value` lines, every float32
/// exactly (shortest round-trip digits), or a float32 .npy array when PATH ends in .npy.
/// The file is complete or absent.
#[pyfunction]
pub fn write_weights(py: Python<'_>, path: PathBuf, w: &Bound<'_, PyAny>) -> PyResult<()> {
    let w = convert::f32s(w, "w")?;
    let w = w.as_slice();
    py.detach(|| treefix_accuracy::write_weights(&path, w))
        .map_err(to_py)
}

/// Writes a kernel's results for `accuracy score --results PATH`: a CSV vertex,op,result
/// with 9 significant digits (every float32 exactly), or, when PATH ends in .npy, one op's
/// float32 array (give it as --results rootfix=PATH or leaffix=PATH).
#[pyfunction]
#[pyo3(signature = (path, *, rootfix=None, leaffix=None))]
pub fn write_results(
    py: Python<'_>,
    path: PathBuf,
    rootfix: Option<&Bound<'_, PyAny>>,
    leaffix: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let r = rootfix.map(|r| convert::f32s(r, "rootfix")).transpose()?;
    let l = leaffix.map(|l| convert::f32s(l, "leaffix")).transpose()?;
    let mut results: Vec<(Op, &[f32])> = Vec::new();
    if let Some(r) = &r {
        results.push((Op::Rootfix, r.as_slice()));
    }
    if let Some(l) = &l {
        results.push((Op::Leaffix, l.as_slice()));
    }
    if results.is_empty() {
        return Err(input("no results: give rootfix=..., leaffix=... or both"));
    }
    py.detach(|| treefix_accuracy::write_results(&path, &results))
        .map_err(to_py)
}
