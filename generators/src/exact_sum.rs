//! Exact sums of f32 values over the whole f32 range: [`ExactSum`], the fixed point
//! ([`Fixed`]) sized for any f32 and any count up to 2^40, with IEEE's non-finite and
//! signed-zero cases; and the condition number of a sum.
//!
//! Every finite f32 is an integer multiple of 2^-149 (the smallest subnormal) below 2^128,
//! i.e. k·2^-149 with |k| < 2^277. A sum of up to 2^40 of them is k·2^-149 with |k| < 2^317,
//! so a 320-bit two's-complement integer holds it exactly: additions are integer additions
//! with carry (five 64-bit limbs), several times faster than MPFR and allocation-free.
//! Conversions round exactly as MPFR does (to nearest, ties to even), and [`ExactSum::to_float`]
//! hands the exact value to MPFR where a decimal string or a division is wanted.
//!
//! Most weight vectors span far fewer bits: the same [`Fixed`] at a [`crate::fixed::Scale`]
//! holds their sums in fewer limbs.

use crate::fixed::{Fixed, Scale};
use rug::ops::NegAssign;
use rug::{Assign, Float};
use std::ops::{Add, AddAssign, Neg, Sub};

/// Bits that hold any sum of up to 2^40 f32 values exactly: f32 spans 2^-149..2^128 (277 bits).
pub const EXACT_PREC: u32 = 320;

/// Limbs of [`ExactSum`] (64 bits each, least significant first).
const LIMBS: usize = 5;

/// The exponent of the accumulator's unit: the value is k·2^UNIT_EXP.
pub const UNIT_EXP: i32 = -149;

/// An exact sum of f32 values: k·2^-149 with k a 320-bit two's-complement integer.
///
/// Infinities and NaN (never produced by the weight models, possible in a computed result
/// that overflowed) follow IEEE/MPFR rules through `special`, an f32 that holds the sum of the
/// non-finite terms: 0 while every term is finite. It also carries the sign of an exactly zero
/// sum as MPFR does (−0 only if every term is −0), so [`ExactSum::to_f64`] returns what MPFR's
/// sum would, bit for bit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactSum {
    fixed: Fixed<LIMBS>,
    special: f32,
}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum::ZERO
    }
}

impl ExactSum {
    /// +0.
    pub const ZERO: ExactSum = ExactSum {
        fixed: Fixed::ZERO,
        special: 0.0,
    };

    /// The exact value of `x`.
    #[inline]
    pub fn from_f32(x: f32) -> ExactSum {
        if !x.is_finite() {
            return ExactSum {
                fixed: Fixed::ZERO,
                special: x,
            };
        }
        ExactSum {
            fixed: Fixed::from_f32_at(x, UNIT_EXP),
            // −0 stays −0 (a sum of −0 only is −0); any other finite term is +0 here.
            special: if x == 0.0 { x } else { 0.0 },
        }
    }

    /// k·2^-149 for k on [`ExactSum`]'s scale (any finite sum).
    pub(crate) fn from_fixed(fixed: Fixed<LIMBS>) -> ExactSum {
        ExactSum {
            fixed,
            special: 0.0,
        }
    }

    /// Whether the sum is negative (an infinite or NaN sum is not).
    #[inline]
    pub fn is_negative(&self) -> bool {
        self.special == 0.0 && self.fixed.is_negative()
    }

    /// Whether the sum is exactly zero (of either sign).
    #[inline]
    pub fn is_zero(&self) -> bool {
        self.special == 0.0 && self.fixed.is_zero()
    }

    /// Whether the sum is finite.
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.special == 0.0
    }

    /// |self|.
    #[inline]
    pub fn abs(self) -> ExactSum {
        if self.is_negative() {
            -self
        } else {
            ExactSum {
                fixed: self.fixed,
                special: self.special.abs(),
            }
        }
    }

    /// The sum rounded to the nearest f64, ties to even (as MPFR's `to_f64`).
    #[inline(always)]
    pub fn to_f64(&self) -> f64 {
        if self.special != 0.0 || self.special.is_nan() || self.fixed.is_zero() {
            return self.special as f64; // non-finite, or ±0
        }
        self.fixed.to_f64_at(UNIT_EXP)
    }

    /// The sum rounded to the nearest f32, ties to even (as MPFR's `to_f32`): ±∞ when it lies
    /// beyond f32's range, the non-finite and signed-zero cases as [`ExactSum::to_f64`].
    #[inline]
    pub fn to_f32(&self) -> f32 {
        if self.special != 0.0 || self.special.is_nan() || self.fixed.is_zero() {
            return self.special;
        }
        self.fixed.to_f32_at(UNIT_EXP)
    }

    /// The exact value as an MPFR number of [`EXACT_PREC`] bits.
    pub fn to_float(&self) -> Float {
        let mut f = Float::new(EXACT_PREC);
        self.assign_to(&mut f);
        f
    }

    /// Writes the exact value into `f`, raising its precision to [`EXACT_PREC`] if lower.
    pub fn assign_to(&self, f: &mut Float) {
        if f.prec() < EXACT_PREC {
            f.set_prec(EXACT_PREC);
        }
        if self.special != 0.0 || self.special.is_nan() || self.fixed.is_zero() {
            f.assign(self.special);
            return;
        }
        // Horner in base 2^64 from the top limb: every step is exact at EXACT_PREC bits.
        f.assign(0);
        for &limb in self.fixed.magnitude().iter().rev() {
            *f <<= 64u32;
            *f += limb;
        }
        *f >>= -UNIT_EXP as u32;
        if self.fixed.is_negative() {
            f.neg_assign();
        }
    }
}

