//! The paper's sequential baseline (CPU only).

use generators::Tree;

/// `r[root] = w[root]; r[v] = r[parent[v]] + w[v]` in preorder.
pub fn rootfix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    let mut r = w.to_vec();
    for &v in tree.preorder() {
        if let Some(p) = tree.parent(v) {
            r[v as usize] = r[p as usize] + w[v as usize];
        }
    }
    r
}

/// `l[v] = ((w[v] + l[c1]) + l[c2]) + …` in postorder, children in child order.
pub fn leaffix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    let mut l = w.to_vec();
    for &v in tree.postorder() {
        l[v as usize] = gather(tree, w, &l, v);
    }
    l
}

/// `((w[v] + l[c1]) + l[c2]) + …` over the children of v in child order.
pub(crate) fn gather(tree: &Tree, w: &[f32], l: &[f32], v: u32) -> f32 {
    tree.children(v)
        .iter()
        .fold(w[v as usize], |acc, &c| acc + l[c as usize])
}
