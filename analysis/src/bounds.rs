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
//! charged twice (`Scanned::diff_bound`; the running bound does the same). A violation of it
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
//! above run on [`APrioriDw`] (the same [`APrioriIn`] with unit u_dw, [`Roundoff`]) and the
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

use crate::algo::{Algorithm, Op};
use crate::float_float::{FloatFloat, U_DW, dw_add, dw_add_is_exact};
use crate::orders::euler::{self, ScannedTour};
use crate::orders::{self, ScanValue};
use crate::reference::{NodeError, Reference, lost_bits};
use crate::scan_plan;
use generators::Tree;
use generators::exact_sum::ExactSum;
use rug::Float;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::marker::PhantomData;

/// The unit roundoff of f32, u = 2^-24.
pub const U: f64 = 1.0 / 16_777_216.0;

/// λ of the probabilistic bound.
///
/// Chosen so that the promise is tiny even for the largest runs: a run has at most 2^24 nodes
/// (the scale of the paper's experiments) and a node's sum at most 2^25 terms (a vectorial
/// prefix of the 2n-long Euler tour), so a union bound over every (node, term) pair promises
/// failure probability ≤ 2^24 · 2^25 · 2·exp(−λ²(1 − u)²/2) = 2^50·exp(−50(1 − u)²)
/// ≈ 2.2·10^-7 < 10^-6 per run at λ = 10 ([`failure_probability`]). The price is a factor
/// λ = 10 on the √k growth: γ̃_k(10) ≈ 10·√k·u, still far below γ_k ≈ k·u once k > 100.
pub const LAMBDA: f64 = 10.0;

/// The promised probability that at least one of `pairs` (node, term) products exceeds its
/// γ̃ at `lambda`: pairs·2·exp(−λ²(1 − u)²/2) (Higham & Mary, Lemma 2.4 with a union bound).
pub fn failure_probability(pairs: f64, lambda: f64) -> f64 {
    pairs * 2.0 * (-lambda * lambda * (1.0 - U) * (1.0 - U) / 2.0).exp()
}

/// The next f64 above x (x finite); `f64::next_up` without raising the MSRV.
#[inline]
pub fn next_up(x: f64) -> f64 {
    debug_assert!(x.is_finite(), "{x}");
    if x == 0.0 {
        f64::from_bits(1)
    } else if x > 0.0 {
        f64::from_bits(x.to_bits() + 1)
    } else {
        f64::from_bits(x.to_bits() - 1)
    }
}

/// The next f64 below x (x finite).
#[inline]
pub fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// The rounding error of a + b: (a + b) − fl(a + b), exactly (TwoSum, Knuth).
#[inline]
fn two_sum_err(a: f64, b: f64, s: f64) -> f64 {
    let bb = s - a;
    (a - (s - bb)) + (b - bb)
}

/// a + b rounded upward: the nearest sum, one ulp up if TwoSum shows that it lies below the
/// exact sum. Exact sums stay exact.
#[inline]
pub fn add_up(a: f64, b: f64) -> f64 {
    let s = a + b;
    nudge(s, two_sum_err(a, b, s) > 0.0, true)
}

/// a + b rounded downward.
#[inline]
pub fn add_down(a: f64, b: f64) -> f64 {
    let s = a + b;
    nudge(s, two_sum_err(a, b, s) < 0.0, false)
}

/// `s` moved one ulp up (`up`) or down when `inexact`, else `s`: [`next_up`] or
/// [`next_down`] without a branch, since whether a sum rounds is unpredictable. An inexact
/// sum is never zero (a sum of two f64 that rounds is far above the subnormal range), so the
/// step is ±1 on the bits, by the sign of s.
#[inline]
fn nudge(s: f64, inexact: bool, up: bool) -> f64 {
    let bits = s.to_bits() as i64;
    let negative = bits >> 63; // 0 or −1
    // Sign and magnitude: bits + 1 moves s > 0 up, bits − 1 moves s < 0 up.
    let step_up = (inexact as i64 ^ negative) - negative; // +1, −1 (s < 0), or 0
    let step = if up { step_up } else { -step_up };
    f64::from_bits(bits.wrapping_add(step) as u64)
}

/// x·u for x ≥ 0: an exact scaling by 2^-24, rounded up in the (never reached in practice)
/// subnormal range.
#[inline]
pub fn times_u(x: f64) -> f64 {
    let p = x * U;
    if p < f64::MIN_POSITIVE && x != 0.0 {
        next_up(p)
    } else {
        p
    }
}

/// (1 + u)·x for x ≥ 0, rounded upward.
#[inline]
fn one_plus_u_times(x: f64) -> f64 {
    add_up_nonneg(x, times_u(x))
}

/// The arithmetic of one addition of a summation order, for the a priori bounds: its unit
/// roundoff (every addition is fl(a + b) = (a + b)(1 + δ), |δ| ≤ unit) and how the read
/// stage finishes.
pub trait Roundoff: Copy + std::fmt::Debug + PartialEq {
    /// x·unit for x ≥ 0, rounded upward.
    fn times(x: f64) -> f64;
    /// Whether the vectorial read rounds its float-float result once more to f32.
    const READ_ROUNDS_TO_F32: bool;
}

/// f32 addition: unit u = 2^-24.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F32Add;

impl Roundoff for F32Add {
    #[inline]
    fn times(x: f64) -> f64 {
        times_u(x)
    }
    const READ_ROUNDS_TO_F32: bool = false;
}

/// Float-float addition ([`dw_add`], JMP 2017 Algorithm 6): unit u_dw = 3u²/(1 − 4u)
/// ([`U_DW`], rounded upward).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DwAdd;

impl Roundoff for DwAdd {
    #[inline]
    fn times(x: f64) -> f64 {
        mul_up(x, U_DW)
    }
    const READ_ROUNDS_TO_F32: bool = true;
}

/// (1 + unit)·x for x ≥ 0, rounded upward.
#[inline]
fn one_plus_unit_times<R: Roundoff>(x: f64) -> f64 {
    add_up_nonneg(x, R::times(x))
}

/// The final rounding of a float-float value ŝ to f32, r̂ = RN(ŝ), for ŝ with error bound
/// `b` and exact value of magnitude ≤ `m`: |r̂ − s| ≤ b + u·|ŝ| ≤ (1 + u)·b + u·m.
#[inline]
fn round_to_f32(b: f64, m: f64) -> f64 {
    add_up_nonneg(one_plus_u_times(b), times_u(m))
}

/// [`add_up`] for a, b ≥ 0, the same result with fewer operations: with the larger operand
/// first, Fast2Sum (Dekker) gives the same exact rounding error as TwoSum.
#[inline]
fn add_up_nonneg(a: f64, b: f64) -> f64 {
    debug_assert!(a >= 0.0 && b >= 0.0, "{a} {b}");
    let (big, small) = (a.max(b), a.min(b));
    let s = big + small;
    let err = small - (s - big);
    // An inexact sum is > 0, so one ulp up is one more on the bits.
    f64::from_bits(s.to_bits() + (err > 0.0) as u64)
}

