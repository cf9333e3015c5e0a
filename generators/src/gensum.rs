//! Ogita–Rump–Oishi ill-conditioned dot products and sums (SIAM J. Sci. Comput. 26(6), 2005,
//! Alg. 6.1), in f32, with a running exact accumulator (docs/design.md §7), refined so that the
//! achieved condition number κ = Σ|z| / |Σz| hits the target.
//!
//! # The published generator and why it misses
//!
//! GenDot(m, c) (b = log2 c, m2 = round(m/2)) draws the first half as random-sign products
//! `x_i·y_i = (2r−1)(2r'−1)·4^e_i`, `e_i = round(rand·b/2)` (one forced to 2^(b+2)), then
//! cancels their exact sum `D` step by step, `y_i = fl(((2r−1)·2^ê_i − D_{i−1}) / x_i)` with
//! `ê_i` falling linearly from b/2 to 0, so that `D` ends as a random number in (−1, 1).
//! GenSum splits every product with TwoProduct. The target only sets the magnitudes; neither
//! sum is controlled:
//!
//! * `Σ|z| ≈ 2^b·(2 + n/(6b + 12))`: the forced top product and the step cancelling it, plus
//!   m2/(b/2+1) products per exponent bin, the top bins dominating (plus the phase-2 terms,
//!   ≈ n·2^(b/2), comparable for small c): it grows linearly with n;
//! * `|Σz| = |U(−1, 1)|`, heavy-tailed (10 % of draws below 0.1, 1 % below 0.01);
//! * so κ ≈ c·(2 + n/(6b + 12))/|U|: the overshoot grows with n (measured median +0.7 decades at
//!   n = 100, +1 at 10³, +2 at 10⁴, +3 at 10⁵), single draws scatter over several decades,
//!   and small targets are out of reach: every term is ≳ 1 while `|Σz| < 1`, so at c = 10
//!   the median κ is ≈ n. AccurateArithmetic.jl wraps it in a retry loop.
//!
//! # What this module does
//!
//! The same two phases, magnitudes and TwoProduct split, but both sums are steered, in O(n),
//! with an exact running sum `D` (MPFR at 320 bits, which holds any sum of f32 exactly) and a
//! running `A = Σ|z|` in f64 (all terms positive, relative error ≤ n·2^-53):
//!
//! 1. **Sign balance from the cancellation budget.** A sum with κ = c has exactly the share
//!    `(1 − 1/c)/2` of its mass with the sign opposite to the sum. Phase 2 is planned to add
//!    random-sign fluctuations of mass `α·A₁`, `α = (1 − 1/c)/2` (`fluct_budget`), and the
//!    phase-1 product signs are `+` with probability `(1 + ρ)/2`, `ρ = min(1, (1 + α)/c)`, so
//!    that in expectation the two phases spend exactly the budget and `D₁ ≈ A/c`. A drawn
//!    minus sign is dropped if it would push phase 1's minority share above `(1 − ρ)/2`, so
//!    `D₁ ≥ ρ·A₁` always (for c near 1 one unlucky large negative term would otherwise
//!    overdraw the budget). For large c, ρ ≈ 0: random signs, as published; for c below the
//!    random-walk floor the sign balance sets `|Σz|`, so `Σ|z|/|Σz|` is designed, not a
//!    √n accident.
//! 2. **Target residual.** From the exact `A₁`, `D₁` and the planned fluctuation mass, solve
//!    `A/|T̂| = c` for the residual `T̂` (`solve_residual`).
//! 3. **Exponent schedule.** Phase 2 steers `D` through targets `T_i = T̂ + (2r−1)·2^ê_i`
//!    (published: `T̂ = 0`) with the published step `y_i = fl((T_i − D_{i−1}) / x_i)`;
//!    integer `ê_i` fall linearly from the geometric mean of the largest phase-1 product and
//!    `|T̂|` (the published b/2) to below `|T̂|/2` (published: 0), capped at `1.5·α·A₁/K` so
//!    the fluctuations' mass stays ≈ α·A₁ at any n. `D` tracks each target to 2^-24 of the
//!    step, so it ends within `T̂ ± 0.71·|T̂|`. `x_i = (2r−1)·2^⌊e/2⌋` for a step of size 2^e
//!    (both factors stay inside f32 even when a step cannot follow the schedule).
//! 4. **Final correction.** The last product sets the exact sum: with the exact `A'`, `D'`
//!    accumulated so far it solves `A' + |T − D'| = c·|T|` (cancel further when
//!    `A'/|D'| ≤ c`, grow otherwise) and takes `y = fl((T − D')/x)`. The only error left is
//!    that rounding, ≤ 2^-24·|T − D'| ≲ 2^-23·|T|, so κ = c·(1 ± 2^-22) whenever phase 2 has
//!    the ≈ (log2 c + 3)/22 steps it needs; phase 1 is shortened for tiny n to leave them
//!    (n ≥ 16 at c = 1e30). Below that the target is out of reach of n f32 values and the
//!    result falls short of it (n = 2 is one product: κ ≈ 1).
//!
//! Odd n: the extra value is one more phase-1 term (a plain f32); for n = 3 it is the final
//! correction. c = 1 (or within 2^-20 of it): every value positive, with a sign-consistent
//! TwoProduct (y lowered by ulps until q ≥ 0), so κ = 1 exactly. Targets above [`COND_MAX`]
//! are refused ([`GenError::OutOfReach`]). Every draw comes from the ChaCha20 stream and all arithmetic is IEEE f64 or
//! exact MPFR (log2 is a series in + − × ÷, not libm), so the bytes are portable. Finally the
//! values are scaled by a power of two (exact, κ-invariant) so the largest is 2^(b+2), the
//! published top, but at most 2^60, and the smallest at least 2^-110; given a random global
//! sign; checked (all normal or zero and finite, exact sum ≠ 0; a failure, which needs
//! astronomically unlucky draws and was never observed, redraws) and shuffled. Factors
//! `2r − 1` below 2^-24 in magnitude are redrawn, which keeps the TwoProduct tails far from
//! the subnormal range.

