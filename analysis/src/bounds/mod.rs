//! Per-node error bounds of every treefix algorithm (docs/design.md §9).
//!
//! A bound belongs to an algorithm's *summation tree* — which f32 additions it performs, in
//! which pairing — never to the hardware that performs them. The GPU kernels perform the same
//! additions as their CPU twins (docs/design.md §10), so every bound here holds for them as well.
//!
//! The summation trees are not written here: every bound runs the same generic order of
//! [`crate::orders`] that the f32 twins run, on bound values instead of f32. If a kernel's
//! order of additions changes (say, a load-balanced gather for high-degree vertices), its order
//! there changes, and the twin and the bound change together; the bound tests replay the twins.
//!
//! # Four bounds per node
//!
//! **A priori, deterministic** ([`APriori`]). For ŝ = fl(â + b̂) with round to nearest,
//! ŝ = (â + b̂)(1 + δ), |δ| ≤ u = 2^-24, so
//!
//! ```text
//! |ŝ − s| ≤ |â − a| + |b̂ − b| + u·|â + b̂| ≤ (1 + u)·(B_a + B_b) + u·A,
//! ```
//!
//! where B_a, B_b bound the operands' errors and A = Σ|t_i| over the node's terms
//! (|â + b̂| ≤ A + B_a + B_b). Unrolled, this recursion is exactly
//! Σ_i ((1 + u)^{d_i} − 1)·|t_i| ≤ Σ_i γ_{d_i}·|t_i| (Higham, *ASNA* 2nd ed., §4.2), where d_i
//! is the number of additions term t_i goes through: the docs/design.md §9.1 bound, or tighter, and still
//! rigorous. It is evaluated on the algorithm's actual summation tree:
//! - sequential / parallel rootfix: the path recursion `r[v] = r[parent] + w[v]`;
//! - sequential / parallel leaffix: the gathers `((w[v] + l[c1]) + l[c2]) + …` in child order,
//!   each `l[c]` carrying its own bound;
//! - vectorial (and vectorial-seqscan): the scan plan itself ([`crate::scan_plan`]) run on
//!   [`APriori`] values over the Euler-tour vector E, so each position's terms and depths are
//!   exactly those of the f32 scan — including the ±w pairs of subtrees closed before a node
//!   (rootfix) and the zero padding of the last tile;
//! - vectorial leaffix: l̂ = fl(`Ŝ[close]` − `Ŝ[open − 1]`), so
//!   |l̂ − l| ≤ (1 + u)·(B(S_close) + B(S_open−1)) + u·|l|, with |l| ≤ Σ|w| over the subtree.
//!
//! **A priori, sharp** ([`APriori::sharp`]). The same recursion with the exact partial sum in
//! place of Σ|t_i|: since |â + b̂| ≤ |a + b| + B_a + B_b,
//! |ŝ − s| ≤ (1 + u)(S_a + S_b) + u·|a + b| — Higham's (4.3), u·Σ_k |s_k| to first order over
//! the summation tree's exact partial sums s_k. It is still a priori (no computed value
//! enters), ≤ the bound above, and much smaller where partial sums cancel — the ±w pairs of
//! the Euler tour cancel exactly. |a + b| comes from an interval enclosure of each exact
//! partial sum carried through the same tree with outward rounding, capped by Σ|t_i|. For
//! vectorial leaffix the last rounding is charged u·|l| with l enclosed the same way, and the
//! roundings that S_close and S_open−1 share cancel in their difference instead of being
//! charged twice (`Scan::diff_bound`; the running bound does the same). A violation of it
//! is as much a bug as one of the first.
//!
//! An addition with an operand whose terms are all exactly zero (tile padding, `E[close]` = 0 in
//! leaffix, zero weights) is exact — a sum of zeros is ±0 and x + (±0) = x — so it is not
//! charged: the bound stays rigorous and does not grow with padding.
//!
//! **A priori, probabilistic** (Higham & Mary, SIAM J. Sci. Comput. 41(5), 2019). Under their
//! model (the δ of successive additions are mean-independent, zero-mean random variables) a
//! product of k factors (1 + δ_j) differs from 1 by at most
//! γ̃_k(λ) = exp(λ·√k·u + k·u²/(1 − u)) − 1 with probability ≥ 1 − 2·exp(−λ²(1 − u)²/2).
//! γ̃ is not recursive in k, so each node uses γ̃_D(λ)·Σ|t_i| with D the largest d_i among its
//! terms (tracked through the same summation tree as A). The promised failure probability of
//! one node is ≤ (number of terms)·2·exp(−λ²(1 − u)²/2) (a union bound over its terms). For
//! vectorial leaffix the two prefixes are bounded this way and combined as above. The choice
//! of λ is [`LAMBDA`]; violations are counted and reported, never an error.
//!
//! **A posteriori, running error** ([`Running`]). Where the partial sums are available (the CPU
//! twins, replayed here addition by addition), |fl(x) − x| ≤ u·|fl(x)| for round to nearest
//! (Higham, Thm 2.3), so E(ŝ) = E(â) + E(b̂) + u·|ŝ|. An addition that the f32 TwoSum proves
//! exact is not charged. The replayed f32 values equal the twins' bit for bit (a test); where
//! a backend's value differs from the replay, no running bound is claimed (+∞).
//!
//! **vectorial-compensated** (docs/design.md §9.7). Its scan adds float-float values with
//! [`dw_add`], relative error ≤ u_dw = 3u²/(1 − 4u) ([`U_DW`]), so the a priori recursions
//! above run on `APrioriIn<DwAdd>` (the same [`APrioriIn`] with unit u_dw, [`Roundoff`]) and the
//! read adds the final rounding to f32: (1 + u)·B + u·|s|. Its probabilistic bound is the
//! deterministic one. The running bound ([`RunningDw`]) charges u_dw/(1 − u_dw)·|ŝ| per
//! dw_add (0 when TwoSum proves it exact) and exactly |lo| for taking hi.
//!
//! # Rounding of the bounds themselves
//!
//! Bounds are evaluated in f64 with upward rounding emulated: every f64 sum of bound terms goes
//! through [`add_up`] (the round-to-nearest sum, moved one ulp up when TwoSum shows it fell
//! below the exact sum — exact sums stay exact), multiplications by u = 2^-24 are exact
//! scalings, and the few other operations are followed by [`next_up`]. The enclosures of the
//! sharp bound round outward ([`add_down`] for the lower end). Every bound operand is ≥ 0, so
//! each computed bound is ≥ the exact value of its formula: the bound is never
//! under-estimated by its own evaluation. Overflow and NaN are impossible for finite f32
//! inputs (Σ|t_i| ≤ 2^31·2^128 ≪ f64::MAX).

