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
//! - rootfix: a vertex whose parent lies before the block starts a *segment*; the segment's
//!   vertices get their path sum from that parent (the segment's *anchor*) down. The anchor's
//!   own value is its block-local value plus the base of its own segment, known once the
//!   blocks before are settled.
//! - leaffix: a vertex whose parent lies before the block sends its (block-local) subtree sum
//!   to that parent, by depth; the block's *spine*, the vertices whose subtrees go on past the
//!   block (the ancestors of the next block's first vertex), receives what the later blocks
//!   sent to it or below it.

use generators::Tree;
use rayon::prelude::*;
use std::marker::PhantomData;
use std::ops::Add;

/// A value the walks add: a fixed-point integer, or a pair of them.
pub(crate) trait Exact: Copy + Send + Sync + Add<Output = Self> {
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
pub(crate) fn rootfix<T: Exact>(
    tree: &Tree,
    w: &[f32],
    term: impl Fn(f32) -> T + Sync,
    finish: impl Fn(usize, T) + Sync,
    len: usize,
) {
    assert_eq!(tree.len(), w.len());
    let pre = tree.preorder();
    if pre.len() <= len {
        // One block: every value is final as it is made.
        rootfix_block(tree, w, &term, pre, 0, &|_, v, x| finish(v, x));
        return;
    }
    // Pass 1: each block from zero at its anchors, the local values kept by preorder
    // position (written and read again in streams, not by vertex).
    let mut local = vec![T::ZERO; pre.len()];
    let local = Disjoint::new(&mut local);
    let store = |pos: usize, _v: usize, x: T| unsafe { local.set(pos, x) };
    let segments: Vec<Vec<Segment>> = pre
        .par_chunks(len)
        .enumerate()
        .map(|(b, block)| rootfix_block(tree, w, &term, block, b * len, &store))
        .collect();
    // Every anchor lies in an earlier block: its value is its own segment's base plus its
    // local value, settled block by block.
    let (open, depth) = (tree.open(), tree.depths());
    let mut bases: Vec<Vec<T>> = Vec::with_capacity(segments.len());
    for segs in &segments {
        let mine = segs
            .iter()
            .map(|s| {
                if s.anchor == generators::NO_PARENT {
                    return T::ZERO;
                }
                let x = s.anchor as usize;
                let pos = (open[x] as usize + depth[x] as usize) / 2;
                let (b, theirs) = (pos / len, &segments[pos / len]);
                let j = theirs.partition_point(|t| t.start as usize <= pos) - 1;
                bases[b][j] + unsafe { local.get(pos) }
            })
            .collect();
        bases.push(mine);
    }
    // Pass 2: each vertex's local value plus its segment's base.
    pre.par_chunks(len)
        .zip(&segments)
        .zip(&bases)
        .enumerate()
        .for_each(|(b, ((block, segs), bases))| {
            for (k, (s, &base)) in segs.iter().zip(bases).enumerate() {
                let (from, to) = (
                    s.start as usize - b * len,
                    segs.get(k + 1)
                        .map_or(block.len(), |t| t.start as usize - b * len),
                );
                for (i, &v) in block[from..to].iter().enumerate() {
                    finish(v as usize, base + unsafe { local.get(b * len + from + i) });
                }
            }
        });
}

/// A run of a block's preorder whose vertices reach outside the block through one anchor.
struct Segment {
    /// Its first preorder position.
    start: u32,
    /// The parent of its first vertex (before the block), or `NO_PARENT` for the root.
    anchor: u32,
}

/// Vertices whose inputs are gathered at once before they are walked: the gathers' loads
/// are independent and overlap, instead of one cache miss per vertex inside the chain of
/// additions where the vertex numbering is not the preorder (random trees).
const GATHER: usize = 512;

/// The weight and depth of each vertex of `vertices` (at most [`GATHER`]), in order.
#[inline(always)]
fn gather(w: &[f32], depth: &[u32], vertices: &[u32], into: &mut [(f32, u32); GATHER]) -> usize {
    for (slot, &v) in into.iter_mut().zip(vertices) {
        *slot = (w[v as usize], depth[v as usize]);
    }
    vertices.len()
}

/// Pass 1 of rootfix on the block `block` of the preorder, starting at position `start`: each
/// vertex's sum from its segment's anchor down, handed to `store` with its preorder position.
fn rootfix_block<T: Exact>(
    tree: &Tree,
    w: &[f32],
    term: &impl Fn(f32) -> T,
    block: &[u32],
    start: usize,
    store: &impl Fn(usize, usize, T),
) -> Vec<Segment> {
    let (depth, parents) = (tree.depths(), tree.parents());
    let mut segments = Vec::new();
    // The block's vertices on the current root path by depth: path[d − top] is the one of
    // depth d. Its room is reserved once, for the deepest path the block can hold: grown by
    // doubling, a chain's path would be zeroed and copied again at each step.
    let mut path: Vec<T> = Vec::new();
    let mut top = u32::MAX;
    let mut inputs = [(0f32, 0u32); GATHER];
    for (c, chunk) in block.chunks(GATHER).enumerate() {
        let n = gather(w, depth, chunk, &mut inputs);
        for (j, (&v, &(x, d))) in chunk.iter().zip(&inputs[..n]).enumerate() {
            let i = c * GATHER + j;
            let t = term(x);
            let r = if d > top {
                // The parent, at depth d − 1, is on the path.
                let at = (d - top) as usize;
                path.truncate(at);
                path[at - 1] + t
            } else {
                // The parent lies before the block: a new anchor if shallower than the last.
                if d < top {
                    segments.push(Segment {
                        start: (start + i) as u32,
                        anchor: parents[v as usize],
                    });
                    if top == u32::MAX {
                        path.reserve_exact(block.len().min((tree.height() - d) as usize + 1));
                    }
                    top = d;
                }
                path.clear();
                t
            };
            path.push(r);
            store(start + i, v as usize, r);
        }
    }
    segments
}

/// Every vertex's leaffix (the sum of its subtree's weights), handed to `finish` once per
/// vertex (from any thread), `term` making each weight's integer; blocks of `len` vertices of
/// the preorder ([`block_len`]).
pub(crate) fn leaffix<T: Exact>(
    tree: &Tree,
    w: &[f32],
    term: impl Fn(f32) -> T + Sync,
    finish: impl Fn(usize, T) + Sync,
    len: usize,
) {
    assert_eq!(tree.len(), w.len());
    let pre = tree.preorder();
    if pre.len() <= len {
        leaffix_block(tree, w, &term, pre, 0, None, &|_, v, x| finish(v, x));
        return;
    }
    let mut local = vec![T::ZERO; pre.len()];
    let local = Disjoint::new(&mut local);
    let store = |pos: usize, _v: usize, x: T| unsafe { local.set(pos, x) };
    let blocks: Vec<LeafBlock<T>> = pre
        .par_chunks(len)
        .enumerate()
        .map(|(b, block)| {
            let next = pre.get((b + 1) * len).copied();
            leaffix_block(tree, w, &term, block, b * len, next, &store)
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
    pre.par_chunks(len)
        .zip(&blocks)
        .zip(&carried)
        .enumerate()
        .for_each(|(b, ((vertices, block), carried))| {
            // The spine from its deepest vertex up, each adding the points at its depth or
            // deeper; then every vertex is final.
            let (mut sum, mut j) = (T::ZERO, carried.len());
            for &(pos, d) in &block.spine {
                while j > 0 && carried[j - 1].0 >= d {
                    sum = sum + carried[j - 1].1;
                    j -= 1;
                }
                if j < carried.len() {
                    unsafe { local.set(pos as usize, sum + local.get(pos as usize)) };
                }
            }
            debug_assert_eq!(j, 0, "every point lands on the spine");
            for (i, &v) in vertices.iter().enumerate() {
                finish(v as usize, unsafe { local.get(b * len + i) });
            }
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
    /// Its vertices whose subtrees go on past it: (preorder position, depth), deepest first.
    spine: Vec<(u32, u32)>,
}

/// Pass 1 of leaffix on the block `block` of the preorder, starting at position `start`,
/// walked backwards, each vertex's block-local subtree sum handed to `store` with its preorder
/// position; `next` is the first vertex of the block after it.
fn leaffix_block<T: Exact>(
    tree: &Tree,
    w: &[f32],
    term: &impl Fn(f32) -> T,
    block: &[u32],
    start: usize,
    next: Option<u32>,
    store: &impl Fn(usize, usize, T),
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
    let mut inputs = [(0f32, 0u32); GATHER];
    let mut end = block.len();
    while end > 0 {
        let from = end.saturating_sub(GATHER);
        let chunk = &block[from..end];
        let n = gather(w, depth, chunk, &mut inputs);
        for (j, (&v, &(x, d))) in chunk.iter().zip(&inputs[..n]).enumerate().rev() {
            let pos = start + from + j;
            let mut acc = term(x);
            if let Some(&(cd, c)) = finished.last()
                && cd == d + 1
            {
                acc = acc + c;
                finished.pop();
            }
            push_point(&mut finished, d, acc);
            store(pos, v as usize, acc);
            min_depth = min_depth.min(d);
            if d as i64 == wanted {
                spine.push((pos as u32, d));
                wanted -= 1;
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