mod drawn;
mod published;

use crate::Rng;
use drawn::Drawn;
pub use published::gensum_published;
use rand::RngExt as _;
use rand::seq::SliceRandom;
use rug::{Assign, Float};

/// Why a generation request cannot be served.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GenError {
    #[error("condition number {0} is not a finite number ≥ 1")]
    BadCondition(f64),
    #[error("condition number {0:e} is beyond what f32 values can reach (at most 2^128 ≈ 3.4e38)")]
    OutOfReach(f64),
    #[error("cannot generate a sum of {0} values (need at least 2)")]
    TooFew(usize),
    /// Every draw failed its validity check (each fails with probability < 2^-40).
    #[error("no valid draw in {attempts} attempts for κ = {cond:e}, n = {n}")]
    NoValidDraw { n: usize, cond: f64, attempts: u32 },
    /// Rounded to a narrower format, the weights miss the target by more than a factor of 10.
    #[error(
        "{format} weights reach κ = {achieved:.1e}, not the {cond:.0e} asked for (n = {n}): its {p} bits and the range that keeps every sum of them finite do not hold such a sum"
    )]
    FormatOutOfReach {
        format: crate::Precision,
        p: u32,
        n: usize,
        cond: f64,
        achieved: f64,
    },
}

/// Largest condition number generated: f32 spans 2^-126..2^128, and the values must span
/// about log2(c) + 60 binades. Larger targets are refused ([`GenError::OutOfReach`]).
pub const COND_MAX: f64 = 340_282_366_920_938_463_463_374_607_431_768_211_456.0; // 2^128

/// Factors `2r − 1` smaller than this are redrawn (probability 2^-24 each), which keeps the
/// smallest TwoProduct tails far from the subnormal range.
const MIN_FACTOR: f64 = 1.0 / 16_777_216.0;

/// Targets within this of 1 get the all-positive generator (κ = 1 exactly).
const ONE_TOL: f64 = 1.0 / 1_048_576.0;

/// Redraws allowed when a draw fails its validity check (never seen in practice).
const MAX_ATTEMPTS: u32 = 16;

