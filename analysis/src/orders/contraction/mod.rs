//! The contraction order: treefix by tree contraction, rake and compress (Miller & Reif; seed
//! 002 §V-A–§V-D), with the independent sets of compresses chosen by seeded random-mate.
//! Every node's value is a sum of depth O(log n) on any tree (expected; a chain needs
//! ≈ log_{4/3} n rounds), where the sequential order has depth up to n.
//!
//! The order is split in two:
//!
//! 1. a [`Schedule`], computed from the tree alone and a fixed seed ([`SEED`]): the rounds of
//!    compresses and rakes. Deterministic: the same tree gives the same schedule on every
//!    platform (portable ChaCha, `generators::rng`);
//! 2. the evaluation of [`leaffix`] / [`rootfix`] on that schedule over any [`ScanValue`]
//!    (f32 for the twin, the bound types for the bounds), contraction then uncontraction.
//!
//! # The schedule
//!
//! A *cluster* (seed 002's supervertex) is a connected set of vertices, named by its top vertex
//! (its representative). Initially every vertex is a cluster. Every cluster's child clusters
//! hang off one vertex of it (its *spine bottom*); its *spine* is the path from its
//! representative down to that vertex. Round k = 0, 1, … while more than one cluster is left:
//!
//! - **Compress** (random-mate). A cluster c is *viable* if it has exactly one child cluster x
//!   and its parent cluster p has exactly one child (c). Every cluster flips a coin; c is
//!   compressed into p if c is viable, c shows heads and p tails (so no compressed c is the p
//!   or the x of another compress of the round). The coins of round k are the bits of
//!   `generators::rng(derive_seed(SEED, k))`, drawn 64 at a time (`next_u64`, least
//!   significant bit first) for the clusters in *cluster order*: the root, then the vertices in
//!   the order of the tree's CSR children array (grouped by parent, each group in child order).
//!   Afterwards p's only child is x.
//! - **Rake**. Then every cluster without children (other than the root) is raked into its
//!   parent cluster. We rake every leaf, as Miller & Reif do; seed 002 rakes only at a vertex
//!   with at most one other child, a restriction of its constant-memory model (it stores the
//!   one child left out) that we do not share. The leaves raked into one p are p's children in
//!   child order (a parent that was compressed has only one child).
//!
//! Each round removes at least the deepest leaf, so the schedule ends; the tests measure the
//! number of rounds (O(log n) in expectation, Miller & Reif).
//!
//! # The additions, exactly (docs/design.md §5)
//!
//! Leaffix. Contraction keeps `P[c]`, the sum of cluster c's weights; initially `P[v]` = `w[v]`:
//! - compress c into p: `P[p] = P[p] + P[c]`;
//! - rake leaves s₁ … s_m (child order) into p: `P[p] = P[p] + Σ(P[s₁], …, P[s_m])`, where Σ
//!   is the balanced pairwise sum [`pairwise`]: with h the largest power of two below m,
//!   Σ(x₁…x_m) = Σ(x₁…x_h) + Σ(x_{h+1}…x_m), so the reduce has depth ⌈log₂ m⌉ (a star is one
//!   rake of depth ⌈log₂(n − 1)⌉ + 1, where a left-to-right reduce would have depth n − 1);
//!   it equals the level-by-level reduce of adjacent pairs (an odd last one carried).
//!
//! A raked cluster holds its whole subtree, so `l[s]` = `P[s]` when it is raked, and `l[root]` is
//! the final `P[root]`. Uncontraction, compresses in reverse order of the rounds: for c
//! compressed into p with child x, `l[c] = P[c] + l[x]` (`P[c]` as it was when compressed; `l[x]`
//! is final by then, x having been raked or compressed in a later round).
//!
//! Rootfix. Contraction keeps `Q[c]`, the sum of the weights on cluster c's spine; initially
//! `Q[v]` = `w[v]`. Compress c into p: `A[c]` = `Q[p]` (a copy), then `Q[p] = Q[p] + Q[c]`. Rake s into
//! p: `A[s]` = `Q[p]` (a copy; a rake does not change the spine). `A[v]` is the sum of the path from
//! the representative of v's parent cluster down to v's parent. Uncontraction, rounds in
//! reverse (rakes, then compresses): `R[v]` = `r[parent v]` = `R[p] + A[v]`, or `R[v]` = `A[v]` when p
//! is the root's cluster (no addition); finally `r[v] = R[v] + w[v]`, `r[root]` = `w[root]`.
//!
//! # No subtraction
//!
//! Seed 002 restores a compressed vertex's result by decrementing the partial sums it keeps
//! (its constant-memory model leaves no room for anything else): leaffix `l[c]` = `l[p]` − `P[p]`,
//! rootfix likewise. In floating point that subtraction would cancel — it is exactly how the
//! vectorial leaffix loses its bits (docs/design.md §5). It is not essential: keeping the
//! `P[c]` and `A[v]` of each merge (one value per vertex) lets every result be formed by additions
//! of disjoint sets of terms only, the additions that exact arithmetic needs. Every addition
//! adds two sums of disjoint sets of weights, so the a priori bounds of [`crate::bounds`] apply
//! to this order as they are.

