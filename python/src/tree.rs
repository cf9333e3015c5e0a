//! `Tree`: a validated tree, with the labels and weights of the file it was read from.

use crate::convert;
use generators::io::Labels;
use numpy::PyArray1;
use pyo3::prelude::*;

/// A rooted tree (vertices 0..n-1). Made by `tree_from_parents`, `read_tree` or
/// `generate_tree`; immutable.
#[pyclass(module = "treefix_accuracy", frozen)]
pub struct Tree {
    pub tree: generators::Tree,
    pub labels: Labels,
    /// The file's own weights (branch lengths, matrix values, parent-array weights).
    pub weights: Option<Vec<f32>>,
    /// Why the file's own numbers are no weights, when they are not.
    pub weights_error: Option<String>,
    pub source: Option<String>,
}

impl Tree {
    pub fn plain(tree: generators::Tree, source: Option<String>) -> Tree {
        Tree {
            tree,
            labels: Labels::None,
            weights: None,
            weights_error: None,
            source,
        }
    }

    /// Vertex v's label, if it has one.
    pub fn label_of(&self, v: usize) -> Option<String> {
        self.labels.get(v as u32).map(|l| l.to_string())
    }
}

#[pymethods]
impl Tree {
    fn __len__(&self) -> usize {
        self.tree.len()
    }

    fn __repr__(&self) -> String {
        let from = self
            .source
            .as_ref()
            .map(|s| format!(", from {s}"))
            .unwrap_or_default();
        format!(
            "Tree(n={}, height={}{from})",
            self.tree.len(),
            self.tree.height()
        )
    }

    /// The number of vertices.
    #[getter]
    fn n(&self) -> usize {
        self.tree.len()
    }

    /// The largest depth (the root has depth 0).
    #[getter]
    fn height(&self) -> u32 {
        self.tree.height()
    }

    /// The root vertex.
    #[getter]
    fn root(&self) -> u32 {
        self.tree.root()
    }

    /// parents[v]: the parent of v, -1 at the root (int64).
    #[getter]
    fn parents<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let p = self
            .tree
            .parents()
            .iter()
            .map(|&p| {
                if p == generators::NO_PARENT {
                    -1
                } else {
                    i64::from(p)
                }
            })
            .collect();
        convert::array(py, p)
    }

    /// depth[v] (the root: 0), uint32.
    #[getter]
    fn depths<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        convert::array(py, self.tree.depths().to_vec())
    }

    /// The number of vertices of v's subtree, v included (uint32).
    #[getter]
    fn subtree_sizes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        convert::array(py, self.tree.subtree_sizes().to_vec())
    }

    /// Vertices in preorder (children in ascending id, or in file order for Newick/NEXUS).
    #[getter]
    fn preorder<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        convert::array(py, self.tree.preorder().to_vec())
    }

    /// The tree file's own weights (branch lengths, matrix values, parent-array weights) as
    /// float32, or None when the tree has none. A file whose numbers are no valid f32
    /// weights raises InputError here, where they become weights.
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray1<f32>>>> {
        if let Some(e) = &self.weights_error {
            return Err(crate::error::input(e.clone()));
        }
        Ok(self.weights.clone().map(|w| convert::array(py, w)))
    }

    /// Vertex v's label in its file (a Newick name, a file's vertex id), or None.
    fn label(&self, v: usize) -> Option<String> {
        self.label_of(v)
    }

    /// Writes the tree for `accuracy --tree PATH` as a parent array (`vertex parent [weight]`
    /// lines; format="parents", the one format written): the same vertex ids, and with w
    /// its weights on every line, every float32 exactly (`--weights file` reads them back).
    #[pyo3(signature = (path, *, format="parents", w=None))]
    fn save(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        format: &str,
        w: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        if !format.eq_ignore_ascii_case("parents") {
            return Err(crate::error::input(format!(
                "format={format:?}: Tree.save writes format=\"parents\" (a parent array, which every command reads)"
            )));
        }
        let w = w.map(|w| convert::f32s(w, "w")).transpose()?;
        let w = w.as_ref().map(|w| w.as_slice());
        py.detach(|| treefix_accuracy::write_tree(&path, &self.tree, w))
            .map_err(crate::error::to_py)
    }

    /// Every vertex's label (None where it has none), in vertex order.
    #[getter]
    fn labels(&self) -> Vec<Option<String>> {
        (0..self.tree.len()).map(|v| self.label_of(v)).collect()
    }
}
