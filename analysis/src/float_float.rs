//! Float-float (double-word) arithmetic on f32 pairs, for the compensated vectorial scan
//! (`vectorial-compensated`, docs/design.md §5).
//!
//! A float-float value is an unevaluated sum hi + lo of two f32 with hi = RN(hi + lo)
//! ("double-word" in Joldes, Muller & Popescu, *Tight and rigorous error bounds for basic
//! building blocks of double-word arithmetic*, ACM TOMS 44(2), 2017). Every operation below is
//! a fixed sequence of f32 additions rounded to nearest — no FMA, no reassociation — and is
//! the definition the GPU kernel follows operation for operation (Rust never contracts or
//! reorders f32 arithmetic).
//!
//! - [`two_sum`]: Knuth's TwoSum, s + e = a + b exactly (barring overflow), any a, b;
//! - [`fast_two_sum`]: Dekker's Fast2Sum, exact when |a| ≥ |b| (or a = 0);
//! - [`dw_add`]: JMP's Algorithm 6 (AccurateDWPlusDW): relative error at most
//!   [`U_DW`] = 3u²/(1 − 4u) with u = 2^-24 (their Theorem 3.1, for p ≥ 3).
//!
//! Additions whose result would be subnormal are exact, so the error analysis holds
//! without an underflow exception; overflow (a partial sum beyond f32::MAX) is outside it.

use crate::scan_value::ScanValue;

/// 3u²/(1 − 4u) for u = 2^-24 (≈ 1.0658e-14), rounded upward: the relative error bound of
/// [`dw_add`]. Written by its bits, the smallest f64 above the exact rational (a test checks).
pub const U_DW: f64 = f64::from_bits(0x3d08_0000_6000_0181);

/// TwoSum (Knuth; Møller): s = RN(a + b) and e = (a + b) − s exactly, for any finite a, b
/// whose sum does not overflow. Six f32 additions in this order.
#[inline]
pub fn two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let a1 = s - b;
    let b1 = s - a1;
    let da = a - a1;
    let db = b - b1;
    let e = da + db;
    (s, e)
}

/// Fast2Sum (Dekker): s = RN(a + b) and e = (a + b) − s exactly when |a| ≥ |b| or a = 0
/// (the callers guarantee it). Three f32 additions.
#[inline]
pub fn fast_two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let z = s - a;
    let e = b - z;
    (s, e)
}

/// AccurateDWPlusDW (Joldes, Muller & Popescu 2017, Algorithm 6): the float-float sum of
/// x = (xh, xl) and y = (yh, yl), normalized, with relative error ≤ [`U_DW`].
#[inline]
pub fn dw_add(x: FloatFloat, y: FloatFloat) -> FloatFloat {
    let s = DwSteps::of(x, y);
    let (zh, zl) = fast_two_sum(s.vh, s.w);
    FloatFloat { hi: zh, lo: zl }
}

/// The intermediate values of [`dw_add`] before its last Fast2Sum, written once for it and
/// for [`dw_add_is_exact`].
struct DwSteps {
    sh: f32,
    sl: f32,
    th: f32,
    tl: f32,
    c: f32,
    vh: f32,
    vl: f32,
    w: f32,
}

impl DwSteps {
    #[inline]
    fn of(x: FloatFloat, y: FloatFloat) -> DwSteps {
        let (sh, sl) = two_sum(x.hi, y.hi);
        let (th, tl) = two_sum(x.lo, y.lo);
        let c = sl + th;
        let (vh, vl) = fast_two_sum(sh, c);
        let w = tl + vl;
        DwSteps {
            sh,
            sl,
            th,
            tl,
            c,
            vh,
            vl,
            w,
        }
    }
}