impl Neg for ExactSum {
    type Output = ExactSum;
    #[inline]
    fn neg(self) -> ExactSum {
        ExactSum {
            fixed: -self.fixed,
            special: -self.special,
        }
    }
}

impl Add for ExactSum {
    type Output = ExactSum;
    #[inline]
    fn add(self, rhs: ExactSum) -> ExactSum {
        ExactSum {
            fixed: self.fixed + rhs.fixed,
            special: self.special + rhs.special,
        }
    }
}

impl AddAssign for ExactSum {
    #[inline]
    fn add_assign(&mut self, rhs: ExactSum) {
        *self = *self + rhs;
    }
}

impl Sub for ExactSum {
    type Output = ExactSum;
    #[inline]
    fn sub(self, rhs: ExactSum) -> ExactSum {
        self + -rhs
    }
}

/// The fixed point of one set of terms: unit 2^unit, the lowest bit any term has, and
/// Condition number of the sum of `values`: Σ|z| / |Σz|, both computed exactly, rounded to f64
/// at the end. Infinite when the exact sum is zero.
pub fn condition_number(values: &[f32]) -> f64 {
    let (mut sum, mut abs) = (ExactSum::ZERO, ExactSum::ZERO);
    for &z in values {
        sum += ExactSum::from_f32(z);
        abs += ExactSum::from_f32(z.abs());
    }
    if sum.is_zero() {
        return f64::INFINITY;
    }
    let (sum, abs) = (sum.to_float(), abs.to_float());
    Float::with_val(64, &abs / &sum).abs().to_f64()
}

/// A scale's sums as exact sums: where the fixed-point arithmetic of one scale ([`Scale`])
/// meets the one wide sum of every f32 value ([`ExactSum`]).
impl Scale {
    /// k·2^unit as an [`ExactSum`].
    pub fn to_exact<const L: usize>(self, k: Fixed<L>) -> ExactSum {
        ExactSum::from_fixed(k.widen((self.unit() - UNIT_EXP) as u32))
    }

