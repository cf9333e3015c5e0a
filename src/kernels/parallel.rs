//! CPU twin of the level-synchronous BFS kernels (paper Algorithm 1): one step per level.
//!
//! Within a level every vertex is independent, so the only order that matters is the one each
//! vertex applies to its own additions — identical to `sequential`, which the tests check.

use generators::Tree;

/// Top-down, one level per dispatch: each vertex of the frontier writes
/// `r[j] = r[i] + w[j]` for its children j.
pub fn rootfix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    let mut r = vec![0f32; tree.len()];
    r[tree.root() as usize] = w[tree.root() as usize];
    for d in 0..tree.num_levels().saturating_sub(1) {
        for &i in tree.level(d) {
            for &j in tree.children(i) {
                r[j as usize] = r[i as usize] + w[j as usize];
            }
        }
    }
    r
}

/// Bottom-up, one level per dispatch: each vertex gathers its children in child order.
pub fn leaffix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    let mut l = vec![0f32; tree.len()];
    for d in (0..tree.num_levels()).rev() {
        for &v in tree.level(d) {
            l[v as usize] = super::sequential::gather(tree, w, &l, v);
        }
    }
    l
}