/// a·b for a, b ≥ 0, rounded upward (nearest product, then one ulp up).
#[inline]
fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    if p == 0.0 { 0.0 } else { next_up(p) }
}

/// γ_k = k·u / (1 − k·u), rounded upward (∞ once k·u ≥ 1).
pub fn gamma(k: u64) -> f64 {
    if k == 0 {
        return 0.0;
    }
    let ku = k as f64 * U; // exact for k < 2^53
    if ku >= 1.0 {
        return f64::INFINITY;
    }
    // 1 − ku is rounded to nearest; dividing by one ulp less than it rounds the quotient up.
    let den = 1.0 - ku;
    let den_down = f64::from_bits(den.to_bits() - 1);
    next_up(ku / den_down)
}

/// Higham–Mary γ̃_k(λ) = exp(λ·√k·u + k·u²/(1 − u)) − 1, rounded upward.
///
/// √ and the products are correctly rounded and moved one ulp up; `exp_m1` comes from the
/// platform's libm (accurate to about 1 ulp) and is then inflated by a relative 2^-40, far more
/// than any libm's error. This bound is a probabilistic statement anyway, so its last bits
/// are not what makes it hold.
pub fn gamma_tilde(k: u32, lambda: f64) -> f64 {
    if k == 0 {
        return 0.0;
    }
    let kf = k as f64;
    let linear = times_u(mul_up(lambda, next_up(kf.sqrt())));
    let quadratic = next_up(times_u(times_u(kf)) / (1.0 - U));
    let x = add_up(linear, quadratic);
    next_up(x.exp_m1() * (1.0 + 1.0 / (1u64 << 40) as f64))
}

/// What the a priori bounds carry through a summation tree: one (partial) sum's
/// magnitude, deterministic error bound and depth, for additions of the arithmetic `R`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct APrioriIn<R: Roundoff> {
    /// Σ|t_i| over the terms summed so far, rounded upward (exact in practice).
    pub mag: f64,
    /// Rigorous bound on |ŝ − s|: Σ((1 + u)^{d_i} − 1)|t_i|, rounded upward.
    pub err: f64,
    /// The largest number of roundings any term has gone through (D of γ̃_D).
    pub depth: u32,
    /// An enclosure [lo, hi] of the exact partial sum s (interval arithmetic, outward
    /// rounding; its width stays below depth·2^-52·mag, far below u·mag).
    pub lo: f64,
    pub hi: f64,
    /// The sharp a priori bound: the same recursion with u·|s| (the exact partial sum,
    /// through its enclosure) in place of u·Σ|t_i|: (1 + u)(S_a + S_b) + u·|a + b|.
    pub sharp: f64,
    roundoff: PhantomData<R>,
}

/// The a priori bounds of f32 sums.
pub type APriori = APrioriIn<F32Add>;
/// The a priori bounds of float-float sums (vectorial-compensated's scan).
pub type APrioriDw = APrioriIn<DwAdd>;

impl<R: Roundoff> APrioriIn<R> {
    /// One input term: exact, no addition yet.
    pub fn term(t: f32) -> Self {
        APrioriIn {
            mag: t.abs() as f64,
            err: 0.0,
            depth: 0,
            lo: t as f64,
            hi: t as f64,
            sharp: 0.0,
            roundoff: PhantomData,
        }
    }

    /// Upper bound of |s|, the exact partial sum's magnitude.
    pub fn abs_bound(&self) -> f64 {
        self.lo.abs().max(self.hi.abs()).min(self.mag)
    }
}

impl APriori {
    /// Higham–Mary bound of this sum: γ̃_D(λ)·Σ|t_i|.
    pub fn prob(&self, lambda: f64) -> f64 {
        mul_up(gamma_tilde(self.depth, lambda), self.mag)
    }
}

impl<R: Roundoff> ScanValue for APrioriIn<R> {
    fn term(w: f32) -> Self {
        APrioriIn::term(w)
    }
    /// One rounded addition: (1 + u)(B_a + B_b) + u·(A_a + A_b), u the unit of `R`; exact if
    /// an operand is an exact zero (all its terms are 0; for float-float too: `dw_add` of
    /// (0, 0) and x returns x).
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        if self.mag == 0.0 {
            return rhs;
        }
        if rhs.mag == 0.0 {
            return self;
        }
        let mag = add_up_nonneg(self.mag, rhs.mag);
        let err = add_up_nonneg(
            one_plus_unit_times::<R>(add_up_nonneg(self.err, rhs.err)),
            R::times(mag),
        );
        let mut out = APrioriIn {
            mag,
            err,
            depth: self.depth.max(rhs.depth) + 1,
            lo: add_down(self.lo, rhs.lo),
            hi: add_up(self.hi, rhs.hi),
            sharp: 0.0,
            roundoff: PhantomData,
        };
        out.sharp = add_up_nonneg(
            one_plus_unit_times::<R>(add_up_nonneg(self.sharp, rhs.sharp)),
            R::times(out.abs_bound()),
        );
        out
    }
}

/// What the running error bound carries: the f32 partial sum exactly as the twin computes it,
/// and a rigorous bound on its error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Running {
    pub value: f32,
    pub err: f64,
}

impl Running {
    pub fn term(t: f32) -> Running {
        Running { value: t, err: 0.0 }
    }

    /// fl(a ∘ b) where `s` is that result and `b` already carries the sign of the operation.
    fn combine(a: Running, b: Running, b_value: f32, s: f32) -> Running {
        if !s.is_finite() {
            // Overflow (the weights are finite): no bound, and NaN never enters the sums.
            return Running {
                value: s,
                err: f64::INFINITY,
            };
        }
        // u·|s| or 0, selected by a product: whether a sum rounds is unpredictable.
        let inexact = !f32_sum_is_exact(a.value, b_value, s) as u8 as f64;
        let local = times_u(s.abs() as f64) * inexact;
        Running {
            value: s,
            err: add_up_nonneg(add_up_nonneg(a.err, b.err), local),
        }
    }
}

/// Whether s = fl(a + b) is the exact sum (TwoSum in f32: the rounding error is exactly
/// representable and computed without error, barring overflow, which reports "inexact").
#[inline]
fn f32_sum_is_exact(a: f32, b: f32, s: f32) -> bool {
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    err == 0.0
}

impl ScanValue for Running {
    fn term(w: f32) -> Self {
        Running::term(w)
    }
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        // The same f32 addition, operands in the same order, as the f32 twin.
        let s = self.value + rhs.value;
        Running::combine(self, rhs, rhs.value, s)
    }
}

/// The running error bound of a float-float sum: the value exactly as the compensated twin
/// computes it, and a rigorous bound on |(hi + lo) − s|.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunningDw {
    pub value: FloatFloat,
    pub err: f64,
}

