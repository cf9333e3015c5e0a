//! The exact treefix's one walk of the tree's own order, on fixed-point integers: rootfix in
//! preorder (the parent's value plus the vertex's weight), leaffix in reverse preorder (each
//! finished subtree added into its parent). Integer addition is associative, so the walk may
//! be cut anywhere: the preorder is split into blocks walked in parallel (pass 1), whose
//! unknowns — the values flowing across block boundaries, all on one root path — are settled
//! block after block (a few per block), then added in (pass 2, in parallel). The results are
//! the same integers whatever the blocks and the threads.
//!
//! A block of the preorder is a run of whole subtrees hanging from ancestors of its first
//! vertex, at non-increasing depths (preorder's depth rises by at most one per step). In a
//! block:
//!
//! - rootfix: a vertex whose parent lies before the block hangs from an ancestor of the
//!   block's first vertex, so a block walks as the whole tree does once it holds those
//!   ancestors' values. They lie on the root path the block before ends on: pass 1 sums, per
//!   block, only the part of that path inside it (by parent links from its last vertex, not a
//!   walk of the block), the path is settled block after block, and pass 2 walks every block
//!   from its ancestors' values, each vertex final as it is made.
//! - leaffix: a vertex whose parent lies before the block sends its (block-local) subtree sum
//!   to that parent, by depth; the block's *spine*, the vertices whose subtrees go on past the
//!   block (the ancestors of the next block's first vertex), receives what the later blocks
//!   sent to it or below it. Every other vertex is final in pass 1; the spines are finished in
//!   pass 2.

use generators::Tree;
use rayon::prelude::*;
use std::marker::PhantomData;
use std::ops::{Add, Sub};

/// A weight the walks read: an f32 or an f64, each an integer on its weights' scale.
pub(crate) trait Weight: Copy + Default + Send + Sync {
    /// Whether the weight is −0 (a sum of −0s only is −0, IEEE's sign of zero).
    fn is_negative_zero(self) -> bool;
}
impl Weight for f32 {
    #[inline]
    fn is_negative_zero(self) -> bool {
        self.to_bits() == 0x8000_0000
    }
}
impl Weight for f64 {
    #[inline]
    fn is_negative_zero(self) -> bool {
        self.to_bits() == 1 << 63
    }
}

/// A value the walks add: a fixed-point integer, or a pair of them.
pub(crate) trait Exact:
    Copy + Send + Sync + Add<Output = Self> + Sub<Output = Self>
{
    const ZERO: Self;
}

impl<const L: usize> Exact for generators::fixed::Fixed<L> {
    const ZERO: Self = generators::fixed::Fixed::ZERO;
}

/// A value and Σ|terms| carried through the same walk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WithAbs<T>(pub T, pub T);

impl<T: Exact> Add for WithAbs<T> {
    type Output = Self;
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        WithAbs(self.0 + rhs.0, self.1 + rhs.1)
    }
}

impl<T: Exact> Sub for WithAbs<T> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        WithAbs(self.0 - rhs.0, self.1 - rhs.1)
    }
}

impl<T: Exact> Exact for WithAbs<T> {
    const ZERO: Self = WithAbs(T::ZERO, T::ZERO);
}

/// Vertices below which one block is walked: small trees stay on one thread.
const MIN_BLOCK: usize = 1 << 15;

/// Blocks per thread (some blocks cost more than others: deep random trees, wide stars).
const BLOCKS_PER_THREAD: usize = 4;

/// The block length for `n` vertices on the current rayon pool.
pub(crate) fn block_len(n: usize) -> usize {
    let threads = rayon::current_num_threads();
    if threads == 1 {
        return n.max(1);
    }
    n.div_ceil(threads * BLOCKS_PER_THREAD).max(MIN_BLOCK)
}

/// A vector written (and read) by many threads at once, each element by one of them: the
/// walks' per-vertex outputs, every vertex lying in exactly one block.
pub(crate) struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

unsafe impl<T: Send> Send for Disjoint<'_, T> {}
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}

impl<'a, T: Copy> Disjoint<'a, T> {
    pub(crate) fn new(v: &'a mut [T]) -> Self {
        Disjoint {
            ptr: v.as_mut_ptr(),
            len: v.len(),
            _borrow: PhantomData,
        }
    }

    /// # Safety
    /// No other thread writes element `i` meanwhile.
    #[cfg(test)]
    #[inline(always)]
    pub(crate) unsafe fn get(&self, i: usize) -> T {
        assert!(i < self.len);
        unsafe { *self.ptr.add(i) }
    }