/// What [`gensum_with_info`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenSumInfo {
    /// The target used.
    pub cond: f64,
    /// Draws made (1 unless a validity check failed).
    pub attempts: u32,
    /// Phase-1 sign balance ρ: products are positive with probability (1 + ρ)/2.
    pub bias: f64,
    /// κ from the generator's own accumulators (exact sum; Σ|z| in f64).
    pub design_cond: f64,
}

/// `n` f32 values (all normal or zero) whose exact sum has condition number close to `cond`.
pub fn gensum(n: usize, cond: f64, rng: &mut Rng) -> Result<Vec<f32>, GenError> {
    gensum_with_info(n, cond, rng).map(|(z, _)| z)
}

/// [`gensum`], with diagnostics.
pub fn gensum_with_info(
    n: usize,
    cond: f64,
    rng: &mut Rng,
) -> Result<(Vec<f32>, GenSumInfo), GenError> {
    drawn_with_info(n, cond, rng)
}

/// `n` f64 values (all normal or zero, 53 bits each) whose exact sum has condition number
/// close to `cond`: the same generator in f64, whose TwoProduct tails and steps have f64's
/// precision, so that κ = c·(1 ± n·2^-52) (its running Σ|z| in f64 sets the limit), where
/// f32's is c·(1 ± 2^-22). Targets up to [`COND_MAX`], as for f32.
pub fn gensum_f64(n: usize, cond: f64, rng: &mut Rng) -> Result<Vec<f64>, GenError> {
    gensum_f64_with_info(n, cond, rng).map(|(z, _)| z)
}

/// [`gensum_f64`], with diagnostics.
pub fn gensum_f64_with_info(
    n: usize,
    cond: f64,
    rng: &mut Rng,
) -> Result<(Vec<f64>, GenSumInfo), GenError> {
    drawn_with_info(n, cond, rng)
}

fn drawn_with_info<V: Drawn>(
    n: usize,
    cond: f64,
    rng: &mut Rng,
) -> Result<(Vec<V>, GenSumInfo), GenError> {
    check_args(n, cond)?;
    draw_valid(n, cond, rng, MAX_ATTEMPTS, |rng| {
        if cond - 1.0 <= ONE_TOL {
            positive(n, rng)
        } else {
            refined(n, cond, rng)
        }
    })
}

/// Draws until one passes its validity check, at most `attempts` times; then a random global
/// sign and a shuffle. Never falls back to another distribution: a sweep must not silently
/// measure κ = 1 where it asked for κ = c.
fn draw_valid<V: Drawn>(
    n: usize,
    cond: f64,
    rng: &mut Rng,
    attempts: u32,
    mut draw: impl FnMut(&mut Rng) -> Option<(Vec<V>, f64, f64)>,
) -> Result<(Vec<V>, GenSumInfo), GenError> {
    for attempt in 1..=attempts {
        if let Some((mut z, bias, design_cond)) = draw(rng) {
            if rng.random::<bool>() {
                z.iter_mut().for_each(|v| *v = -*v);
            }
            z.shuffle(rng);
            let info = GenSumInfo {
                cond,
                attempts: attempt,
                bias,
                design_cond,
            };
            return Ok((z, info));
        }
    }
    Err(GenError::NoValidDraw { n, cond, attempts })
}

fn check_args(n: usize, cond: f64) -> Result<(), GenError> {
    if n < 2 {
        return Err(GenError::TooFew(n));
    }
    if !cond.is_finite() || cond < 1.0 {
        return Err(GenError::BadCondition(cond));
    }
    if cond > COND_MAX {
        return Err(GenError::OutOfReach(cond));
    }
    Ok(())
}

/// The exact running sum D.
struct Acc {
    sum: Float,
    tmp: Float,
}

impl Acc {
    /// A sum exact at `bits` bits.
    fn new(bits: u32) -> Self {
        Acc {
            sum: Float::new(bits),
            tmp: Float::new(53),
        }
    }
    /// Adds a value exactly (the format's `EXACT_BITS` hold any sum of them).
    fn add(&mut self, v: f64) {
        self.sum += v;
    }
    fn value(&self) -> f64 {
        self.sum.to_f64()
    }
    /// fl64(t − D), correctly rounded.
    fn minus_from(&mut self, t: f64) -> f64 {
        self.tmp.assign(t - &self.sum);
        self.tmp.to_f64()
    }
    fn is_zero(&self) -> bool {
        self.sum.is_zero()
    }
}