/// Whether [`dw_add`]`(x, y)` is the exact sum x + y: its only roundings are those of
/// `c = sl + th` and `w = tl + vl` (the TwoSums are exact) and, should a Fast2Sum's
/// precondition fail, that Fast2Sum; so it is exact when both additions are exact and both
/// Fast2Sums return TwoSum's exact error. Checked with TwoSum (the running error bound).
pub fn dw_add_is_exact(x: FloatFloat, y: FloatFloat) -> bool {
    let exact = |a: f32, b: f32| two_sum(a, b).1 == 0.0;
    let fast_is_exact = |a: f32, b: f32| fast_two_sum(a, b) == two_sum(a, b);
    let s = DwSteps::of(x, y);
    exact(s.sl, s.th) && exact(s.tl, s.vl) && fast_is_exact(s.sh, s.c) && fast_is_exact(s.vh, s.w)
}

/// A float-float value hi + lo (hi = RN(hi + lo) for every value the scan produces).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FloatFloat {
    pub hi: f32,
    pub lo: f32,
}

impl std::ops::Neg for FloatFloat {
    type Output = FloatFloat;
    /// −(hi + lo), exactly.
    #[inline]
    fn neg(self) -> FloatFloat {
        FloatFloat {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

impl ScanValue for FloatFloat {
    #[inline]
    fn term(w: f32) -> Self {
        FloatFloat { hi: w, lo: 0.0 }
    }
    #[inline]
    fn zero() -> Self {
        FloatFloat { hi: 0.0, lo: 0.0 }
    }
    /// [`dw_add`]`(self, rhs)`, operands in the order the plan passes them.
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        dw_add(self, rhs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use rug::Float;

    /// Enough bits to hold any sum of four f32 exactly (2^128 down to 2^-149 plus carries).
    const PREC: u32 = 400;

    fn exact(xs: &[f32]) -> Float {
        let mut s = Float::with_val(PREC, 0);
        for &x in xs {
            s += x;
        }
        s
    }

    /// A random f32: sign, mantissa and a binade in `exps`.
    fn random_f32(rng: &mut generators::Rng, exps: std::ops::Range<i32>) -> f32 {
        let m: f32 = rng.random_range(1.0..2.0);
        let k = rng.random_range(exps);
        let s = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        s * m * 2f32.powi(k)
    }

    /// The u_dw constant is 3u²/(1 − 4u) rounded upward: above it, by less than 2 ulps.
    #[test]
    fn u_dw_is_rounded_up() {
        let u = Float::with_val(PREC, 2f64.powi(-24));
        let mut q = Float::with_val(PREC, &u * &u);
        q *= 3;
        let den = Float::with_val(PREC, 1 - Float::with_val(PREC, &u * 4));
        q /= den;
        assert!(Float::with_val(PREC, U_DW) >= q);
        let below = f64::from_bits(U_DW.to_bits() - 2);
        assert!(Float::with_val(PREC, below) < q);
    }

    /// Adversarial pairs: signed zeros, ties to even, exponent gaps up to the whole range,
    /// subnormals, f32::MAX.
    fn adversarial() -> Vec<(f32, f32)> {
        let u = 2f32.powi(-24);
        let tiny = f32::from_bits(1);
        let mut v = vec![
            (0.0, 0.0),
            (0.0, -0.0),
            (-0.0, 0.0),
            (-0.0, -0.0),
            (1.0, u),           // tie, rounds down to even
            (1.0 + 2.0 * u, u), // tie, rounds up to even
            (1.0, -u / 2.0),
            (1.0, 3.0 * u),
            (-1.0, 1.0),
            (1.0, -1.0 + u),
            (f32::MAX, 1.0),
            (f32::MAX, -f32::MAX),
            (f32::MAX, -1e30),
            (1e30, tiny),
            (tiny, tiny),
            (f32::MIN_POSITIVE, -tiny),
            (3.0 * tiny, -f32::MIN_POSITIVE),
            (2f32.powi(100), 2f32.powi(-100)),
            (2f32.powi(-100), -2f32.powi(100)),
            (1.5, tiny),
        ];
        let swapped: Vec<(f32, f32)> = v.iter().map(|&(a, b)| (b, a)).collect();
        v.extend(swapped);
        v
    }

    /// TwoSum: s = RN(a + b) (the f32 sum) and s + e = a + b exactly, on random pairs over
    /// every exponent gap and the adversarial ones; e = +0 when the sum is exact.
    #[test]
    fn two_sum_is_exact() {
        let mut rng = generators::rng(1);
        let mut pairs = adversarial();
        for i in 0..200_000 {
            // Gaps from 0 to the whole range; a quarter near cancellation.
            // Binades up to 2^125 (no sum overflows), down to the smallest normal.
            let a = random_f32(&mut rng, -126..126);
            let b = match i % 4 {
                0 => -a * (1.0 + rng.random_range(-64..64) as f32 * 2f32.powi(-23)),
                1 => random_f32(&mut rng, -126..126),
                _ => {
                    let k = a.abs().log2().floor() as i32 - rng.random_range(0..40);
                    random_f32(&mut rng, k.max(-126)..k.max(-126) + 1)
                }
            };
            pairs.push((a, b));
        }
        for (a, b) in pairs {
            let (s, e) = two_sum(a, b);
            assert_eq!(s.to_bits(), (a + b).to_bits(), "{a:e} + {b:e}");
            let mut got = exact(&[s, e]);
            got -= exact(&[a, b]);
            assert!(got.is_zero(), "{a:e} + {b:e}: {s:e} + {e:e}");
            if e == 0.0 {
                assert!(e.is_sign_positive() || s == 0.0, "{a:e} + {b:e}");
            }
            // Fast2Sum gives the same pair when its precondition holds.
            let (big, small) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
            let (fs, fe) = fast_two_sum(big, small);
            assert_eq!(fs.to_bits(), s.to_bits(), "{a:e} + {b:e}");
            assert_eq!(fe, e, "{a:e} + {b:e}");
        }
        // Signed zeros follow IEEE in s: −0 only for (−0) + (−0).
        assert!(two_sum(-0.0, -0.0).0.is_sign_negative());
        assert!(two_sum(0.0, -0.0).0.is_sign_positive());
    }

    /// A random normalized float-float: hi, and lo below half an ulp of hi (hi = RN(hi + lo)),
    /// or lo = 0.
    fn random_ff(rng: &mut generators::Rng, exps: std::ops::Range<i32>) -> FloatFloat {
        let hi = random_f32(rng, exps);
        if rng.random_bool(0.1) {
            return FloatFloat { hi, lo: 0.0 };
        }
        let k = hi.abs().log2().floor() as i32 - 25 - rng.random_range(0..8);
        let lo = random_f32(rng, k..k + 1);
        let (hi, lo) = fast_two_sum(hi, lo);
        FloatFloat { hi, lo }
    }

    /// dw_add: |z − (x + y)| ≤ 3u²/(1 − 4u)·|x + y| (JMP Theorem 3.1), checked exactly with
    /// MPFR, and the result normalized, on random pairs: independent magnitudes, close
    /// magnitudes, and heavy cancellation (y ≈ −x, down to y = −x exactly).
    #[test]
    fn dw_add_relative_error_is_bounded() {
        let mut rng = generators::rng(2);
        let bound_num = Float::with_val(PREC, 3) * Float::with_val(PREC, 2f64.powi(-48));
        let one_minus_4u = Float::with_val(PREC, 1) - Float::with_val(PREC, 2f64.powi(-22));
        let (mut worst, mut detected_exact) = (0f64, 0usize);
        for i in 0..200_000 {
            let x = random_ff(&mut rng, -90..90);
            let y = match i % 5 {
                0 => random_ff(&mut rng, -90..90),
                1 => {
                    let k = x.hi.abs().log2().floor() as i32;
                    random_ff(&mut rng, k - 3..k + 3)
                }
                2 => {
                    // −x.hi and a lo of its own, anywhere below half an ulp of it.
                    let k = x.hi.abs().log2().floor() as i32 - 25 - rng.random_range(0..30);
                    let (hi, lo) = fast_two_sum(-x.hi, random_f32(&mut rng, k..k + 1));
                    FloatFloat { hi, lo }
                }
                3 => {
                    let (hi, lo) = fast_two_sum(
                        -x.hi * (1.0 + rng.random_range(-8..8) as f32 * 2f32.powi(-23)),
                        -x.lo * rng.random_range(0.5..2.0),
                    );
                    FloatFloat { hi, lo }
                }
                _ => -x,
            };
            let z = dw_add(x, y);
            // Normalized: zh = RN(zh + zl).
            assert_eq!((z.hi + z.lo).to_bits(), z.hi.to_bits(), "{x:?} + {y:?}");
            let sum = exact(&[x.hi, x.lo, y.hi, y.lo]);
            let mut err = exact(&[z.hi, z.lo]);
            err -= &sum;
            err.abs_mut();
            // err·(1 − 4u) ≤ 3u²·|sum|, all exact at PREC bits.
            let lhs = Float::with_val(PREC, &err * &one_minus_4u);
            let abs_sum = sum.clone().abs();
            let rhs = Float::with_val(PREC, &bound_num * &abs_sum);
            assert!(lhs <= rhs, "{x:?} + {y:?} = {z:?}");
            if !sum.is_zero() {
                worst = worst.max((err / &abs_sum).to_f64() / U_DW);
            }
            // The exactness test is sufficient (roundings might cancel), never wrong.
            if dw_add_is_exact(x, y) {
                assert!(exact(&[z.hi, z.lo]) == sum, "{x:?} + {y:?}");
                detected_exact += 1;
            }
        }
        assert!(detected_exact > 1000, "{detected_exact}");
        eprintln!("dw_add: worst error / u_dw·|x + y| = {worst:.3}, {detected_exact} proven exact");
        // The bound is not vacuous for these inputs: errors reach a fair share of it.
        assert!(worst > 0.1, "worst error / bound = {worst}");
    }

    /// The scan value: terms are exact pairs, zero is (+0, +0), adding an exact zero on either
    /// side returns the other operand unchanged, and `plus` is `dw_add` in that order.
    #[test]
    fn scan_value() {
        let x = FloatFloat::term(1.5);
        assert_eq!(x, FloatFloat { hi: 1.5, lo: 0.0 });
        let zero = FloatFloat::zero();
        assert!(zero.hi.is_sign_positive() && zero.lo.is_sign_positive());
        let mut rng = generators::rng(3);
        for _ in 0..1000 {
            let a = random_ff(&mut rng, -60..60);
            assert_eq!(a.plus(zero), a);
            assert_eq!(zero.plus(a), a);
            let b = random_ff(&mut rng, -60..60);
            assert_eq!(a.plus(b), dw_add(a, b));
        }
        // Signed zeros (docs/design.md §5): (−0) + (−0) is −0 in f32 but +0 here, as the op
        // sequence gives it (Fast2Sum(−0, +0) = +0).
        let minus_zero = FloatFloat::term(-0.0);
        assert!(minus_zero.plus(minus_zero).hi.is_sign_positive());
        assert!((-0.0f32 + -0.0f32).is_sign_negative());
        // 1 + 2^-30 + 2^-30: f32 rounds both additions to 1; float-float keeps 1 + 2^-29.
        let t = 2f32.powi(-30);
        assert_eq!((1.0 + t) + t, 1.0);
        let s = FloatFloat::term(1.0)
            .plus(FloatFloat::term(t))
            .plus(FloatFloat::term(t));
        assert_eq!(
            s,
            FloatFloat {
                hi: 1.0,
                lo: 2.0 * t
            }
        );
    }
}