    /// # Safety
    /// No other thread reads or writes element `i` meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn set(&self, i: usize, x: T) {
        assert!(i < self.len);
        unsafe { *self.ptr.add(i) = x }
    }
}

/// Every vertex's rootfix (the sum of the weights on its root path), handed to `finish` once
/// per vertex (from any thread), `term` making each weight's integer; blocks of `len`
/// vertices of the preorder ([`block_len`]).
pub(crate) fn rootfix<W: Weight, T: Exact>(
    tree: &Tree,
    w: &[W],
    term: impl Fn(W) -> T + Sync,
    finish: impl Fn(usize, T) + Sync,
    pair: impl Fn(usize, W, W) -> bool + Sync,
    len: usize,
) {
    rootfix_keeping(tree, w, (term, finish, pair), len, deep::<T>(tree));
}

/// [`rootfix`], keeping only the vertices with several children if `deep` (else the whole
/// root path by depth): the same integers either way.
pub(crate) fn rootfix_keeping<W: Weight, T: Exact>(
    tree: &Tree,
    w: &[W],
    (term, finish, pair): (
        impl Fn(W) -> T + Sync,
        impl Fn(usize, T) + Sync,
        impl Fn(usize, W, W) -> bool + Sync,
    ),
    len: usize,
    deep: bool,
) {
    assert_eq!(tree.len(), w.len());
    let pre = tree.preorder();
    let Some(&root) = pre.first() else {
        return;
    };
    let finish = Finish {
        value: finish,
        pair,
        root_weight: w[root as usize],
    };
    if pre.len() <= len {
        match deep {
            true => rootfix_block_deep(tree, w, &term, pre, &[], &finish),
            false => rootfix_block(tree, w, &term, pre, &[], &finish),
        }
        return;
    }
    let (open, depth, parents) = (tree.open(), tree.depths(), tree.parents());
    // Preorder position of x: open counts each step down and up before it.
    let position = |x: usize| (open[x] as usize + depth[x] as usize) / 2;
    // Pass 1: per block, the part of its last vertex's root path that lies inside it (found by
    // parent links, not a walk of the block), summed from the last vertex up.
    let ends: Vec<EndPath<T>> = pre
        .par_chunks(len)
        .enumerate()
        .map(|(b, block)| {
            let mut x = *block.last().expect("blocks are not empty") as usize;
            let mut up = term(w[x]);
            let (mut marks, mut count) = (vec![(x as u32, up)], 1);
            loop {
                let p = parents[x];
                if p == generators::NO_PARENT || position(p as usize) < b * len {
                    break;
                }
                x = p as usize;
                up = up + term(w[x]);
                if count % MARK == 0 {
                    marks.push((x as u32, up));
                }
                count += 1;
            }
            EndPath {
                len: count,
                marks,
                total: up,
            }
        })
        .collect();
    // Settled block after block: the root path of the last vertex walked so far, as pieces
    // (depth of the piece's first vertex, the value above it, the block whose end path it is),
    // and for each block b > 0 the values of the first vertex's ancestors from the depth above
    // the block's shallowest vertex (the top of its end path, every vertex of the block lying
    // in that vertex's parent's subtree) to its parent.
    let mut pieces: Vec<(u32, T, usize)> = Vec::new();
    let value = |pieces: &[(u32, T, usize)], d: u32| {
        let (d0, above, b) = pieces[pieces.partition_point(|p| p.0 <= d) - 1];
        let end = &ends[b];
        // The vertex at depth d is the i-th up from the last; from the mark at or below it,
        // the sum up to it; from the top down to it is the total less what lies below it.
        let i = end.len - 1 - (d - d0) as usize;
        let (mut x, mut up) = end.marks[i / MARK];
        for _ in 0..i % MARK {
            x = parents[x as usize];
            up = up + term(w[x as usize]);
        }
        above + (end.total - up + term(w[x as usize]))
    };
    let mut aboves: Vec<Vec<T>> = Vec::with_capacity(ends.len());
    for (b, end) in ends.iter().enumerate() {
        let (first, last) = (pre[b * len], pre[(b * len + len).min(pre.len()) - 1]);
        let top = depth[last as usize] + 1 - end.len as u32;
        let above: Vec<T> = (top.max(1) - 1..depth[first as usize])
            .map(|d| value(&pieces, d))
            .collect();
        while pieces.last().is_some_and(|p| p.0 >= top) {
            pieces.pop();
        }
        pieces.push((top, above.first().copied().unwrap_or(T::ZERO), b));
        aboves.push(above);
    }
    // Pass 2: every block walked from its ancestors' values.
    pre.par_chunks(len)
        .zip(&aboves)
        .for_each(|(block, above)| match deep {
            true => rootfix_block_deep(tree, w, &term, block, above, &finish),
            false => rootfix_block(tree, w, &term, block, above, &finish),
        });
}