mod a_priori;
pub(crate) mod rounding;
mod running;
mod scanned;
mod spare;
mod store;
mod summary;
#[cfg(test)]
mod tests;
mod tour_read;
mod walk;

use crate::Op;
use crate::accumulate::Stored;
use crate::float_float::{FloatFloat, U_DW, dw_add, dw_add_is_exact};
use crate::orders::{self, TourVertices};
use crate::reference::{NodeError, Reference, lost_bits};
use crate::scan_plan;
use crate::scan_plan::Plan;
use crate::scan_value::ScanValue;
use generators::exact_sum::ExactSum;
use generators::{Arithmetic, Tree};
use rug::Float;
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;

pub use a_priori::*;
pub use rounding::*;
pub use running::*;
pub(crate) use scanned::*;
pub use spare::{KeepSpares, give_back_at_once, keep_spares};
pub(crate) use store::*;
pub use summary::*;
pub use tour_read::*;
pub use walk::*;

/// The four bounds of one node on |x̂_v − x_v| (absolute, in the unit of the result).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FourBounds {
    /// A priori deterministic bound Σ((1 + u)^{d_i} − 1)|t_i| ≤ Σ γ_{d_i}|t_i|.
    pub det: f64,
    /// Sharp a priori deterministic bound: the same summation tree, each rounding charged
    /// u·|exact partial sum| instead of u·Σ|terms| (≤ `det`).
    pub sharp: f64,
    /// Higham–Mary probabilistic bound at λ = [`LAMBDA`].
    pub prob: f64,
    /// A posteriori running error bound; +∞ where the evaluated value differs from the
    /// replay of the twin's additions (then the replay says nothing about it).
    pub running: f64,
}

impl FourBounds {
    /// From the running bound and the (deterministic, sharp, probabilistic) a priori ones.
    #[inline]
    pub fn new(running: f64, (det, sharp, prob): (f64, f64, f64)) -> FourBounds {
        FourBounds {
            det,
            sharp,
            prob,
            running,
        }
    }
}

