//! The paper's sequential baseline (CPU only): `analysis::orders::tree` on f32.

use analysis::orders::tree;
use generators::Tree;

/// `r[root] = w[root]; r[v] = r[parent[v]] + w[v]` in preorder.
pub fn rootfix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    tree::rootfix_sequential(tree, w)
}

/// `l[v] = ((w[v] + l[c1]) + l[c2]) + …` in postorder, children in child order.
pub fn leaffix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    tree::leaffix_sequential(tree, w)
}