/// Every how many vertices of a block's end path pass 1 keeps the sum (a chain's end path is
/// its whole block: a sum per vertex would be the L-limb value per vertex the walks no longer
/// store); a value on it costs at most this many parent links.
const MARK: usize = 64;

/// A block's end path: the part of its last vertex's root path inside it.
struct EndPath<T> {
    /// Its vertices.
    len: usize,
    /// (vertex, sum of the weights from it down to the last vertex) for every [`MARK`]-th
    /// vertex from the last up, the last first.
    marks: Vec<(u32, T)>,
    /// The sum of its weights.
    total: T,
}

/// Vertices whose inputs are gathered at once before they are walked: the gathers' loads
/// are independent and overlap, instead of one cache miss per vertex inside the chain of
/// additions where the vertex numbering is not the preorder (random trees).
const GATHER: usize = 512;

/// The weight and depth of each vertex of `vertices` (at most [`GATHER`]), in order.
#[inline(always)]
fn gather<W: Weight>(w: &[W], depth: &[u32], vertices: &[u32], into: &mut [(W, u32)]) -> usize {
    for (slot, &v) in into.iter_mut().zip(vertices) {
        *slot = (w[v as usize], depth[v as usize]);
    }
    vertices.len()
}

/// The weight, depth and child count of each vertex of `vertices` (at most [`GATHER`]), in
/// order.
#[inline(always)]
fn gather_with_children<W: Weight>(
    w: &[W],
    (depth, child_start): (&[u32], &[u32]),
    vertices: &[u32],
    into: &mut [(W, u32, u32)],
) -> usize {
    for (slot, &v) in into.iter_mut().zip(vertices) {
        let v = v as usize;
        *slot = (w[v], depth[v], child_start[v + 1] - child_start[v]);
    }
    vertices.len()
}

/// Whether rootfix walks `tree` keeping only the vertices with several children
/// ([`rootfix_block_deep`]): where a path array by depth would outgrow the caches (a chain's is its
/// length in words, each page of it a fault to the kernel when first written).
fn deep<T>(tree: &Tree) -> bool {
    (tree.height() as usize + 1) * size_of::<T>() > 1 << 18
}

/// Where rootfix hands its vertices: `value` takes each vertex's integer, except that `pair`
/// may take a childless vertex of depth 1, whose sum has two terms (the root's weight and its
/// own), from the two weights instead (true if it did: then its integer is not made).
struct Finish<V, P, W> {
    value: V,
    pair: P,
    root_weight: W,
}

/// Rootfix on the block `block` of the preorder, whose first vertex's ancestors from the
/// depth above the block's shallowest vertex down have the values `above` (none for the block
/// of the root): each vertex's value handed to `finish`.
fn rootfix_block<W: Weight, T: Exact>(
    tree: &Tree,
    w: &[W],
    term: &impl Fn(W) -> T,
    block: &[u32],
    above: &[T],
    finish: &Finish<impl Fn(usize, T), impl Fn(usize, W, W) -> bool, W>,
) {
    let depth = tree.depths();
    // The values on the current root path by depth, from the depth of above[0] (0 for the
    // root's block): a vertex's parent is on it, in the block or above it (an ancestor of the
    // first vertex, never overwritten: a vertex of the block at that depth would lie outside
    // the ancestor's subtree, which holds every vertex between). Sized once for the deepest
    // path the block can hold, and indexed by depth, as the sequential twin's path is.
    let first = block[0] as usize;
    let base = if above.is_empty() {
        0
    } else {
        depth[first] as usize - above.len()
    };
    let mut path = vec![T::ZERO; (block.len() + above.len()).min(tree.height() as usize + 1)];
    path[..above.len()].copy_from_slice(above);
    let mut inputs = [(W::default(), 0u32); GATHER + 1];
    for (c, chunk) in block.chunks(GATHER).enumerate() {
        let n = gather(w, depth, chunk, &mut inputs);
        // The depth after the chunk's last vertex (0 after the block's: what the next block
        // needs of this one, pass 1 found).
        let after = block
            .get((c + 1) * GATHER)
            .map_or(0, |&u| depth[u as usize]);
        inputs[n].1 = after;
        for (i, &v) in chunk.iter().enumerate() {
            let (x, d) = inputs[i];
            // A vertex has children iff the next one in preorder is deeper; a childless one of
            // depth 1 leaves path[1] to the next vertex of depth 1, before any vertex reads it.
            if d == 1 && inputs[i + 1].1 <= 1 && (finish.pair)(v as usize, finish.root_weight, x) {
                continue;
            }
            let t = term(x);
            let at = d as usize - base;
            let r = if d == 0 { t } else { path[at - 1] + t };
            path[at] = r;
            (finish.value)(v as usize, r);
        }
    }
}

