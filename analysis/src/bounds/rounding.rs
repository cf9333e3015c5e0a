//! Bounds evaluated in f64 rounded upward (docs/design.md §9.5): every sum of bound terms
//! goes through [`add_up`], scalings by u are exact, the few other operations move one ulp up.
//! (The recursions carried through a summation tree are evaluated to nearest instead and
//! raised when read: `APrioriIn`, `Running`.)

pub use crate::f32_format::U;

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
pub(crate) fn two_sum_err(a: f64, b: f64, s: f64) -> f64 {
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
pub(crate) fn nudge(s: f64, inexact: bool, up: bool) -> f64 {
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
pub(crate) fn one_plus_u_times(x: f64) -> f64 {
    add_up_nonneg(x, times_u(x))
}

/// The final rounding of a float-float value ŝ to f32, r̂ = RN(ŝ), for ŝ with error bound
/// `b` and exact value of magnitude ≤ `m`: |r̂ − s| ≤ b + u·|ŝ| ≤ (1 + u)·b + u·m.
#[inline]
pub(crate) fn round_to_f32(b: f64, m: f64) -> f64 {
    add_up_nonneg(one_plus_u_times(b), times_u(m))
}

/// [`add_up`] for a, b ≥ 0, the same result with fewer operations: with the larger operand
/// first, Fast2Sum (Dekker) gives the same exact rounding error as TwoSum.
#[inline]
pub(crate) fn add_up_nonneg(a: f64, b: f64) -> f64 {
    debug_assert!(a >= 0.0 && b >= 0.0, "{a} {b}");
    let (big, small) = (a.max(b), a.min(b));
    let s = big + small;
    let err = small - (s - big);
    // An inexact sum is > 0, so one ulp up is one more on the bits.
    f64::from_bits(s.to_bits() + (err > 0.0) as u64)
}

/// a·b for a, b ≥ 0, rounded upward (nearest product, then one ulp up).
#[inline]
pub(crate) fn mul_up(a: f64, b: f64) -> f64 {
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