    /// `computed − k·2^unit`, rounded to the nearest f64: on this scale when `computed` fits
    /// it (the usual case), else through [`ExactSum`]. Equal to
    /// `(ExactSum::from_f32(computed) − self.to_exact(k)).to_f64()` up to the sign of zero.
    #[inline]
    pub fn diff_f64<const L: usize>(self, computed: f32, k: Fixed<L>) -> f64 {
        match self.fits::<L>(computed) {
            // Both below 2^(64·L − 2) in magnitude: the difference cannot overflow.
            Some(c) => (c - k).to_f64_at(self.unit()),
            None => (ExactSum::from_f32(computed) - self.to_exact(k)).to_f64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixed::Scale;
    use rand::RngExt;

    /// The same sum with MPFR at 320 bits (exact for these sizes).
    fn mpfr_sum(values: &[f32]) -> Float {
        let mut s = Float::new(EXACT_PREC);
        for &x in values {
            s += x;
        }
        s
    }

    fn fixed_sum(values: &[f32]) -> ExactSum {
        values
            .iter()
            .fold(ExactSum::ZERO, |acc, &x| acc + ExactSum::from_f32(x))
    }

    /// The accumulator and MPFR agree: the exact value, its f64 rounding (bits, sign of zero
    /// included) and the difference from an f32.
    fn check(values: &[f32]) {
        let (fixed, mpfr) = (fixed_sum(values), mpfr_sum(values));
        assert_eq!(fixed.to_float(), mpfr, "{values:?}");
        assert_eq!(
            fixed.to_f64().to_bits(),
            mpfr.to_f64().to_bits(),
            "{values:?}: {} vs {}",
            fixed.to_f64(),
            mpfr.to_f64()
        );
        assert_eq!(
            fixed.to_f32().to_bits(),
            mpfr.to_f32().to_bits(),
            "{values:?}: {} vs {}",
            fixed.to_f32(),
            mpfr.to_f32()
        );
        assert_eq!(fixed.is_zero(), mpfr.is_zero());
        assert_eq!(
            fixed.is_negative(),
            mpfr.is_sign_negative() && !mpfr.is_zero()
        );
        for &c in values.iter().take(3) {
            let d = ExactSum::from_f32(c) - fixed;
            let mut m = Float::with_val(EXACT_PREC, c);
            m -= &mpfr;
            assert_eq!(d.to_float(), m);
            assert_eq!(d.to_f64().abs().to_bits(), m.to_f64().abs().to_bits());
        }
        check_scaled(values, fixed);
    }

    /// Where a narrow scale applies, its [`Fixed`] gives [`ExactSum`]'s value, rounding and
    /// differences (from terms, from values off its scale, from non-finite ones). Returns
    /// the limbs used (0: the full range was needed).
    fn check_scaled(values: &[f32], fixed: ExactSum) -> usize {
        // A −0 term has a sign rule only `ExactSum` keeps (the scale holds 0).
        if values.iter().any(|x| x.to_bits() == 0x8000_0000) {
            return 0;
        }
        let Some(scale) = Scale::for_weights(values) else {
            return 0;
        };
        match scale.limbs() {
            1 => check_at::<1>(scale, values, fixed),
            2 => check_at::<2>(scale, values, fixed),
            3 => check_at::<3>(scale, values, fixed),
            4 => check_at::<4>(scale, values, fixed),
            5 => check_at::<5>(scale, values, fixed),
            l => panic!("{l} limbs"),
        }
        scale.limbs()
    }

    fn check_at<const L: usize>(scale: Scale, values: &[f32], fixed: ExactSum) {
        let k = values
            .iter()
            .fold(Fixed::<L>::ZERO, |acc, &x| acc + scale.term::<L>(x));
        assert_eq!(scale.to_exact(k), fixed, "{values:?}");
        assert_eq!(scale.to_f64(k).to_bits(), fixed.to_f64().to_bits());
        assert_eq!(scale.to_f32(k).to_bits(), fixed.to_f32().to_bits());
        let off_scale = |c: f32| {
            [
                c,
                c * 2f32.powi(-40),
                c * 2f32.powi(60),
                f32::MAX,
                c + 1e-30,
            ]
        };
        for &c in values.iter().take(3) {
            for c in off_scale(c)
                .into_iter()
                .chain([f32::INFINITY, f32::NAN, -0.0])
            {
                let (a, b) = (
                    scale.diff_f64(c, k).abs(),
                    (ExactSum::from_f32(c) - fixed).to_f64().abs(),
                );
                assert!(
                    a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan(),
                    "{c} {values:?}"
                );
            }
        }
    }

    /// Sums whose terms span 1 to 200 bits, in cancelling runs: a narrow scale applies to
    /// every one (1 to 4 limbs, each used) and agrees with MPFR after every addition; the
    /// scale's bounds are where they should be.
    #[test]
    fn narrow_sums_match_mpfr() {
        let mut rng = crate::rng(13);
        let mut used = [0usize; 5];
        for round in 0..240 {
            let span = [1, 40, 90, 150, 200][round % 5];
            // Normal, finite terms: no underflow to ±0.
            let base = rng.random_range(-126..=127 - span);
            let len = rng.random_range(1..40);
            let values: Vec<f32> = (0..len)
                .map(|_| {
                    let e = base + rng.random_range(0..span);
                    let x = 2f32.powi(e) * rng.random_range(1.0f32..2.0).min(1.9999999);
                    if rng.random() { x } else { -x }
                })
                .collect();
            let mut with_negatives = values.clone();
            with_negatives.extend(values.iter().rev().skip(1).map(|x| -x));
            for end in 1..=with_negatives.len() {
                let part = &with_negatives[..end];
                check(part);
                let limbs = check_scaled(part, fixed_sum(part));
                assert!(limbs > 0, "{part:?}");
                used[limbs] += 1;
            }
        }
        assert!(used[1..].iter().all(|&u| u > 0), "{used:?}");
        // [2^k, 2^-149]: span k + 1 + 149 bits, 2 count bits, sign and spare: 4 limbs up to
        // k = 102.
        let limbs =
            |k: i32| Scale::for_weights(&[2f32.powi(k), f32::from_bits(1)]).map(Scale::limbs);
        assert_eq!((limbs(102), limbs(103)), (Some(4), Some(5)));
        assert_eq!(Scale::for_weights(&[1.0, 3.0]).map(Scale::limbs), Some(1));
        assert!(Scale::for_weights(&[1.0, f32::INFINITY]).is_none());
    }

    #[test]
    fn edge_values() {
        let max = f32::MAX;
        let min_normal = f32::MIN_POSITIVE;
        let min_sub = f32::from_bits(1);
        let max_sub = f32::from_bits(0x7f_ffff);
        let cases: Vec<Vec<f32>> = vec![
            vec![],
            vec![0.0],
            vec![-0.0],
            vec![-0.0, -0.0],
            vec![-0.0, 0.0],
            vec![1.0, -1.0],
            vec![-1.0, 1.0, -0.0],
            vec![max],
            vec![-max],
            vec![max, max, max, max],
            vec![-max, -max, -max],
            vec![max, min_sub],
            vec![max, -max, min_sub],
            vec![min_normal],
            vec![min_normal, -min_sub],
            vec![min_sub],
            vec![-min_sub, -min_sub],
            vec![max_sub, min_sub],
            vec![max, -min_sub],
            vec![1.0, 2f32.powi(-24)],
            vec![1.0, 2f32.powi(-24), 2f32.powi(-100)],
            vec![1.0, 3.0 * 2f32.powi(-24)],
            vec![2f32.powi(100), 1.0, -(2f32.powi(100))],
            vec![max, -max, 1e-30, -1e-30],
            // Ties at 24 bits and at f32's overflow threshold MAX + ulp(MAX)/2 (ties to even:
            // up, to ∞), just below it (MAX), and just above a tie.
            vec![1.0, 2f32.powi(-24), -min_sub],
            vec![1.0, 3.0 * 2f32.powi(-24), min_sub],
            vec![max, 2f32.powi(103)],
            vec![max, 2f32.powi(103), -min_sub],
            vec![-max, -(2f32.powi(103))],
            vec![max, 2f32.powi(102)],
            // Ties at 53 bits: 2^60 + 2^7 is halfway between two f64 (even below), + 2^8 above.
            vec![2f32.powi(60), 2f32.powi(7)],
            vec![2f32.powi(60), 2f32.powi(7), 2f32.powi(8)],
            vec![2f32.powi(60), 2f32.powi(7), min_sub],
            vec![2f32.powi(60), 2f32.powi(7), -min_sub],
            vec![-(2f32.powi(60)), -(2f32.powi(7))],
            vec![f32::INFINITY, 1.0],
            vec![f32::NEG_INFINITY, 1.0],
            vec![f32::INFINITY, f32::NEG_INFINITY],
            vec![f32::NAN, 1.0],
        ];
        for c in &cases {
            if c.iter().all(|x| x.is_finite()) {
                check(c);
            } else {
                let (f, m) = (fixed_sum(c), mpfr_sum(c));
                let (a, b) = (f.to_f64(), m.to_f64());
                assert!(
                    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    "{c:?}"
                );
            }
        }
        // Carries across every limb boundary, both ways.
        for k in -149..128 {
            let x = 2f32.powi(k);
            check(&[x, x, -x, x]);
            check(&[-x, min_sub, x]);
            check(&[x * 1.5, -min_sub]);
        }
    }

    /// Random f32 bit patterns (every exponent, both signs, subnormals) summed in long runs
    /// that cancel, checked against MPFR after every addition.
    #[test]
    fn random_sums_match_mpfr() {
        let mut rng = crate::rng(11);
        for _ in 0..200 {
            let len = rng.random_range(1..60);
            let values: Vec<f32> = (0..len)
                .map(|_| {
                    loop {
                        let x = f32::from_bits(rng.random());
                        if x.is_finite() {
                            break x;
                        }
                    }
                })
                .collect();
            let mut with_negatives = values.clone();
            with_negatives.extend(values.iter().rev().skip(1).map(|x| -x));
            for end in 1..=with_negatives.len() {
                check(&with_negatives[..end]);
            }
        }
    }

    /// Gensum weights at κ up to 1e30: the sum is tiny beside its terms.
    #[test]
    fn gensum_sums_match_mpfr() {
        let mut rng = crate::rng(12);
        for cond in [1e1, 1e8, 1e16, 1e24, 1e30] {
            for n in [2, 100, 3000] {
                let z = crate::gensum::gensum(n, cond, &mut rng).unwrap();
                check(&z);
                let abs: Vec<f32> = z.iter().map(|x| x.abs()).collect();
                check(&abs);
            }
        }
    }

    #[test]
    fn condition_number_of_a_known_sum() {
        // Σ|z| = 2^101 + 1, Σz = 1.
        let z = [2f32.powi(100), 1.0, -(2f32.powi(100))];
        assert_eq!(condition_number(&z), 2f64.powi(101));
        assert_eq!(condition_number(&[1.0, -1.0]), f64::INFINITY);
    }
}