/// Values drawn so far, with Σ|z|.
struct Out<V> {
    z: Vec<V>,
    acc: Acc,
    abs: f64,
    ok: bool,
}

impl<V: Drawn> Out<V> {
    fn new(n: usize) -> Self {
        Out {
            z: Vec::with_capacity(n),
            acc: Acc::new(V::EXACT_BITS),
            abs: 0.0,
            ok: true,
        }
    }
    fn push(&mut self, v: V) {
        self.ok &= v.usable();
        self.acc.add(v.wide());
        self.abs += v.wide().abs();
        self.z.push(v);
    }
    /// The product x·y, split by TwoProduct.
    fn push_product(&mut self, x: V, y: V) {
        let (p, q) = V::two_product(x, y);
        self.push(p);
        self.push(q);
    }
}

/// `v` with the sign of `s` (±1).
fn signed<V: Drawn>(s: f64, v: V) -> V {
    if s < 0.0 { -v } else { v }
}

/// 2r − 1, redrawn when tiny.
fn unit(rng: &mut Rng) -> f64 {
    loop {
        let u = 2.0 * rng.random::<f64>() - 1.0;
        if u.abs() >= MIN_FACTOR {
            return u;
        }
    }
}

/// Phase-2 fluctuation budget α: phase 2's random-sign mass is planned as α·A₁. A sum with
/// κ = c has the share (1 − 1/c)/2 of its mass with the minority sign; about half of the
/// fluctuations' mass has the minority sign, so α = (1 − 1/c)/2 spends about half of that
/// budget on them (the rest goes to phase 1 and to the big cancelling steps), and → 0 as c → 1.
fn fluct_budget(c: f64) -> f64 {
    (1.0 - 1.0 / c) / 2.0
}

/// The residual T (signed like `d`, positive if d = 0) with (a + |T − d|) / |T| = c: the exact
/// sum a last term T − d must leave so that the whole sum has condition number c.
fn solve_residual(a: f64, d: f64, c: f64) -> f64 {
    let s = if d < 0.0 { -1.0 } else { 1.0 };
    let ad = d.abs();
    let t = if a <= c * ad {
        (a + ad) / (c + 1.0) // cancel: |T| ≤ |d|
    } else {
        (a - ad) / (c - 1.0) // grow: |T| > |d|
    };
    s * t
}

/// Phase 2's schedule: integer exponents from the geometric mean of the largest phase-1
/// magnitude and |T̂| down to just below |T̂|, capped so that the fluctuation mass
/// Σ (2/3)·2^ê stays ≈ α·A₁.
struct Schedule {
    /// log2 of the largest phase-1 magnitude.
    lbig: f64,
    /// The cap on the first exponent.
    cap: f64,
    steps: usize,
}

impl Schedule {
    /// α·A₁ is the fluctuation mass allowed over `steps` steps.
    fn new(big: f64, alpha: f64, a1: f64, steps: usize) -> Self {
        let cap = if steps > 0 {
            log2(1.5 * alpha * a1 / steps as f64)
        } else {
            0.0
        };
        Schedule {
            lbig: log2(big),
            cap,
            steps,
        }
    }

    /// The first and last exponents (unrounded) for a residual `t_hat`.
    fn ends(&self, t_hat: f64) -> (f64, f64) {
        let lt = log2(t_hat.abs());
        let l0 = ((self.lbig + lt) / 2.0).min(self.cap);
        (l0, (lt - 1.0).min(l0))
    }

    /// Step `j`'s exponent between the ends `(l0, l1)`.
    fn expo(&self, j: usize, (l0, l1): (f64, f64)) -> i32 {
        let e = if self.steps == 1 {
            l1
        } else {
            l0 + (l1 - l0) * j as f64 / (self.steps - 1) as f64
        };
        round_half(e) as i32
    }