pub mod twin;

use crate::Op;
use crate::scan_value::ScanValue;
use generators::{NO_PARENT, Tree};
use rand::Rng as _;
use std::ops::{Index, IndexMut, Range};

/// The seed of the random-mate coin flips, part of the order's definition: round k flips
/// the coins of `generators::rng(generators::derive_seed(SEED, k))`.
pub const SEED: u64 = 0x0002_7261_6b65_636f; // "rakeco", seed paper 002

/// Compress the cluster `c` into its parent cluster `p`; `x` was c's only child cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compress {
    pub c: u32,
    pub p: u32,
    pub x: u32,
}

/// Rake the leaf clusters `Schedule::raked[leaves]` (child order) into the cluster `p`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rake {
    pub p: u32,
    pub leaves: Range<usize>,
}

/// One round: its compresses, then its rakes (indices into [`Schedule`]'s lists).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    pub compresses: Range<usize>,
    pub rakes: Range<usize>,
}

/// The rounds of compresses and rakes that contract a tree to its root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    root: u32,
    len: usize,
    rounds: Vec<Round>,
    compresses: Vec<Compress>,
    rakes: Vec<Rake>,
    raked: Vec<u32>,
}

impl Schedule {
    /// The schedule of `tree` with the order's own seed [`SEED`].
    pub fn new(tree: &Tree) -> Schedule {
        Schedule::with_seed(tree, SEED)
    }

