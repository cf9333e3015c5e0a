//! The tree orders: sequential (the paper's CPU baseline) and parallel (the paper's
//! Algorithm 1, level-synchronous BFS). Both perform the same additions per vertex; parallel
//! only schedules them one level at a time, as its GPU kernels do (one dispatch per level).

use crate::Op;
use crate::scan_value::ScanValue;
use generators::Tree;

/// The sequential order of `op`: [`rootfix_sequential`] or [`leaffix_sequential`].
pub fn sequential<T: ScanValue>(tree: &Tree, w: &[f32], op: Op) -> Vec<T> {
    match op {
        Op::Rootfix => rootfix_sequential(tree, w),
        Op::Leaffix => leaffix_sequential(tree, w),
    }
}

/// The sequential order of `op` on f64 weights, adding in f64: the CPU baseline of a kernel
/// that stores and adds f64 (the same additions as [`sequential`]).
pub fn sequential_f64(tree: &Tree, w: &[f64], op: Op) -> Vec<f64> {
    let mut r = vec![0.0; tree.len()];
    let (term, plus) = (|x: f64| x, |a: f64, b: f64| a + b);
    match op {
        Op::Rootfix => rootfix_sequential_each_with(tree, w, term, plus, |_| {}, |v, x| r[v] = x),
        Op::Leaffix => leaffix_sequential_each_with(tree, w, term, plus, |_| {}, |v, x| r[v] = x),
    }
    r
}

/// The level-synchronous order of `op`: [`rootfix_parallel`] or [`leaffix_parallel`].
pub fn parallel<T: ScanValue>(tree: &Tree, w: &[f32], op: Op) -> Vec<T> {
    match op {
        Op::Rootfix => rootfix_parallel(tree, w),
        Op::Leaffix => leaffix_parallel(tree, w),
    }
}

/// `r[root] = w[root]; r[v] = r[parent v] + w[v]` in preorder.
pub fn rootfix_sequential<T: ScanValue>(tree: &Tree, w: &[f32]) -> Vec<T> {
    let mut r = vec![T::zero(); tree.len()];
    rootfix_sequential_each(tree, w, |v, x| r[v] = x);
    r
}

/// [`rootfix_sequential`], handing each `(v, r[v])` to `emit` in preorder.
///
/// The values of v's ancestors are kept by depth (the depth-first path), so the parent's
/// value is always at hand, whatever the vertex numbering: the same additions, in the same
/// order, without a cache miss per vertex on large trees.
pub fn rootfix_sequential_each<T: ScanValue>(tree: &Tree, w: &[f32], emit: impl FnMut(usize, T)) {
    rootfix_sequential_each_with(tree, w, T::term, T::plus, |_| {}, emit)
}

/// Vertices between the one an `_ahead` order names to its `ahead` hook and the one it hands
/// to `emit`: enough for a cache line fetched at the name to arrive before the write.
pub const AHEAD: usize = 16;

/// [`rootfix_sequential_each`] that also names each vertex to `ahead`, [`AHEAD`] vertices
/// before its `emit`: a caller that writes per vertex fetches the slot there
/// ([`super::prefetch`]), so that, on a tree with random labels, its writes do not wait on
/// memory in the chain of additions. (The twins do not: they are the plain kernels whose
/// time the reports give.)
pub fn rootfix_sequential_each_ahead<T: ScanValue>(
    tree: &Tree,
    w: &[f32],
    ahead: impl FnMut(usize),
    emit: impl FnMut(usize, T),
) {
    rootfix_sequential_each_with(tree, w, T::term, T::plus, ahead, emit)
}

/// [`rootfix_sequential_each`] with the term and the addition given instead of a
/// [`ScanValue`]: the same order on a value whose terms need context (the exact reference's
/// fixed point, whose unit depends on the weights).
pub fn rootfix_sequential_each_with<W: Copy + Default, T: Copy>(
    tree: &Tree,
    w: &[W],
    term: impl Fn(W) -> T,
    plus: impl Fn(T, T) -> T,
    mut ahead: impl FnMut(usize),
    mut emit: impl FnMut(usize, T),
) {
    // The inputs in preorder first: a gather whose loads overlap, instead of one cache miss
    // per vertex inside the chain of additions on large trees.
    let depths = tree.depths();
    let inputs: Vec<(u32, W, u32)> = tree
        .preorder()
        .iter()
        .map(|&v| (v, w[v as usize], depths[v as usize]))
        .collect();
    let mut path = vec![term(W::default()); tree.height() as usize + 1];
    for (i, &(v, x, d)) in inputs.iter().enumerate() {
        if let Some(&(u, ..)) = inputs.get(i + AHEAD) {
            ahead(u as usize);
        }
        let d = d as usize;
        let t = term(x);
        // Preorder is depth-first: the parent is the last vertex seen at depth d − 1.
        let r = if d == 0 { t } else { plus(path[d - 1], t) };
        path[d] = r;
        emit(v as usize, r);
    }
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
    leaffix_sequential_each(tree, w, |v, x| l[v] = x);
    l
}

/// [`leaffix_sequential`], handing each `(v, l[v])` to `emit` in postorder.
///
/// The finished subtrees whose parent is not reached yet are kept on a stack: in a
/// depth-first postorder, the children of v are its top `deg v` entries, in child order. The
/// same gathers, in the same order, without a cache miss per child on large trees.
pub fn leaffix_sequential_each<T: ScanValue>(tree: &Tree, w: &[f32], emit: impl FnMut(usize, T)) {
    leaffix_sequential_each_with(tree, w, T::term, T::plus, |_| {}, emit)
}

/// [`leaffix_sequential_each`] that also names each vertex to `ahead`, [`AHEAD`] vertices
/// before its `emit` (see [`rootfix_sequential_each_ahead`]).
pub fn leaffix_sequential_each_ahead<T: ScanValue>(
    tree: &Tree,
    w: &[f32],
    ahead: impl FnMut(usize),
    emit: impl FnMut(usize, T),
) {
    leaffix_sequential_each_with(tree, w, T::term, T::plus, ahead, emit)
}

/// [`leaffix_sequential_each`] with the term and the addition given (see
/// [`rootfix_sequential_each_with`]).
pub fn leaffix_sequential_each_with<W: Copy, T: Copy>(
    tree: &Tree,
    w: &[W],
    term: impl Fn(W) -> T,
    plus: impl Fn(T, T) -> T,
    mut ahead: impl FnMut(usize),
    mut emit: impl FnMut(usize, T),
) {
    let inputs: Vec<(u32, W, u32)> = tree
        .postorder()
        .iter()
        .map(|&v| (v, w[v as usize], tree.children(v).len() as u32))
        .collect();
    // The stack's largest size, so that it is allocated once: a star's holds n − 1 subtrees.
    let most = inputs
        .iter()
        .scan(0usize, |len, &(_, _, degree)| {
            *len = *len + 1 - degree as usize;
            Some(*len)
        })
        .max()
        .unwrap_or(0);
    let mut finished: Vec<T> = Vec::with_capacity(most);
    for (i, &(v, x, degree)) in inputs.iter().enumerate() {
        if let Some(&(u, ..)) = inputs.get(i + AHEAD) {
            ahead(u as usize);
        }
        let first = finished.len() - degree as usize;
        let l = finished[first..]
            .iter()
            .fold(term(x), |acc, &c| plus(acc, c));
        finished.truncate(first);
        finished.push(l);
        emit(v as usize, l);
    }
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