impl RunningDw {
    /// u_dw/(1 − u_dw), rounded upward: ẑ = (â + b̂)(1 + δ), |δ| ≤ u_dw, so
    /// |ẑ − (â + b̂)| ≤ u_dw·|â + b̂| ≤ u_dw/(1 − u_dw)·|ẑ|.
    fn unit() -> f64 {
        next_up(U_DW / next_down(1.0 - U_DW))
    }

    /// A bound on |ẑ − (â + b̂)| for ẑ = dw_add(â, b̂) = `z`: 0 when TwoSum proves it
    /// exact ([`dw_add_is_exact`]), else u_dw/(1 − u_dw)·|ẑ|.
    fn local(a: FloatFloat, b: FloatFloat, z: FloatFloat) -> f64 {
        if !(z.hi.is_finite() && z.lo.is_finite()) {
            f64::INFINITY // overflow: no bound
        } else if dw_add_is_exact(a, b) {
            0.0
        } else {
            mul_up(Self::unit(), ff_abs_up(z))
        }
    }
}

/// |hi + lo| rounded upward (|hi| + |lo|, an upper bound of |hi + lo|).
#[inline]
fn ff_abs_up(x: FloatFloat) -> f64 {
    add_up_nonneg(x.hi.abs() as f64, x.lo.abs() as f64)
}

impl ScanValue for RunningDw {
    fn term(w: f32) -> Self {
        RunningDw {
            value: FloatFloat::term(w),
            err: 0.0,
        }
    }
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        // The same dw_add, operands in the same order, as the compensated twin.
        let value = dw_add(self.value, rhs.value);
        RunningDw {
            value,
            err: add_up_nonneg(
                add_up_nonneg(self.err, rhs.err),
                RunningDw::local(self.value, rhs.value, value),
            ),
        }
    }
}

/// The bounds of every node of one (tree, weights, algorithm, op).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeBounds {
    /// A priori deterministic bound Σ((1 + u)^{d_i} − 1)|t_i| ≤ Σ γ_{d_i}|t_i| on |x̂_v − x_v|
    /// (absolute, in the unit of the result).
    pub det: Vec<f64>,
    /// Sharp a priori deterministic bound: the same summation tree, each rounding charged
    /// u·|exact partial sum| instead of u·Σ|terms| (≤ `det`).
    pub sharp: Vec<f64>,
    /// Higham–Mary probabilistic bound at λ = [`LAMBDA`] (absolute).
    pub prob: Vec<f64>,
    /// A posteriori running error bound (absolute); +∞ where the evaluated value differs from
    /// the replay of the twin's additions (then the replay says nothing about it).
    pub running: Vec<f64>,
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

/// The a priori bounds of every node.
#[derive(Debug, Clone, PartialEq)]
pub struct APrioriBounds {
    pub det: Vec<f64>,
    pub sharp: Vec<f64>,
    pub prob: Vec<f64>,
}

impl APrioriBounds {
    fn with_capacity(n: usize) -> Self {
        APrioriBounds {
            det: Vec::with_capacity(n),
            sharp: Vec::with_capacity(n),
            prob: Vec::with_capacity(n),
        }
    }
    fn push(&mut self, det: f64, sharp: f64, prob: f64) {
        self.det.push(det);
        self.sharp.push(sharp);
        self.prob.push(prob);
    }
    fn extend(&mut self, bounds: impl IntoIterator<Item = (f64, f64, f64)>) {
        for (det, sharp, prob) in bounds {
            self.push(det, sharp, prob);
        }
    }
}

/// γ̃_D(λ) by depth D, computed once per depth and thread: runs have few distinct depths
/// (at most the height of the tree or of the scan plan), and exp_m1 is costly.
struct GammaTilde {
    lambda: f64,
}

thread_local! {
    /// (λ, γ̃_D(λ) for D = 0, 1, …; NaN where not computed yet).
    static GAMMA_TILDE: RefCell<(f64, Vec<f64>)> = const { RefCell::new((f64::NAN, Vec::new())) };
}

impl GammaTilde {
    fn new(lambda: f64) -> Self {
        GammaTilde { lambda }
    }
    /// The probabilistic bound of `x`: γ̃_D(λ)·Σ|t_i|, as [`APriori::prob`].
    fn prob<R: Roundoff>(&self, x: &APrioriIn<R>) -> f64 {
        let d = x.depth as usize;
        let g = GAMMA_TILDE.with_borrow_mut(|(lambda, table)| {
            if lambda.to_bits() != self.lambda.to_bits() {
                *lambda = self.lambda;
                table.clear();
            }
            if table.len() <= d {
                table.resize(d + 1, f64::NAN);
            }
            if table[d].is_nan() {
                table[d] = gamma_tilde(x.depth, self.lambda);
            }
            table[d]
        });
        mul_up(g, x.mag)
    }
    /// (deterministic, sharp, probabilistic) bounds of one sum.
    fn bounds<R: Roundoff>(&self, x: &APrioriIn<R>) -> (f64, f64, f64) {
        (x.err, x.sharp, self.prob(x))
    }
}

/// The a priori bounds (deterministic, sharp, probabilistic at `lambda`) of every node,
/// evaluated on the algorithm's own summation tree.
pub fn a_priori(tree: &Tree, w: &[f32], algo: Algorithm, op: Op, lambda: f64) -> APrioriBounds {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let gammas = GammaTilde::new(lambda);
    let mut out = APrioriBounds::with_capacity(tree.len());
    match algo {
        Algorithm::Sequential | Algorithm::Parallel | Algorithm::Contraction => {
            for x in &orders::tree_order::<APriori>(tree, w, algo, op) {
                let (det, sharp, prob) = gammas.bounds(x);
                out.push(det, sharp, prob);
            }
        }
        Algorithm::Vectorial | Algorithm::VectorialSeqscan | Algorithm::VectorialChained => {
            let reader = vectorial_reader::<F32Add>(tree, w, algo, op, gammas);
            out.extend(euler::read(tree, op, &reader));
        }
        Algorithm::VectorialCompensated => {
            let reader = vectorial_reader::<DwAdd>(tree, w, algo, op, gammas);
            out.extend(euler::read(tree, op, &reader));
        }
    }
    out
}

/// vectorial-compensated's a priori bounds on the float-float value each vertex reads,
/// before its final rounding to f32: |ŝ − s| ≤ (det, sharp) (prob = det). Where this is at
/// most half an ulp of s, the f32 result is within one ulp of s (≤ 1 lost bit).
pub fn compensated_float_float_bounds(tree: &Tree, w: &[f32], op: Op) -> APrioriBounds {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let gammas = GammaTilde::new(LAMBDA);
    let mut reader =
        vectorial_reader::<DwAdd>(tree, w, Algorithm::VectorialCompensated, op, gammas);
    reader.round_to_f32 = false;
    let mut out = APrioriBounds::with_capacity(tree.len());
    out.extend(euler::read(tree, op, &reader));
    out
}