    /// The schedule with another seed for the coin flips (the tests; the order uses [`SEED`]).
    pub fn with_seed(tree: &Tree, seed: u64) -> Schedule {
        let n = tree.len();
        let mut s = Schedule {
            root: if n == 0 { 0 } else { tree.root() },
            len: n,
            rounds: Vec::new(),
            compresses: Vec::new(),
            rakes: Vec::new(),
            raked: Vec::with_capacity(n.saturating_sub(1)),
        };
        if n <= 1 {
            return s;
        }
        let (start, children) = tree.csr();
        // Parent cluster, number of child clusters and the XOR of the child clusters (the
        // only child, when there is one) of every cluster.
        let mut parent: Vec<u32> = tree.parents().to_vec();
        let mut nchild: Vec<u32> = start.windows(2).map(|r| r[1] - r[0]).collect();
        let mut xchild: Vec<u32> = (0..n)
            .map(|v| tree.children(v as u32).iter().fold(0, |a, &c| a ^ c))
            .collect();
        let mut heads = vec![false; n];
        let mut gone = vec![false; n];
        // The clusters left, in cluster order: the root first, then the CSR children array.
        let mut active: Vec<u32> = std::iter::once(s.root)
            .chain(children.iter().copied())
            .collect();
        let mut chosen = Vec::new();
        let mut round = 0u64;
        while active.len() > 1 {
            let mut rng = generators::rng(generators::derive_seed(seed, round));
            let mut bits = 0u64;
            for (i, &v) in active.iter().enumerate() {
                if i % 64 == 0 {
                    bits = rng.next_u64();
                }
                heads[v as usize] = (bits >> (i % 64)) & 1 == 1;
            }
            // Compress: decide on the whole set first (an update would change the coins seen).
            chosen.clear();
            chosen.extend(active[1..].iter().copied().filter(|&c| {
                let p = parent[c as usize] as usize;
                nchild[c as usize] == 1 && nchild[p] == 1 && heads[c as usize] && !heads[p]
            }));
            let c0 = s.compresses.len();
            for &c in &chosen {
                let (cu, p) = (c as usize, parent[c as usize]);
                let x = xchild[cu];
                parent[x as usize] = p;
                xchild[p as usize] = x;
                gone[cu] = true;
                s.compresses.push(Compress { c, p, x });
            }
            // Rake every leaf cluster. In cluster order the leaves of one parent are adjacent
            // and in child order: a parent that still has several children is a single
            // vertex whose children are one group of the CSR array.
            // The leaves are those of the start of the phase (a parent whose last child is
            // raked becomes a leaf of the next round).
            chosen.clear();
            chosen.extend(
                active[1..]
                    .iter()
                    .copied()
                    .filter(|&v| !gone[v as usize] && nchild[v as usize] == 0),
            );
            let r0 = s.rakes.len();
            for &v in &chosen {
                let vu = v as usize;
                let p = parent[vu];
                nchild[p as usize] -= 1;
                xchild[p as usize] ^= v;
                gone[vu] = true;
                s.raked.push(v);
                let end = s.raked.len();
                let in_round = s.rakes.len() > r0;
                match s.rakes.last_mut() {
                    Some(r) if in_round && r.p == p => r.leaves.end = end,
                    _ => s.rakes.push(Rake {
                        p,
                        leaves: end - 1..end,
                    }),
                }
            }
            active.retain(|&v| !gone[v as usize]);
            s.rounds.push(Round {
                compresses: c0..s.compresses.len(),
                rakes: r0..s.rakes.len(),
            });
            round += 1;
        }
        debug_assert_eq!(parent[s.root as usize], NO_PARENT);
        s
    }

    /// The root (the last cluster).
    pub fn root(&self) -> u32 {
        self.root
    }
    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The rounds, first to last.
    pub fn rounds(&self) -> &[Round] {
        &self.rounds
    }
    /// The compresses of one round.
    pub fn compresses(&self, round: &Round) -> &[Compress] {
        &self.compresses[round.compresses.clone()]
    }
    /// The rakes of one round.
    pub fn rakes(&self, round: &Round) -> &[Rake] {
        &self.rakes[round.rakes.clone()]
    }
    /// The leaves of one rake, in child order.
    pub fn leaves(&self, rake: &Rake) -> &[u32] {
        &self.raked[rake.leaves.clone()]
    }
    /// Every compress, in round order.
    pub fn all_compresses(&self) -> &[Compress] {
        &self.compresses
    }
}

/// The split point of [`pairwise`] for m ≥ 2 operands: the largest power of two below m.
#[inline]
pub fn pairwise_split(m: usize) -> usize {
    debug_assert!(m >= 2);
    1 << (usize::BITS - 1 - (m - 1).leading_zeros())
}

/// The balanced pairwise sum of `value(v)` over `leaves` (non-empty): Σ(x₁…x_m) =
/// Σ(x₁…x_h) + Σ(x_{h+1}…x_m), h = [`pairwise_split`]`(m)`; depth ⌈log₂ m⌉.
pub fn pairwise<T: ScanValue>(leaves: &[u32], value: &impl Fn(u32) -> T) -> T {
    match leaves {
        [v] => value(*v),
        _ => {
            let h = pairwise_split(leaves.len());
            pairwise(&leaves[..h], value).plus(pairwise(&leaves[h..], value))
        }
    }
}

