//! CPU twin of the contraction order (the generic order of the parent module, rake and
//! compress), in parallel with rayon: the operations of one round (its compresses, then its rakes) are
//! independent — no compressed c is the p or the x of another compress of its round, and a
//! raked leaf is nobody's parent — so each phase runs as one parallel loop, with a barrier
//! between phases. The additions and their operands are exactly the generic order's on f32
//! (a test compares the bits); only their schedule across threads differs.
//!
//! The values live in `AtomicU32` cells (f32 bits, relaxed loads and stores, which compile to
//! plain moves): the schedule guarantees that no cell is written by one operation of a phase
//! and read or written by another, so the atomics only make that sharing expressible without
//! `unsafe`; rayon's joins order the phases.
//!
//! The schedule itself (`Schedule::new`) is computed sequentially, from the tree alone.

use super::{Compress, Schedule, pairwise, pairwise_split};
use crate::Op;
use generators::Tree;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Below this many operations a phase (or a rake's reduce) runs on one thread.
const MIN_LEN: usize = 4096;

/// Rakes per task: most rakes have one or a few leaves.
const RAKES: usize = 256;

/// `f` on every leaf of one rake, in parallel only for a large rake (a star's).
fn for_each_leaf(leaves: &[u32], f: impl Fn(u32) + Sync + Send) {
    if leaves.len() <= MIN_LEN {
        leaves.iter().for_each(|&v| f(v));
    } else {
        leaves.par_iter().with_min_len(MIN_LEN).for_each(|&v| f(v));
    }
}

/// One f32 per vertex, shared by the operations of a phase.
struct Cells(Vec<AtomicU32>);

impl Cells {
    fn new(w: &[f32]) -> Cells {
        Cells(w.par_iter().map(|x| AtomicU32::new(x.to_bits())).collect())
    }
    fn zeros(n: usize) -> Cells {
        Cells((0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect())
    }
    #[inline]
    fn get(&self, v: u32) -> f32 {
        f32::from_bits(self.0[v as usize].load(Relaxed))
    }
    #[inline]
    fn set(&self, v: u32, x: f32) {
        self.0[v as usize].store(x.to_bits(), Relaxed)
    }
    fn into_vec(self) -> Vec<f32> {
        self.0
            .into_par_iter()
            .map(|x| f32::from_bits(x.into_inner()))
            .collect()
    }
}

/// The balanced pairwise sum of the cells of `leaves` (`orders::contraction::pairwise`), its
/// two halves in parallel when large: the same pairing, so the same bits.
fn pairwise_par(leaves: &[u32], cells: &Cells) -> f32 {
    if leaves.len() <= MIN_LEN {
        return pairwise(leaves, &|v| cells.get(v));
    }
    let h = pairwise_split(leaves.len());
    let (a, b) = rayon::join(
        || pairwise_par(&leaves[..h], cells),
        || pairwise_par(&leaves[h..], cells),
    );
    a + b
}

/// `op` by contraction, in parallel: the generic order's f32 results, bit for bit.
pub fn twin(tree: &Tree, w: &[f32], op: Op) -> Vec<f32> {
    twin_on(&Schedule::new(tree), w, op)
}

/// [`twin`] on a schedule already built.
pub fn twin_on(s: &Schedule, w: &[f32], op: Op) -> Vec<f32> {
    match op {
        Op::Rootfix => rootfix_on(s, w),
        Op::Leaffix => leaffix_on(s, w),
    }
}

/// Leaffix (subtree sums) by contraction.
pub fn leaffix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    leaffix_on(&Schedule::new(tree), w)
}

/// Rootfix (path sums) by contraction.
pub fn rootfix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    rootfix_on(&Schedule::new(tree), w)
}

/// Leaffix on a schedule: `P[p]` += `P[c]` per compress, `P[p]` += Σ `P[leaves]` per rake; then,
/// rounds in reverse, `l[c]` = `P[c]` + `l[x]` per compress.
pub fn leaffix_on(s: &Schedule, w: &[f32]) -> Vec<f32> {
    assert_eq!(s.len(), w.len(), "one weight per vertex");
    let part = Cells::new(w);
    for round in s.rounds() {
        s.compresses(round)
            .par_iter()
            .with_min_len(MIN_LEN)
            .for_each(|&Compress { c, p, .. }| part.set(p, part.get(p) + part.get(c)));
        s.rakes(round)
            .par_iter()
            .with_min_len(RAKES)
            .for_each(|rake| {
                let reduced = pairwise_par(s.leaves(rake), &part);
                part.set(rake.p, part.get(rake.p) + reduced);
            });
    }
    for round in s.rounds().iter().rev() {
        s.compresses(round)
            .par_iter()
            .with_min_len(MIN_LEN)
            .for_each(|&Compress { c, x, .. }| part.set(c, part.get(c) + part.get(x)));
    }
    part.into_vec()
}

/// Rootfix on a schedule: `A[c]` = `Q[p]`, `Q[p]` += `Q[c]` per compress, `A[leaf]` = `Q[p]` per rake;
/// then, rounds in reverse, `R[v]` = `R[p]` + `A[v]` (p not the root); `r[v]` = `R[v]` + `w[v]`.
pub fn rootfix_on(s: &Schedule, w: &[f32]) -> Vec<f32> {
    assert_eq!(s.len(), w.len(), "one weight per vertex");
    let spine = Cells::new(w);
    let above = Cells::zeros(w.len());
    for round in s.rounds() {
        s.compresses(round)
            .par_iter()
            .with_min_len(MIN_LEN)
            .for_each(|&Compress { c, p, .. }| {
                let q = spine.get(p);
                above.set(c, q);
                spine.set(p, q + spine.get(c));
            });
        s.rakes(round)
            .par_iter()
            .with_min_len(RAKES)
            .for_each(|rake| {
                let q = spine.get(rake.p);
                for_each_leaf(s.leaves(rake), |v| above.set(v, q));
            });
    }
    let root = s.root();
    let descend = |p: u32, v: u32| {
        if p != root {
            above.set(v, above.get(p) + above.get(v));
        }
    };
    for round in s.rounds().iter().rev() {
        s.rakes(round)
            .par_iter()
            .with_min_len(RAKES)
            .for_each(|rake| {
                for_each_leaf(s.leaves(rake), |v| descend(rake.p, v));
            });
        s.compresses(round)
            .par_iter()
            .with_min_len(MIN_LEN)
            .for_each(|&Compress { c, p, .. }| descend(p, c));
    }
    let mut r = above.into_vec();
    r.par_iter_mut()
        .zip(w.par_iter())
        .enumerate()
        .for_each(|(v, (r, &x))| *r = if v as u32 == root { x } else { *r + x });
    r
}