/// The vectorial orders' a priori reader: the scan on `R`'s bound values, read per vertex.
fn vectorial_reader<R: Roundoff>(
    tree: &Tree,
    w: &[f32],
    algo: Algorithm,
    op: Op,
    gammas: GammaTilde,
) -> APrioriRead<R> {
    APrioriRead {
        scanned: Scanned::new(algo, euler::write(tree, w, op)),
        sub: match op {
            Op::Rootfix => Vec::new(),
            Op::Leaffix => subtree_magnitudes(tree, w),
        },
        gammas,
        round_to_f32: R::READ_ROUNDS_TO_F32,
    }
}

/// The vectorial read on a priori values: (deterministic, sharp, probabilistic) per vertex.
struct APrioriRead<R: Roundoff> {
    scanned: Scanned<APrioriIn<R>>,
    /// Σ|w| over every subtree (leaffix only).
    sub: Vec<f64>,
    gammas: GammaTilde,
    /// Whether the read rounds the float-float value to f32 ([`Roundoff::READ_ROUNDS_TO_F32`];
    /// false also for [`compensated_float_float_bounds`]).
    round_to_f32: bool,
}

impl<R: Roundoff> APrioriRead<R> {
    /// The bounds of a vertex read from one scanned value `x`. f32: the value itself.
    /// Float-float: rounded once to f32, (1 + u)·B + u·|s|; its probabilistic bound is the
    /// deterministic one (rigorous, so valid under any model). A single term (depth 0: no
    /// addition with a nonzero operand) is (w, 0), whose hi is exact.
    fn read_one(&self, x: &APrioriIn<R>) -> (f64, f64, f64) {
        if !R::READ_ROUNDS_TO_F32 {
            self.gammas.bounds(x)
        } else if self.round_to_f32 && x.depth > 0 {
            let det = round_to_f32(x.err, x.mag);
            (det, round_to_f32(x.sharp, x.abs_bound()), det)
        } else {
            (x.err, x.sharp, x.err)
        }
    }
}

impl<R: Roundoff> ScannedTour for APrioriRead<R> {
    type Out = (f64, f64, f64);
    fn prefix(&self, p: usize) -> Self::Out {
        self.read_one(&self.scanned.out(p))
    }
    fn difference(&self, v: usize, c: usize, before: Option<usize>) -> Self::Out {
        let close = self.scanned.out(c);
        let Some((o, before)) = before
            .map(|o| (o, self.scanned.out(o)))
            .filter(|(_, b)| b.mag != 0.0)
        else {
            // S[open − 1] is an exact zero: the subtraction is exact.
            return self.read_one(&close);
        };
        let sub_v = self.sub[v];
        // (1 + u)(B(S_close) + B(S_open−1)) + u·|l|, |l| ≤ Σ|w| over the subtree, u the unit
        // of R's subtraction; the sharp bound encloses l = S_close − S_open−1 itself and lets
        // the roundings both prefixes share cancel.
        let combine = |d: f64, l: f64| add_up(one_plus_unit_times::<R>(d), R::times(l));
        let l_lo = add_down(close.lo, -before.hi);
        let l_hi = add_up(close.hi, -before.lo);
        let l_abs = l_lo.abs().max(l_hi.abs()).min(sub_v);
        let det = combine(add_up(close.err, before.err), sub_v);
        let sharp = combine(self.scanned.diff_bound(c, o, &close, &before), l_abs);
        if R::READ_ROUNDS_TO_F32 {
            if !self.round_to_f32 {
                return (det, sharp, det);
            }
            // The float-float difference, then its one rounding to f32.
            let det = round_to_f32(det, sub_v);
            return (det, round_to_f32(sharp, l_abs), det);
        }
        let prob = combine(
            add_up(self.gammas.prob(&close), self.gammas.prob(&before)),
            sub_v,
        );
        (det, sharp, prob)
    }
}

/// A summation value whose error is bounded, and the bound of the rounding error of one
/// addition, for [`Scanned::diff_bound`].
trait Charged: ScanValue {
    /// The bound on this value's error (the sharp a priori bound, or the running bound).
    fn bound(&self) -> f64;
    /// A bound on |ε| for out = fl(a + b) = a + b + ε.
    fn step(a: &Self, b: &Self, out: &Self) -> f64;
}

impl<R: Roundoff> Charged for APrioriIn<R> {
    fn bound(&self) -> f64 {
        self.sharp
    }
    /// |ε| ≤ u·|â + b̂| ≤ u·(|a + b| + S_a + S_b); an exact-zero operand makes it exact.
    fn step(a: &Self, b: &Self, out: &Self) -> f64 {
        if a.mag == 0.0 || b.mag == 0.0 {
            0.0
        } else {
            R::times(add_up(out.abs_bound(), add_up(a.sharp, b.sharp)))
        }
    }
}

impl Charged for RunningDw {
    fn bound(&self) -> f64 {
        self.err
    }
    /// |ε| ≤ u_dw/(1 − u_dw)·|ẑ|, 0 when TwoSum proves the dw_add exact.
    fn step(a: &Self, b: &Self, out: &Self) -> f64 {
        RunningDw::local(a.value, b.value, out.value)
    }
}

impl Charged for Running {
    fn bound(&self) -> f64 {
        self.err
    }
    /// |ε| ≤ u·|ŝ|, 0 when TwoSum proves the addition exact.
    fn step(a: &Self, b: &Self, out: &Self) -> f64 {
        if f32_sum_is_exact(a.value, b.value, out.value) {
            0.0
        } else {
            times_u(out.value.abs() as f64)
        }
    }
}

/// A scanned Euler-tour vector, with what is needed to bound the difference of two of its
/// prefixes.
///
/// Every computed partial sum equals its exact value plus the sum of the local rounding
/// errors ε_k of the additions of its own summation tree (addition is linear). So
/// Ŝ_c − Ŝ_o − (S_c − S_o) is the sum of the ε_k of the additions in one tree but not in the
/// other: the roundings both prefixes share cancel exactly. docs/design.md §9.1's
/// (1 + u)(B(S_c) + B(S_o)) charges them twice; [`Scanned::diff_bound`] does not, where the
/// plan makes the sharing evident:
/// - vectorial-seqscan: Ŝ_c is computed from Ŝ_o itself, so only the additions o+1..=c count;
/// - vectorial, both positions in the same tile k ≥ 1: both are `block_prefix[k − 1] + local`
///   with the same block prefix, whose error cancels; what remains is the two tile-local
///   errors and the two uniform-add roundings. (Sharing inside a tile — the Kogge–Stone prefix
///   of a common thread — is not exploited.)
/// - vectorial-chained, positions in tiles k_o < k_c: the block prefix P_{k_c − 1} is computed
///   from P_{k_o − 1} by the chain, so only the chain's charges for tiles k_o..k_c − 1 (each
///   tile total's bound and its chain rounding) remain, with the two tile-local errors and
///   the uniform-add roundings; the same tile is the case above.
struct Scanned<T> {
    /// Tiled plan: each position's tile-local value (stages 1 and 2 done) and each tile's
    /// inclusive block total; the outputs (stage 3) are formed when read, [`Scanned::out`].
    /// Sequential scan: the outputs.
    scanned: Vec<T>,
    block: Vec<T>,
    /// Sequential scan: prefix sums of the rounding bounds, rounded up and down. Chained
    /// plan: prefix sums of the chain's charges per tile. Kogge–Stone plan: empty.
    steps_up: Vec<f64>,
    steps_down: Vec<f64>,
    tiled: bool,
}