/// The contraction order of `op`: [`rootfix`] or [`leaffix`].
pub fn order<T: ScanValue>(tree: &Tree, w: &[f32], op: Op) -> Vec<T> {
    match op {
        Op::Rootfix => rootfix(tree, w),
        Op::Leaffix => leaffix(tree, w),
    }
}

/// Leaffix (subtree sums) by contraction, on the tree's own [`Schedule`].
pub fn leaffix<T: ScanValue>(tree: &Tree, w: &[f32]) -> Vec<T> {
    leaffix_on(&Schedule::new(tree), w)
}

/// Rootfix (path sums) by contraction, on the tree's own [`Schedule`].
pub fn rootfix<T: ScanValue>(tree: &Tree, w: &[f32]) -> Vec<T> {
    rootfix_on(&Schedule::new(tree), w)
}

/// Leaffix on a given schedule: contraction (P), then uncontraction of the compresses.
pub fn leaffix_on<T: ScanValue>(s: &Schedule, w: &[f32]) -> Vec<T> {
    assert_eq!(s.len(), w.len(), "one weight per vertex");
    let mut part: Vec<T> = w.iter().map(|&x| T::term(x)).collect();
    leaffix_in(s, &mut part[..]);
    part
}

/// [`leaffix_on`] in `part`, one slot per vertex, holding each vertex's term on entry and
/// its leaffix on return (any indexable storage: a walk keeps it in pages).
pub fn leaffix_in<T: ScanValue, S: IndexMut<usize, Output = T> + ?Sized>(
    s: &Schedule,
    part: &mut S,
) {
    for round in s.rounds() {
        each_ahead(
            s.compresses(round).iter(),
            part,
            fetch_compress,
            |part, &Compress { c, p, .. }| {
                part[p as usize] = part[p as usize].plus(part[c as usize]);
            },
        );
        each_ahead(
            s.rakes(round).iter(),
            part,
            |part, r| fetch_rake(s, part, r),
            |part, rake| {
                let reduced = pairwise(s.leaves(rake), &|v| part[v as usize]);
                part[rake.p as usize] = part[rake.p as usize].plus(reduced);
            },
        );
    }
    // Raked clusters and the root now hold their subtree sums; a compressed c still holds
    // its P[c], the part of its subtree above x.
    each_ahead(
        s.all_compresses().iter().rev(),
        part,
        |part, &Compress { c, x, .. }| fetch(part, &[c, x]),
        |part, &Compress { c, x, .. }| {
            part[c as usize] = part[c as usize].plus(part[x as usize]);
        },
    );
}

/// `items` handed to `each` in turn, each named to `fetch` [`super::tree::AHEAD`] items
/// before: the slots of a contraction step are a vertex's, by label, so on a tree with
/// random labels each is a cache miss that the chain of additions would wait on.
#[inline(always)]
fn each_ahead<I: Iterator + Clone, S: ?Sized>(
    items: I,
    part: &mut S,
    fetch: impl Fn(&S, I::Item),
    mut each: impl FnMut(&mut S, I::Item),
) {
    let mut later = items.clone().skip(super::tree::AHEAD);
    for x in items {
        if let Some(y) = later.next() {
            fetch(part, y);
        }
        each(part, x);
    }
}

/// Each leaf v of each rake of `round`, with the rake's p, handed to `each` (rakes in order,
/// leaves in child order), the rakes' slots fetched ahead.
#[inline(always)]
fn each_raked_leaf<T, S: Index<usize, Output = T> + ?Sized>(
    s: &Schedule,
    round: &Round,
    part: &mut S,
    mut each: impl FnMut(&mut S, u32, u32),
) {
    each_ahead(
        s.rakes(round).iter(),
        part,
        |part, r| fetch_rake(s, part, r),
        |part, rake| {
            for &v in s.leaves(rake) {
                each(part, rake.p, v);
            }
        },
    );
}

