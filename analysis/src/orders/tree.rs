//! The tree orders: sequential (the paper's CPU baseline) and parallel (the paper's
//! Algorithm 1, level-synchronous BFS). Both perform the same additions per vertex; parallel
//! only schedules them one level at a time, as its GPU kernels do (one dispatch per level).

use super::ScanValue;
use generators::Tree;

/// `r[root] = w[root]; r[v] = r[parent v] + w[v]` in preorder.
pub fn rootfix_sequential<T: ScanValue>(tree: &Tree, w: &[f32]) -> Vec<T> {
    let mut r: Vec<T> = w.iter().map(|&x| T::term(x)).collect();
    for &v in tree.preorder() {
        if let Some(p) = tree.parent(v) {
            r[v as usize] = r[p as usize].plus(T::term(w[v as usize]));
        }
    }
    r
}

/// Top-down, one level per dispatch: each vertex i of the frontier writes
/// `r[j] = r[i] + w[j]` for its children j.
pub fn rootfix_parallel<T: ScanValue>(tree: &Tree, w: &[f32]) -> Vec<T> {
    let mut r = vec![T::zero(); tree.len()];
    r[tree.root() as usize] = T::term(w[tree.root() as usize]);
    for d in 0..tree.num_levels().saturating_sub(1) {
        for &i in tree.level(d) {
            for &j in tree.children(i) {
                r[j as usize] = r[i as usize].plus(T::term(w[j as usize]));
            }
        }
    }
    r
}

/// `l[v] = gather(v)` in postorder.
pub fn leaffix_sequential<T: ScanValue>(tree: &Tree, w: &[f32]) -> Vec<T> {
    let mut l = vec![T::zero(); tree.len()];
    for &v in tree.postorder() {
        l[v as usize] = gather(tree, w, &l, v);
    }
    l
}

/// Bottom-up, one level per dispatch (deepest first): each vertex gathers its children.
pub fn leaffix_parallel<T: ScanValue>(tree: &Tree, w: &[f32]) -> Vec<T> {
    let mut l = vec![T::zero(); tree.len()];
    for d in (0..tree.num_levels()).rev() {
        for &v in tree.level(d) {
            l[v as usize] = gather(tree, w, &l, v);
        }
    }
    l
}

/// `((w[v] + l[c1]) + l[c2]) + …` over the children of v in child order.
#[inline]
pub fn gather<T: ScanValue>(tree: &Tree, w: &[f32], l: &[T], v: u32) -> T {
    tree.children(v)
        .iter()
        .fold(T::term(w[v as usize]), |acc, &c| acc.plus(l[c as usize]))
}