impl<T: Charged> Scanned<T> {
    fn new(algo: Algorithm, e: Vec<T>) -> Scanned<T> {
        match algo {
            Algorithm::Vectorial | Algorithm::VectorialCompensated => {
                let mut local = e;
                let block = scan_plan::scan_tiles(&mut local);
                Scanned {
                    scanned: local,
                    block,
                    steps_up: Vec::new(),
                    steps_down: Vec::new(),
                    tiled: true,
                }
            }
            Algorithm::VectorialChained => {
                // The chained plan's stages, spelled out to keep the tile totals T_k: the
                // error of P_k is Σ_{j ≤ k} (err T_j + ε_j), ε_j the rounding of
                // P_j = P_{j−1} + T_j; prefix sums of those charges, up and down.
                let mut local = e;
                let totals: Vec<T> = local
                    .chunks_mut(scan_plan::TILE)
                    .map(scan_plan::scan_tile)
                    .collect();
                let mut block = totals.clone();
                if block.len() > 1 {
                    scan_plan::sequential_scan(&mut block);
                } else {
                    block.clear();
                }
                let (up, down) = prefix_charges((0..block.len()).map(|k| match k {
                    0 => totals[0].bound(),
                    _ => add_up(
                        totals[k].bound(),
                        T::step(&block[k - 1], &totals[k], &block[k]),
                    ),
                }));
                Scanned {
                    scanned: local,
                    block,
                    steps_up: up,
                    steps_down: down,
                    tiled: true,
                }
            }
            Algorithm::VectorialSeqscan => {
                let mut out = e.clone();
                scan_plan::sequential_scan(&mut out);
                // Position 0 is E[0] itself: no addition.
                let (up, down) = prefix_charges((0..e.len()).map(|k| match k {
                    0 => 0.0,
                    _ => T::step(&out[k - 1], &e[k], &out[k]),
                }));
                Scanned {
                    scanned: out,
                    block: Vec::new(),
                    steps_up: up,
                    steps_down: down,
                    tiled: false,
                }
            }
            _ => unreachable!("only the vectorial algorithms scan"),
        }
    }

    /// The scan's output at position p: exactly the plan's (a test checks).
    #[inline]
    fn out(&self, p: usize) -> T {
        if self.tiled {
            scan_plan::uniform_add_at(&self.block, p, self.scanned[p])
        } else {
            self.scanned[p]
        }
    }

    /// A bound on |(Ŝ_c − Ŝ_o) − (S_c − S_o)| for positions o < c, given Ŝ_c = `out_c` and
    /// Ŝ_o = `out_o`.
    fn diff_bound(&self, c: usize, o: usize, out_c: &T, out_o: &T) -> f64 {
        debug_assert!(o < c);
        let full = add_up(out_c.bound(), out_o.bound());
        let shared = if self.tiled {
            let (tile_c, tile_o) = (c / scan_plan::TILE, o / scan_plan::TILE);
            if tile_c == 0 {
                return full;
            }
            let (local_c, local_o) = (&self.scanned[c], &self.scanned[o]);
            let locals = add_up(local_c.bound(), local_o.bound());
            let step_c = T::step(&self.block[tile_c - 1], local_c, out_c);
            let step_o = match tile_o {
                0 => 0.0,
                _ => T::step(&self.block[tile_o - 1], local_o, out_o),
            };
            if tile_o == tile_c {
                // The same block prefix: its error cancels.
                add_up(locals, add_up(step_c, step_o))
            } else if self.steps_up.is_empty() {
                // Kogge–Stone block prefixes: rounded along different paths.
                return full;
            } else {
                // Chained: P_{tile_c − 1} extends P_{tile_o − 1}; only the chain's charges
                // of tiles tile_o..tile_c − 1 differ.
                let chain = match tile_o {
                    0 => self.steps_up[tile_c - 1],
                    _ => add_up(self.steps_up[tile_c - 1], -self.steps_down[tile_o - 1]),
                };
                add_up(chain, add_up(locals, add_up(step_c, step_o)))
            }
        } else {
            // Σ_{o < k ≤ c} step_k ≤ up[c] − down[o], rounded up.
            add_up(self.steps_up[c], -self.steps_down[o])
        };
        full.min(shared)
    }
}

/// Prefix sums of rounding charges, rounded up and down: Σ_{j ≤ k} charge_j enclosed, so
/// that a range's Σ_{o < j ≤ c} is at most up[c] − down[o] rounded up.
fn prefix_charges(charges: impl Iterator<Item = f64>) -> (Vec<f64>, Vec<f64>) {
    let (mut up, mut down) = (Vec::new(), Vec::new());
    let (mut u, mut d) = (0.0, 0.0);
    for charge in charges {
        u = add_up(u, charge);
        d = add_down(d, charge);
        up.push(u);
        down.push(d);
    }
    (up, down)
}

