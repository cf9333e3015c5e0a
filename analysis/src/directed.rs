//! f64 arithmetic rounded toward ±∞ where it matters: the next float either way, an addition
//! rounded up or down (the nearest sum, moved one ulp by the sign of its TwoSum error), and a
//! product rounded up. The bounds evaluate their sums with these (docs/design.md §9.5), and
//! the exact treefix rounds to odd with the same two steps.

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
pub fn two_sum_err(a: f64, b: f64, s: f64) -> f64 {
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
pub fn nudge(s: f64, inexact: bool, up: bool) -> f64 {
    let bits = s.to_bits() as i64;
    let negative = bits >> 63; // 0 or −1
    // Sign and magnitude: bits + 1 moves s > 0 up, bits − 1 moves s < 0 up.
    let step_up = (inexact as i64 ^ negative) - negative; // +1, −1 (s < 0), or 0
    let step = if up { step_up } else { -step_up };
    f64::from_bits(bits.wrapping_add(step) as u64)
}

/// [`add_up`] for a, b ≥ 0, the same result with fewer operations: with the larger operand
/// first, Fast2Sum (Dekker) gives the same exact rounding error as TwoSum.
#[inline]
pub fn add_up_nonneg(a: f64, b: f64) -> f64 {
    debug_assert!(a >= 0.0 && b >= 0.0, "{a} {b}");
    let (big, small) = (a.max(b), a.min(b));
    let s = big + small;
    let err = small - (s - big);
    // An inexact sum is > 0, so one ulp up is one more on the bits.
    f64::from_bits(s.to_bits() + (err > 0.0) as u64)
}

/// a·b for a, b ≥ 0, rounded upward (nearest product, then one ulp up).
#[inline]
pub fn mul_up(a: f64, b: f64) -> f64 {
    debug_assert!(!(a < 0.0 || b < 0.0), "{a} {b}");
    let p = a * b;
    // p ≥ 0: one ulp up is one more on the bits.
    if p == 0.0 {
        0.0
    } else {
        f64::from_bits(p.to_bits() + 1)
    }
}