/// [`rootfix_block`] for a deep tree: a vertex's parent is the vertex before it in preorder (a
/// first child: its value is at hand), or else an ancestor of that vertex with several
/// children. Only those are kept, on a stack of (depth, value) of ancestors of the last vertex
/// walked (a chain keeps none), and the ancestors before the block are read from `above` by
/// depth.
fn rootfix_block_deep<W: Weight, T: Exact>(
    tree: &Tree,
    w: &[W],
    term: &impl Fn(W) -> T,
    block: &[u32],
    above: &[T],
    finish: &Finish<impl Fn(usize, T), impl Fn(usize, W, W) -> bool, W>,
) {
    let depth = tree.depths();
    let shape = (depth, tree.csr().0);
    let first = block[0] as usize;
    let base = if above.is_empty() {
        0
    } else {
        depth[first] as usize - above.len()
    };
    let mut branches: Vec<(u32, T)> = Vec::new();
    // The last vertex walked: its depth (none yet: never one above the next) and value.
    let (mut last_depth, mut last) = (u32::MAX - 1, T::ZERO);
    let mut inputs = [(W::default(), 0u32, 0u32); GATHER + 1];
    for (c, chunk) in block.chunks(GATHER).enumerate() {
        let n = gather_with_children(w, shape, chunk, &mut inputs);
        let after = block
            .get((c + 1) * GATHER)
            .map_or(0, |&u| depth[u as usize]);
        inputs[n].1 = after;
        for (i, &v) in chunk.iter().enumerate() {
            let (x, d, children) = inputs[i];
            if d == 1 && inputs[i + 1].1 <= 1 && (finish.pair)(v as usize, finish.root_weight, x) {
                last_depth = d;
                continue;
            }
            let t = term(x);
            let r = if d == 0 {
                t
            } else if d == last_depth + 1 {
                last + t
            } else {
                while branches.last().is_some_and(|b| b.0 >= d) {
                    branches.pop();
                }
                match branches.last() {
                    Some(&(bd, value)) if bd + 1 == d => value + t,
                    _ => above[d as usize - 1 - base] + t,
                }
            };
            if children > 1 {
                branches.push((d, r));
            }
            (last_depth, last) = (d, r);
            (finish.value)(v as usize, r);
        }
    }
}

/// Every vertex's leaffix (the sum of its subtree's weights), handed to `finish` once per
/// vertex (from any thread), `term` making each weight's integer; blocks of `len` vertices of
/// the preorder ([`block_len`]).
pub(crate) fn leaffix<W: Weight, T: Exact>(
    tree: &Tree,
    w: &[W],
    term: impl Fn(W) -> T + Sync,
    finish: impl Fn(usize, T) + Sync,
    leaf: impl Fn(usize, W) -> bool + Sync,
    len: usize,
) {
    assert_eq!(tree.len(), w.len());
    let pre = tree.preorder();
    if pre.len() <= len {
        leaffix_block(tree, w, &term, pre, None, (&finish, &leaf));
        return;
    }
    // Pass 1: every vertex off the block's spine is final.
    let blocks: Vec<LeafBlock<T>> = pre
        .par_chunks(len)
        .enumerate()
        .map(|(b, block)| {
            let next = pre.get((b + 1) * len).copied();
            leaffix_block(tree, w, &term, block, next, (&finish, &leaf))
        })
        .collect();
    // From the last block back: `points` holds, by ascending depth, what the blocks after
    // sent to the ancestors of the current block's first vertex (an ancestor at depth d gets
    // every point at depth ≥ d). A block takes the points at its own depths or deeper (they
    // are its spine's), passes their sum on to the ancestor above its shallowest vertex, and
    // adds its own sends.
    let mut points: Vec<(u32, T)> = Vec::new();
    let mut carried: Vec<Vec<(u32, T)>> = Vec::with_capacity(blocks.len());
    for block in blocks.iter().rev() {
        let at = points.partition_point(|&(d, _)| d < block.min_depth);
        let mine: Vec<(u32, T)> = points.drain(at..).collect();
        if block.min_depth > 0 && !mine.is_empty() {
            let sum = mine.iter().fold(T::ZERO, |acc, &(_, x)| acc + x);
            push_point(&mut points, block.min_depth - 1, sum);
        }
        for &(d, x) in &block.sends {
            push_point(&mut points, d, x);
        }
        carried.push(mine);
    }
    carried.reverse();
    // Pass 2: each spine from its deepest vertex up, each adding the points at its depth or
    // deeper to its block-local sum.
    blocks
        .par_iter()
        .zip(&carried)
        .for_each(|(block, carried)| {
            let (mut sum, mut j) = (T::ZERO, carried.len());
            for &(v, d, local) in &block.spine {
                while j > 0 && carried[j - 1].0 >= d {
                    sum = sum + carried[j - 1].1;
                    j -= 1;
                }
                finish(v as usize, sum + local);
            }
            debug_assert_eq!(j, 0, "every point lands on the spine");
        });
}