/// The bounds of every node of one (tree, weights, algorithm, op): `bounds[v]` is node v's.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeBounds {
    /// Per node; given back to the evaluation's spares when dropped ([`keep_spares`]).
    bounds: Vec<FourBounds>,
    /// Nodes whose evaluated value differs, bit for bit, from the replay: the f32 additions of
    /// the algorithm's order (`analysis::orders`), i.e. its CPU twin's result (any NaN equals
    /// any NaN: IEEE leaves a generated NaN's payload open). 0 for a correct kernel; the
    /// sweep's GPU-vs-twin check reads it instead of running the twin again.
    pub replay_mismatches: usize,
    /// Nodes (ascending) whose replayed value is NaN or ±∞: a partial sum of the algorithm's
    /// order overflowed f32's range (the weights are finite), so the a priori bounds, which
    /// assume no overflow, say nothing about them.
    pub overflowed: Vec<u32>,
}

impl std::ops::Index<usize> for NodeBounds {
    type Output = FourBounds;
    #[inline]
    fn index(&self, v: usize) -> &FourBounds {
        &self.bounds[v]
    }
}

impl Drop for NodeBounds {
    fn drop(&mut self) {
        spare::give(std::mem::take(&mut self.bounds));
    }
}

impl NodeBounds {
    /// The bounds a walk gives to the evaluated `values` (CPU twin or GPU): the running
    /// bound where they equal the walk's replay bit for bit, +∞ elsewhere (then the replay
    /// says nothing about them).
    pub fn of(walked: Walked, values: &[f32]) -> NodeBounds {
        let Walked {
            values: replay,
            mut bounds,
        } = walked;
        assert_eq!(replay.len(), values.len(), "one value per vertex");
        let mut replay_mismatches = 0;
        let mut overflowed = Vec::new();
        for (v, b) in bounds.iter_mut().enumerate() {
            let (a, x) = (replay[v], values[v]);
            if a.to_bits() != x.to_bits() && !(a.is_nan() && x.is_nan()) {
                b.running = f64::INFINITY;
                replay_mismatches += 1;
            }
            if !a.is_finite() {
                overflowed.push(v as u32);
            }
        }
        spare::give(replay);
        NodeBounds {
            bounds,
            replay_mismatches,
            overflowed,
        }
    }

    /// Every node's bounds, in vertex order.
    pub fn iter(&self) -> std::slice::Iter<'_, FourBounds> {
        self.bounds.iter()
    }

    /// One bound of every node, in vertex order (`bounds.column(|b| b.det)`).
    pub fn column(&self, which: impl Fn(&FourBounds) -> f64) -> Vec<f64> {
        column(&self.bounds, which)
    }
}

/// One bound of every node of `bounds`, in their order.
fn column(bounds: &[FourBounds], which: impl Fn(&FourBounds) -> f64) -> Vec<f64> {
    bounds.iter().map(which).collect()
}

/// Σ|w| over every subtree, rounded upward (≥ |leaffix(v)|): the sequential leaffix order
/// on `UpMagnitude` values, in postorder (the k-th entry is the k-th vertex of
/// [`Tree::postorder`], the order in which the Euler tour closes them: its reads then come in
/// sequence, not one cache miss each by vertex).
pub fn subtree_magnitudes_in_postorder(tree: &Tree, w: &[f32]) -> Vec<f64> {
    let mut out = Vec::with_capacity(tree.len());
    orders::tree::leaffix_sequential_each::<UpMagnitude>(tree, w, |_, m| out.push(m.0));
    out
}

/// [`subtree_magnitudes_in_postorder`] read off the Euler tour in one pass in sequence, with
/// the same additions: a vertex's sum starts at its open with |w|, and each child's finished
/// sum is added to its parent's at the child's close, so in child order, and the closes come
/// in postorder. The tree order gathers each vertex's weight and degree by vertex, on a tree
/// with random labels two cache misses per vertex: 60 ms per Euler-tour leaffix walk of a
/// 2^22-vertex `profile` tree.
pub(crate) fn subtree_magnitudes_on_tour(tour: &TourVertices) -> Vec<f64> {
    let mut out = Vec::with_capacity(tour.len() / 2);
    // The sums of the vertices open at p: a root path.
    let mut open: Vec<f64> = Vec::new();
    for p in 0..tour.len() {
        if tour.opens(p) {
            open.push(UpMagnitude::term(tour.weight(p)).0);
        } else {
            let l = open.pop().expect("a close follows its open");
            if let Some(parent) = open.last_mut() {
                *parent = UpMagnitude(*parent).plus(UpMagnitude(l)).0;
            }
            out.push(l);
        }
    }
    out
}

/// Σ|t| rounded upward.
#[derive(Debug, Clone, Copy)]
struct UpMagnitude(f64);

impl ScanValue for UpMagnitude {
    fn term(w: f32) -> Self {
        UpMagnitude(w.abs() as f64)
    }
    fn plus(self, rhs: Self) -> Self {
        UpMagnitude(add_up(self.0, rhs.0))
    }
}