/// The twin's f32 results replayed addition by addition, with their running error bounds.
pub fn running(tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> (Vec<f32>, Vec<f64>) {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    match algo {
        Algorithm::Sequential | Algorithm::Parallel | Algorithm::Contraction => {
            orders::tree_order::<Running>(tree, w, algo, op)
                .into_iter()
                .map(|x| (x.value, x.err))
                .unzip()
        }
        Algorithm::Vectorial | Algorithm::VectorialSeqscan | Algorithm::VectorialChained => {
            let scanned = Scanned::new(algo, euler::write::<Running>(tree, w, op));
            euler::read(tree, op, &scanned).into_iter().unzip()
        }
        Algorithm::VectorialCompensated => {
            let scanned = Scanned::new(algo, euler::write::<RunningDw>(tree, w, op));
            euler::read(tree, op, &scanned).into_iter().unzip()
        }
    }
}

/// What taking hi of a normalized float-float value costs: exactly |lo| (∞ after an
/// overflow, where lo is NaN).
#[inline]
fn lo_charge(lo: f32) -> f64 {
    if lo.is_nan() {
        f64::INFINITY
    } else {
        lo.abs() as f64
    }
}

/// The compensated read on running values: (f32 result as the twin computes it, bound).
/// Taking hi of a normalized float-float ŝ errs by exactly |lo| (hi + lo = ŝ), so the final
/// rounding is charged |lo| — 0 when it is exact.
impl ScannedTour for Scanned<RunningDw> {
    type Out = (f32, f64);
    fn prefix(&self, p: usize) -> Self::Out {
        let x = self.out(p);
        (x.value.hi, add_up_nonneg(x.err, lo_charge(x.value.lo)))
    }
    fn difference(&self, _v: usize, c: usize, before: Option<usize>) -> Self::Out {
        let close = self.out(c);
        let Some(o) = before else {
            return (
                close.value.hi,
                add_up_nonneg(close.err, lo_charge(close.value.lo)),
            );
        };
        let before = self.out(o);
        // As the twin: dw_add(S_close, −S_open−1), then hi.
        let minus = -before.value;
        let d = dw_add(close.value, minus);
        // The shared roundings of both prefixes cancel (Scanned).
        let err = add_up_nonneg(
            self.diff_bound(c, o, &close, &before),
            RunningDw::local(close.value, minus, d),
        );
        (d.hi, add_up_nonneg(err, lo_charge(d.lo)))
    }
}

/// The vectorial read on running values: (f32 value as the twin computes it, bound).
impl ScannedTour for Scanned<Running> {
    type Out = (f32, f64);
    fn prefix(&self, p: usize) -> Self::Out {
        let x = self.out(p);
        (x.value, x.err)
    }
    fn difference(&self, _v: usize, c: usize, before: Option<usize>) -> Self::Out {
        let close = self.out(c);
        let Some(o) = before else {
            // As the twin: S[close] − S[−1] with S[−1] = 0, an exact subtraction.
            return (close.value - 0.0, close.err);
        };
        let before = self.out(o);
        let s = close.value - before.value;
        // The shared roundings of both prefixes cancel (Scanned).
        let d = self.diff_bound(c, o, &close, &before);
        let local = if f32_sum_is_exact(close.value, -before.value, s) {
            0.0
        } else {
            times_u(s.abs() as f64)
        };
        (s, add_up(d, local))
    }
}

/// All three bounds of every node. `values` are the evaluated results (CPU twin or GPU): the
/// running bound applies where they equal the replay bit for bit, and is +∞ elsewhere.
pub fn node_bounds(tree: &Tree, w: &[f32], algo: Algorithm, op: Op, values: &[f32]) -> NodeBounds {
    let APrioriBounds { det, sharp, prob } = a_priori(tree, w, algo, op, LAMBDA);
    let (replay, mut running) = running(tree, w, algo, op);
    let mut replay_mismatches = 0;
    let mut overflowed = Vec::new();
    for (v, r) in running.iter_mut().enumerate() {
        let (a, b) = (replay[v], values[v]);
        if a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()) {
            *r = f64::INFINITY;
            replay_mismatches += 1;
        }
        if !a.is_finite() {
            overflowed.push(v as u32);
        }
    }
    NodeBounds {
        det,
        sharp,
        prob,
        running,
        replay_mismatches,
        overflowed,
    }
}

/// Σ|w| over every subtree, rounded upward (≥ |leaffix(v)|): the sequential leaffix order
/// on `UpMagnitude` values.
pub fn subtree_magnitudes(tree: &Tree, w: &[f32]) -> Vec<f64> {
    orders::tree::leaffix_sequential::<UpMagnitude>(tree, w)
        .into_iter()
        .map(|m| m.0)
        .collect()
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

/// `lost_bits(bound / |x|)`: the most bits the bound allows node v to lose (None if x = 0).
pub fn bound_lost_bits(bound: f64, x: f64) -> Option<f64> {
    (x != 0.0).then(|| lost_bits(bound / x.abs()))
}

/// Extra lost bits of `a` over `b` at a node with exact value x: log2(a / b), where both are
/// first raised to u·|x| (the error of a correctly rounded result — below it a result loses
/// no bits). Equals `lost_bits(a/|x|) − lost_bits(b/|x|)`; None when x = 0. Used for both the
/// predicted (a, b = bounds) and the measured (a, b = errors) extra bits of vectorial over
/// parallel.
pub fn extra_bits(a: f64, b: f64, x: f64) -> Option<f64> {
    (x != 0.0).then(|| lost_bits(a / x.abs()) - lost_bits(b / x.abs()))
}

/// A node whose error exceeds a rigorous bound: always a bug.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    pub vertex: usize,
    /// "a priori" or "running".
    pub bound_kind: String,
    pub computed: f32,
    pub reference: f64,
    pub abs_error: f64,
    pub bound: f64,
}

/// How the measured errors of one (tree, algorithm, op) compare with their bounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundSummary {
    /// Nodes whose error exceeds the a priori deterministic bound (a bug if > 0).
    pub bound_violations: usize,
    /// Nodes whose error exceeds the sharp a priori bound (a bug if > 0).
    pub sharp_violations: usize,
    /// Nodes whose error exceeds the running error bound (a bug if > 0).
    pub running_violations: usize,
    /// Nodes whose error exceeds the probabilistic bound (allowed, with small probability).
    pub prob_violations: usize,
    /// Median over all nodes of |error| / deterministic bound (0 where the error is 0).
    pub median_tightness: f64,
    pub max_tightness: f64,
    /// Largest `lost_bits(bound / |x|)` over nodes with x ≠ 0.
    pub max_bound_lost_bits: f64,
    /// The same for the sharp a priori bound.
    pub max_sharp_lost_bits: f64,
    /// Median and max of |error| / sharp bound.
    pub median_sharp_tightness: f64,
    pub max_sharp_tightness: f64,
    /// The first violating nodes (at most [`MAX_REPORTED`]).
    pub violations: Vec<Violation>,
    /// Nodes left out of the bound checks because f32 overflowed there: their exact value
    /// lies beyond f32's range, or a partial sum of the algorithm's order did
    /// ([`NodeBounds::overflowed`]). The bounds assume no overflow; neither is a bug.
    pub overflow: Overflow,
}

/// Nodes where f32 overflows, by reason.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overflow {
    /// The exact value lies beyond f32's range: its correct rounding is ±∞.
    pub beyond_range: usize,
    /// The exact value is within range, but a partial sum of the order overflowed.
    pub partial_sum: usize,
}

impl Overflow {
    pub fn total(&self) -> usize {
        self.beyond_range + self.partial_sum
    }

    /// "2 node(s) overflow f32 (1 exact value beyond f32's range, 1 partial sum of the
    /// order)", or None.
    pub fn describe(&self) -> Option<String> {
        if self.total() == 0 {
            return None;
        }
        let mut why = Vec::new();
        if self.beyond_range > 0 {
            why.push(format!(
                "{} exact value(s) beyond f32's range",
                self.beyond_range
            ));
        }
        if self.partial_sum > 0 {
            why.push(format!(
                "{} with a partial sum of the order beyond it",
                self.partial_sum
            ));
        }
        Some(format!(
            "{} node(s) overflow f32 ({}): left out of the bound checks, which assume no overflow",
            self.total(),
            why.join(", ")
        ))
    }
}

/// Violations kept per outcome for the report.
pub const MAX_REPORTED: usize = 20;

/// Whether the exact error of `computed` at node v exceeds `bound`. The f64 error `abs` is
/// the exact error rounded to nearest, which is monotone: abs < bound ⇒ exact ≤ bound and
/// abs > bound ⇒ exact > bound; only abs = bound needs the exact comparison.
fn exceeds(
    reference: &Reference,
    v: usize,
    computed: f32,
    abs: f64,
    bound: f64,
    scratch: &mut Float,
) -> bool {
    if abs != bound {
        return abs > bound;
    }
    match reference {
        Reference::Exact { values, .. } => {
            (ExactSum::from_f32(computed) - values.get(v))
                .abs()
                .assign_to(scratch);
            *scratch > bound
        }
        Reference::Dd { .. } => false,
    }
}