    /// The residual T̂ that phase 2 steers around, solved with the fluctuation mass the
    /// schedule adds (a few fixed-point rounds), and the schedule's ends for it.
    fn residual(&self, a1: f64, d1: f64, c: f64) -> (f64, (f64, f64)) {
        let mut t_hat = solve_residual(a1, d1, c);
        for _ in 0..3 {
            let ends = self.ends(t_hat);
            let fluct: f64 = (0..self.steps)
                .map(|j| 2.0 / 3.0 * exp2i(self.expo(j, ends)))
                .sum();
            t_hat = solve_residual(a1 + fluct, d1, c);
        }
        (t_hat, self.ends(t_hat))
    }
}

/// The refined generator (module docs). None when a validity check fails.
fn refined<V: Drawn>(n: usize, c: f64, rng: &mut Rng) -> Option<(Vec<V>, f64, f64)> {
    let b = log2(c);
    let m = n / 2;
    let odd = n % 2 == 1;
    let alpha = fluct_budget(c);
    let rho = ((1.0 + alpha) / c).min(1.0);
    let pos = (1.0 + rho) / 2.0;
    // Phase 1 gets the share (1 − ρ)/2 of its mass with the minority sign; a drawn minus sign
    // is only taken while that share is not exceeded, so D₁ ≥ ρ·A₁ whatever the draws (for c
    // near 1 the budget is small and one unlucky large negative term would otherwise force a
    // dominant final term).
    let nu = (1.0 - rho) / 2.0;
    let (mut neg, mut mass) = (0.0f64, 0.0f64);
    let mut sign = |rng: &mut Rng, ap: f64| -> f64 {
        let minus = rng.random::<f64>() >= pos && neg + ap <= nu * (mass + ap);
        mass += ap;
        if minus {
            neg += ap;
            -1.0
        } else {
            1.0
        }
    };
    // Phase 2 needs about one step per 22 bits of cancellation: for tiny n, shorten phase 1.
    let k_need = ((b + 3.0) / 22.0).ceil() as usize + 1;
    let m1 = (round_half(m as f64 / 2.0) as usize)
        .min(m.saturating_sub(k_need))
        .max(1);
    let k = m - m1; // phase-2 products, the last one being the final correction
    // Raw exponents: products span 2^(2·off)..2^(b+2+2·off), their TwoProduct tails and the
    // final residual reach ~2^-60 below that; centre it all inside f32 (rescaled at the end).
    let off = 14 - round_half(b / 4.0) as i32;
    let top = round_half(b / 2.0) as i32 + 1;
    let mut out = Out::new(n);
    let mut big = 0.0f64; // largest phase-1 magnitude
    // Phase 1: published magnitudes, signs balanced by ρ.
    for i in 0..m1 {
        let mut e = round_half(rng.random::<f64>() * b / 2.0) as i32;
        if i == 0 {
            e = top;
        }
        if i == m1 - 1 && m1 > 1 {
            e = 0;
        }
        let a = exp2i(e + off);
        let x = V::of(unit(rng) * a);
        let y = V::of(unit(rng) * a);
        let xy = x.wide() * y.wide();
        let s = sign(rng, xy.abs()) * xy.signum();
        out.push_product(x, signed(s, y));
        big = big.max(xy.abs());
    }
    if odd && k >= 1 {
        let e = round_half(rng.random::<f64>() * b / 2.0) as i32;
        let v = V::of(unit(rng).abs() * exp2i(2 * (e + off)));
        let v = signed(sign(rng, v.wide()), v);
        out.push(v);
        big = big.max(v.wide().abs());
    }
    let a1 = out.abs;
    let d1 = out.acc.value();

    let steps = k.saturating_sub(1);
    let plan = Schedule::new(big, alpha, a1, steps);
    let (t_hat, sched) = plan.residual(a1, d1, c);

    // Phase 2: the published cancellation steps, around T̂ instead of 0.
    for j in 0..steps {
        let a = exp2i(plan.expo(j, sched));
        let delta = loop {
            let t = t_hat + unit(rng) * a;
            let delta = out.acc.minus_from(t);
            if delta.abs() >= a * MIN_FACTOR {
                break delta;
            }
        };
        let x = V::of(unit(rng) * half_scale(delta));
        let y = V::of(delta / x.wide());
        out.push_product(x, y);
    }
    // Final correction: set the exact sum to the residual that gives κ = c.
    if k >= 1 || odd {
        let t = solve_residual(out.abs, out.acc.value(), c);
        let delta = out.acc.minus_from(t);
        if k >= 1 {
            let x = V::of(unit(rng) * half_scale(delta));
            let y = V::of(delta / x.wide());
            out.push_product(x, y);
        } else {
            out.push(V::of(delta));
        }
    }
    if !out.ok || out.acc.is_zero() {
        return None;
    }
    let design = out.abs / out.acc.value().abs();
    let z = rescale(out.z, 2 * top)?;
    Some((z, rho, design))
}