/// Adds `x` at depth `d` to `points`, ascending by depth (`d` at least the last depth).
fn push_point<T: Exact>(points: &mut Vec<(u32, T)>, d: u32, x: T) {
    match points.last_mut() {
        Some((last, sum)) if *last == d => *sum = *sum + x,
        _ => points.push((d, x)),
    }
}

/// What pass 1 of leaffix leaves of a block.
struct LeafBlock<T> {
    /// Its shallowest depth.
    min_depth: u32,
    /// Its subtree sums sent to ancestors before it: (the ancestor's depth, the sum), by
    /// ascending depth.
    sends: Vec<(u32, T)>,
    /// Its vertices whose subtrees go on past it, not finished yet: (vertex, depth, block-local
    /// subtree sum), deepest first.
    spine: Vec<(u32, u32, T)>,
}

/// Pass 1 of leaffix on the block `block` of the preorder, walked backwards: each vertex's
/// block-local subtree sum, handed to `finish` unless the vertex is on the spine (an ancestor
/// of `next`, the first vertex of the block after it), whose sums are kept instead, or is a
/// leaf that `leaf` takes from its weight (its sum's one term; true if it did).
fn leaffix_block<W: Weight, T: Exact>(
    tree: &Tree,
    w: &[W],
    term: &impl Fn(W) -> T,
    block: &[u32],
    next: Option<u32>,
    (finish, leaf): (&impl Fn(usize, T), &impl Fn(usize, W) -> bool),
) -> LeafBlock<T> {
    let depth = tree.depths();
    // Finished subtrees whose parent is not reached yet, summed by depth (depths ascending
    // upwards): backwards in preorder, the children of v are the entry of depth d + 1 on top
    // when v is reached. A star's leaves or a chain take one entry, not one each.
    let mut finished: Vec<(u32, T)> = Vec::with_capacity(64);
    let mut spine = Vec::new();
    // The depth of the next spine vertex to find: the ancestor of `next` at that depth is the
    // first vertex of that depth met backwards.
    let mut wanted = next.map_or(-1, |y| depth[y as usize] as i64 - 1);
    let mut min_depth = u32::MAX;
    let mut inputs = [(W::default(), 0u32); GATHER];
    let mut end = block.len();
    while end > 0 {
        let from = end.saturating_sub(GATHER);
        let chunk = &block[from..end];
        let n = gather(w, depth, chunk, &mut inputs);
        for (&v, &(x, d)) in chunk.iter().zip(&inputs[..n]).rev() {
            let mut acc = term(x);
            // Backwards in preorder, v's children are the entry of depth d + 1 on top.
            let mut is_leaf = true;
            if let Some(&(cd, c)) = finished.last()
                && cd == d + 1
            {
                acc = acc + c;
                finished.pop();
                is_leaf = false;
            }
            push_point(&mut finished, d, acc);
            min_depth = min_depth.min(d);
            if d as i64 == wanted {
                spine.push((v, d, acc));
                wanted -= 1;
            } else if !(is_leaf && leaf(v as usize, x)) {
                finish(v as usize, acc);
            }
        }
        end = from;
    }
    // Left: the subtrees whose parents lie before the block (the root's has none), deepest
    // on top; sent by the parent's depth, shallowest first.
    let mut sends: Vec<(u32, T)> = Vec::new();
    for &(d, x) in finished.iter().filter(|&&(d, _)| d > 0) {
        push_point(&mut sends, d - 1, x);
    }
    LeafBlock {
        min_depth,
        sends,
        spine,
    }
}