/// Compares every node's error with its bounds.
pub fn summarize(
    reference: &Reference,
    values: &[f32],
    errors: &[NodeError],
    bounds: &NodeBounds,
    scratch: &mut Float,
) -> BoundSummary {
    let mut out = BoundSummary {
        bound_violations: 0,
        sharp_violations: 0,
        running_violations: 0,
        prob_violations: 0,
        median_tightness: 0.0,
        max_tightness: 0.0,
        max_bound_lost_bits: 0.0,
        max_sharp_lost_bits: 0.0,
        median_sharp_tightness: 0.0,
        max_sharp_tightness: 0.0,
        violations: Vec::new(),
        overflow: Overflow::default(),
    };
    let mut overflowed = bounds.overflowed.iter().copied().peekable();
    let mut tight = Vec::with_capacity(values.len());
    let mut sharp_tight = Vec::with_capacity(values.len());
    // bound / |x| over the nodes with x ≠ 0.
    let mut det_ratio = Vec::with_capacity(values.len());
    let mut sharp_ratio = Vec::with_capacity(values.len());
    for (v, e) in errors.iter().enumerate() {
        let x = reference.value_f64(v);
        let in_order = overflowed.next_if_eq(&(v as u32)).is_some();
        if reference.beyond_f32(v) {
            out.overflow.beyond_range += 1;
            continue;
        }
        if in_order {
            out.overflow.partial_sum += 1;
            continue;
        }
        for (kind, bound) in [
            ("a priori", bounds.det[v]),
            ("sharp a priori", bounds.sharp[v]),
            ("running", bounds.running[v]),
        ] {
            if exceeds(reference, v, values[v], e.abs, bound, scratch) {
                match kind {
                    "a priori" => out.bound_violations += 1,
                    "sharp a priori" => out.sharp_violations += 1,
                    _ => out.running_violations += 1,
                }
                if out.violations.len() < MAX_REPORTED {
                    out.violations.push(Violation {
                        vertex: v,
                        bound_kind: kind.into(),
                        computed: values[v],
                        reference: x,
                        abs_error: e.abs,
                        bound,
                    });
                }
            }
        }
        if e.abs > bounds.prob[v] {
            out.prob_violations += 1;
        }
        tight.push(tightness(e.abs, bounds.det[v]));
        sharp_tight.push(tightness(e.abs, bounds.sharp[v]));
        if x != 0.0 {
            det_ratio.push(bounds.det[v] / x.abs());
            sharp_ratio.push(bounds.sharp[v] / x.abs());
        }
    }
    // = the largest bound_lost_bits(bound, x).
    out.max_bound_lost_bits = max_lost_bits(&det_ratio);
    out.max_sharp_lost_bits = max_lost_bits(&sharp_ratio);
    (out.median_tightness, out.max_tightness) = median_max(&mut tight);
    (out.median_sharp_tightness, out.max_sharp_tightness) = median_max(&mut sharp_tight);
    out
}

/// The largest `lost_bits(r)` over `ratios` (0 if none), with log2 evaluated only near the
/// largest ratio: lost_bits is monotone, and libm's log2 (error below 1 ulp) cannot reorder
/// ratios a relative 2^-30 apart — their logarithms differ by ≥ 2^-30/ln 2, thousands of ulps.
fn max_lost_bits(ratios: &[f64]) -> f64 {
    let top = ratios.iter().copied().fold(0.0, f64::max);
    let near = top * (1.0 - 1.0 / (1u64 << 30) as f64);
    ratios
        .iter()
        .filter(|&&r| r >= near)
        .map(|&r| lost_bits(r))
        .fold(0.0, f64::max)
}

/// (median, max); the median of an even count is the lower middle element (of the order
/// `total_cmp`; a selection, which gives the same elements as sorting).
fn median_max(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mid = (v.len() - 1) / 2;
    let (_, &mut median, above) = v.select_nth_unstable_by(mid, f64::total_cmp);
    let max = above
        .iter()
        .copied()
        .fold(median, |m, x| if x.total_cmp(&m).is_gt() { x } else { m });
    (median, max)
}

