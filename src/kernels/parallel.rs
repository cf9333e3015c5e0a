//! CPU twin of the level-synchronous BFS kernels (paper Algorithm 1): one step per level,
//! `analysis::orders::tree` on f32.
//!
//! Within a level every vertex is independent, so the only order that matters is the one each
//! vertex applies to its own additions — identical to `sequential`, which the tests check.

use analysis::orders::tree;
use generators::Tree;

/// Top-down, one level per dispatch: each vertex of the frontier writes
/// `r[j] = r[i] + w[j]` for its children j.
pub fn rootfix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    tree::rootfix_parallel(tree, w)
}

/// Bottom-up, one level per dispatch: each vertex gathers its children in child order.
pub fn leaffix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    tree::leaffix_parallel(tree, w)
}