/// c ≈ 1: all values positive, with q ≥ 0 in every TwoProduct, so κ = 1 exactly.
fn positive<V: Drawn>(n: usize, rng: &mut Rng) -> Option<(Vec<V>, f64, f64)> {
    let mut out = Out::new(n);
    for _ in 0..n / 2 {
        let x = V::of(unit(rng).abs());
        let mut y = V::of(unit(rng).abs());
        // Lower y by one ulp until fl(x·y) ≤ x·y, i.e. q ≥ 0 (each try succeeds w.p. ~1/2).
        while V::two_product(x, y).1 < V::default() {
            y = y.below();
        }
        out.push_product(x, y);
    }
    if n % 2 == 1 {
        out.push(V::of(unit(rng).abs()));
    }
    if !out.ok || out.acc.is_zero() {
        return None;
    }
    Some((out.z, 1.0, 1.0))
}

/// Scales by a power of two (exact, κ-invariant) so that the largest exponent is `top` (the
/// published spread: values up to 2^(b+2)) but at most 60, then raised if needed so that the
/// smallest is at least -110; None when that puts the largest above 100.
fn rescale<V: Drawn>(mut z: Vec<V>, top: i32) -> Option<Vec<V>> {
    let (mut lo, mut hi) = (i32::MAX, i32::MIN);
    for &v in &z {
        if v.wide() != 0.0 {
            let e = (v.wide().to_bits() >> 52 & 0x7ff) as i32 - 1023;
            lo = lo.min(e);
            hi = hi.max(e);
        }
    }
    let mut s = top.min(V::TOP) - hi;
    if lo + s < V::LOW {
        s = V::LOW - lo;
    }
    if hi + s > V::HIGH {
        return None;
    }
    let f = exp2i(s);
    z.iter_mut().for_each(|v| *v = V::of(v.wide() * f));
    Some(z)
}

/// 2^⌊e/2⌋ for |v| ∈ [2^e, 2^(e+1)): the scale of x in a step x·y ≈ v, so that neither factor
/// leaves f32 however large the step (the paper takes x ≈ 2^ê, which overflows y when a step
/// cannot follow the schedule).
fn half_scale(v: f64) -> f64 {
    let e = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    exp2i(e.div_euclid(2))
}

/// 2^k as f64, exactly, for −1022 ≤ k ≤ 1023.
fn exp2i(k: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&k));
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// Round half away from zero (Matlab's `round`).
fn round_half(x: f64) -> f64 {
    x.round()
}

/// log2 of a positive finite f64 from IEEE + − × ÷ only (libm's log2 is not guaranteed to
/// round the same everywhere): x = 2^e·m, m ∈ [√½, √2), ln m = 2·atanh((m−1)/(m+1)).
fn log2(x: f64) -> f64 {
    debug_assert!(x > 0.0 && x.is_finite());
    let (mut e, mut m) = if x < f64::MIN_POSITIVE {
        let y = x * exp2i(64);
        (((y.to_bits() >> 52) & 0x7ff) as i64 - 1023 - 64, y)
    } else {
        (((x.to_bits() >> 52) & 0x7ff) as i64 - 1023, x)
    };
    m = f64::from_bits((m.to_bits() & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0); // |s| ≤ 0.172
    let s2 = s * s;
    let mut term = s;
    let mut series = 0.0;
    for k in 0..16 {
        series += term / (2 * k + 1) as f64;
        term *= s2;
    }
    e as f64 + 2.0 * series / std::f64::consts::LN_2
}

#[cfg(test)]
mod tests;