/// Fetches the slots of `vertices` ([`super::prefetch`]).
#[inline(always)]
fn fetch<T, S: Index<usize, Output = T> + ?Sized>(part: &S, vertices: &[u32]) {
    for &v in vertices {
        super::prefetch(std::ptr::from_ref(&part[v as usize]));
    }
}

/// A compress's slots: p's and c's.
#[inline(always)]
fn fetch_compress<T, S: Index<usize, Output = T> + ?Sized>(part: &S, c: &Compress) {
    fetch(part, &[c.p, c.c]);
}

/// A rake's slots: p's and its first two leaves' only (a star's one rake has n − 1 leaves,
/// more than the cache holds).
#[inline(always)]
fn fetch_rake<T, S: Index<usize, Output = T> + ?Sized>(s: &Schedule, part: &S, rake: &Rake) {
    let leaves = s.leaves(rake);
    fetch(part, &[rake.p]);
    fetch(part, &leaves[..leaves.len().min(2)]);
}

/// Rootfix on a given schedule: contraction (Q, A), then uncontraction (R), then R + w.
pub fn rootfix_on<T: ScanValue>(s: &Schedule, w: &[f32]) -> Vec<T> {
    assert_eq!(s.len(), w.len(), "one weight per vertex");
    let mut above: Vec<T> = w.iter().map(|&x| T::term(x)).collect();
    rootfix_in(s, |v| T::term(w[v]), &mut above[..]);
    above
}

/// Rootfix and leaffix on f64 weights, adding in f64: the same schedule, the same pairings.
pub fn twin_f64(s: &Schedule, w: &[f64], op: Op) -> Vec<f64> {
    assert_eq!(s.len(), w.len(), "one weight per vertex");
    let mut slots = w.to_vec();
    match op {
        Op::Rootfix => rootfix_in(s, |v| w[v], &mut slots[..]),
        Op::Leaffix => leaffix_in(s, &mut slots[..]),
    }
    slots
}

/// [`rootfix_on`] in `above`, one slot per vertex, holding each vertex's term on entry and
/// its rootfix on return (any indexable storage: a walk keeps it in pages); `term(v)`: v's
/// weight as a value again, for the last addition.
pub fn rootfix_in<T: ScanValue, S: IndexMut<usize, Output = T> + ?Sized>(
    s: &Schedule,
    term: impl Fn(usize) -> T,
    above: &mut S,
) {
    // One slot per vertex: Q[v] while v's cluster is alive, A[v] once it is compressed or
    // raked (nothing reads a removed cluster's Q again), then R[v] in place.
    for round in s.rounds() {
        each_ahead(
            s.compresses(round).iter(),
            above,
            fetch_compress,
            |above, &Compress { c, p, .. }| {
                let (q_p, q_c) = (above[p as usize], above[c as usize]);
                above[c as usize] = q_p;
                above[p as usize] = q_p.plus(q_c);
            },
        );
        each_raked_leaf(s, round, above, |above, p, v| {
            above[v as usize] = above[p as usize];
        });
    }
    let root = s.root();
    let descend = |above: &mut S, p: u32, v: u32| {
        if p != root {
            above[v as usize] = above[p as usize].plus(above[v as usize]);
        }
    };
    for round in s.rounds().iter().rev() {
        each_raked_leaf(s, round, above, descend);
        each_ahead(
            s.compresses(round).iter(),
            above,
            fetch_compress,
            |above, &Compress { c, p, .. }| descend(above, p, c),
        );
    }
    for v in 0..s.len() {
        above[v] = if v as u32 == root {
            term(v)
        } else {
            above[v].plus(term(v))
        };
    }
}

#[cfg(test)]
mod tests;