/// |error| / bound; 0 when the error is 0 (also when the bound is 0), ∞ for an error above a
/// zero bound.
pub fn tightness(abs_error: f64, bound: f64) -> f64 {
    if abs_error == 0.0 {
        0.0
    } else {
        abs_error / bound
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::ReferenceKind;
    use generators::{ChildOrder, NO_PARENT};
    use rug::Assign;
    use rug::ops::Pow;

    fn chain(n: usize) -> Tree {
        let parents = (0..n)
            .map(|v| if v == 0 { NO_PARENT } else { v as u32 - 1 })
            .collect();
        Tree::from_parents(parents, ChildOrder::Natural).unwrap()
    }

    /// `add_up` returns the exact sum rounded upward: never below it, at most one ulp above
    /// the nearest sum, and exactly the sum when it is representable.
    #[test]
    fn add_up_rounds_upward() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..100_000 {
            let a = f64::from_bits(next() >> 2) % 1e30;
            let b = (next() >> 11) as f64 * 2f64.powi((next() % 200) as i32 - 100);
            let s = add_up(a, b);
            let mut exact = Float::with_val(2200, a);
            exact += b;
            assert!(Float::with_val(2200, s) >= exact, "{a} + {b}");
            assert!(s <= next_up(a + b));
            let mut diff = Float::with_val(2200, s);
            diff -= &exact;
            if diff.is_zero() {
                continue;
            }
            // Not exact: s is the smallest f64 above the exact sum.
            let below = f64::from_bits(s.to_bits() - 1);
            assert!(Float::with_val(2200, below) < exact, "{a} + {b}");
        }
        assert_eq!(add_up(1.0, 2.0), 3.0);
        assert_eq!(add_up(0.0, 0.0), 0.0);
        // add_down is its mirror image, for any signs.
        for (a, b) in [(1.0, 1e-30), (-1.0, 1e-30), (1e10, -3e-7), (-2.5, -1e-20)] {
            let (lo, hi) = (add_down(a, b), add_up(a, b));
            let mut exact = Float::with_val(2200, a);
            exact += b;
            assert!(Float::with_val(2200, lo) <= exact && exact <= Float::with_val(2200, hi));
            assert!(lo < hi && next_up(lo) == hi, "{a} + {b}");
        }
    }

    #[test]
    fn gammas() {
        assert_eq!(gamma(0), 0.0);
        let g = gamma(1000);
        let exact = 1000.0 * U / (1.0 - 1000.0 * U);
        assert!(g >= exact && g <= exact * (1.0 + 4.0 * f64::EPSILON));
        assert_eq!(gamma(1 << 24), f64::INFINITY);
        // γ̃ grows like λ√k·u and is below γ_k for large k.
        let gt = gamma_tilde(10_000, LAMBDA);
        let x = LAMBDA * 100.0 * U + 10_000.0 * U * U / (1.0 - U);
        // x ≤ e^x − 1 ≤ x(1 + x) for 0 ≤ x ≤ 1.
        assert!(gt >= x && gt <= x * (1.0 + x), "{gt} {x}");
        assert!(gt < gamma(10_000));
        assert!(failure_probability(2f64.powi(49), LAMBDA) < 1e-6);
    }

    /// On a chain, the term at depth j reaches the node at depth d through d − j + 1 additions
    /// (the root's through d): the recursion must equal Σ((1+u)^{d_i} − 1)|t_i| up to the f64
    /// roundings of its evaluation — at most 3 upward-rounded operations per addition, each
    /// off by ≤ 2 ulp, so a relative 6·(d + 1)·2^-52 — and never be below it.
    #[test]
    fn recursion_unrolls_to_the_closed_form() {
        let n = 3000;
        let t = chain(n);
        // No zero weight: adding an exact zero is exact and the recursion rightly skips it.
        let w: Vec<f32> = (0..n)
            .map(|i| ((i * 37 % 101) as f32 - 50.5) / 7.0)
            .collect();
        let det = a_priori(&t, &w, Algorithm::Sequential, Op::Rootfix, LAMBDA).det;
        for v in [1usize, 2, 10, 999, n - 1] {
            let mut exact = Float::with_val(2000, 0);
            let one_plus_u = Float::with_val(2000, 1.0 + U);
            for (j, wj) in w.iter().enumerate().take(v + 1) {
                let d = if j == 0 { v } else { v - j + 1 };
                let mut f = one_plus_u.clone().pow(d as u32);
                f -= 1;
                f *= wj.abs();
                exact += f;
            }
            let tol = 6.0 * (v as f64 + 1.0) * f64::EPSILON;
            assert!(
                Float::with_val(2000, det[v]) >= exact,
                "v={v} {} {}",
                det[v],
                exact.to_f64()
            );
            assert!(
                det[v] <= exact.to_f64() * (1.0 + tol),
                "v={v} {} {}",
                det[v],
                exact.to_f64()
            );
        }
        // And never above the docs/design.md §9.1 closed form γ_depth·Σ_path|w|.
        let mags = orders::tree::rootfix_sequential::<APriori>(&t, &w);
        for v in 0..n {
            let closed = mul_up(gamma(v as u64), mags[v].mag);
            assert!(det[v] <= closed * (1.0 + 4.0 * f64::EPSILON), "v={v}");
        }
    }

    /// Integer weights make every partial sum exact; the running bound then knows it (0),
    /// while the a priori bound cannot.
    #[test]
    fn running_bound_sees_exact_sums() {
        let t = chain(100);
        let w: Vec<f32> = (0..100).map(|i| (i % 7) as f32 - 3.0).collect();
        for algo in Algorithm::ALL {
            for op in Op::ALL {
                let (_, err) = running(&t, &w, algo, op);
                assert!(err.iter().all(|&e| e == 0.0), "{algo} {op}");
            }
        }
    }

    /// The scan plan's padding and leaffix's E[close] = 0 are exact and cost nothing: a
    /// single vertex has bound 0 for every algorithm.
    #[test]
    fn zeros_are_free() {
        let t = chain(1);
        for algo in Algorithm::ALL {
            for op in Op::ALL {
                let b = a_priori(&t, &[0.1], algo, op, LAMBDA);
                assert_eq!(
                    (b.det[0], b.sharp[0], b.prob[0]),
                    (0.0, 0.0, 0.0),
                    "{algo} {op}"
                );
            }
        }
    }

    /// Every bound holds against the exact reference on a small adversarial case:
    /// huge cancelling weights beside tiny ones.
    #[test]
    fn bounds_hold_on_cancellation() {
        let n = 2000;
        let t = chain(n);
        let w: Vec<f32> = (0..n)
            .map(|i| match i % 3 {
                0 => 1e20,
                1 => 3.7e-3 * (i as f32),
                _ => -1e20,
            })
            .collect();
        let mut scratch = Float::new(320);
        for op in Op::ALL {
            let r = Reference::compute(ReferenceKind::Exact, &t, &w, op);
            for algo in Algorithm::ALL {
                let (values, _) = running(&t, &w, algo, op);
                let errors: Vec<NodeError> = values
                    .iter()
                    .enumerate()
                    .map(|(v, &x)| r.error(v, x, &mut scratch))
                    .collect();
                let b = node_bounds(&t, &w, algo, op, &values);
                let s = summarize(&r, &values, &errors, &b, &mut scratch);
                assert_eq!(
                    (s.bound_violations, s.sharp_violations, s.running_violations),
                    (0, 0, 0),
                    "{algo} {op}: {:?}",
                    s.violations
                );
                assert!(s.max_tightness <= 1.0);
            }
        }
    }

    /// `Scanned` keeps the parts of the plan's top level; its outputs must be the plan's.
    #[test]
    fn scanned_parts_are_the_plan() {
        for len in [1usize, 5, 1024, 1025, 3000, 2 * 1024 * 1024 + 7] {
            let e: Vec<f32> = (0..len)
                .map(|i| ((i * 7919 % 1013) as f32 - 506.3) * 1.7f32.powi((i % 23) as i32 - 11))
                .collect();
            let a: Vec<APriori> = e.iter().map(|&x| APriori::term(x)).collect();
            let mut expected = a.clone();
            scan_plan::inclusive_scan(&mut expected);
            let s = Scanned::new(Algorithm::Vectorial, a);
            let got: Vec<APriori> = (0..len).map(|p| s.out(p)).collect();
            assert_eq!(got, expected, "{len}");
            let r: Vec<Running> = e.iter().map(|&x| Running::term(x)).collect();
            let mut expected = r.clone();
            scan_plan::inclusive_scan(&mut expected);
            let s = Scanned::new(Algorithm::Vectorial, r);
            let got: Vec<Running> = (0..len).map(|p| s.out(p)).collect();
            assert!(
                got.iter()
                    .zip(&expected)
                    .all(|(g, x)| g.value.to_bits() == x.value.to_bits() && g.err == x.err),
                "{len}"
            );
        }
    }

    #[test]
    fn exact_comparison_at_equality() {
        let t = chain(2);
        let w = [1.0f32, 2f32.powi(-24)];
        let r = Reference::compute(ReferenceKind::Exact, &t, &w, Op::Rootfix);
        let mut s = Float::new(320);
        // 1 + 2^-24 rounds (ties to even) to 1: error exactly 2^-24.
        let e = r.error(1, 1.0, &mut s);
        assert_eq!(e.abs, 2f64.powi(-24));
        assert!(!exceeds(&r, 1, 1.0, e.abs, e.abs, &mut s));
        assert!(exceeds(&r, 1, 1.0, e.abs, e.abs * 0.5, &mut s));
        s.assign(0);
    }
}
