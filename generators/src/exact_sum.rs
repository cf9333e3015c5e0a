//! Exact sums of f32 values: a fixed-point accumulator ([`ExactSum`]) sized for the f32
//! exponent range, and the condition number of a sum.
//!
//! Every finite f32 is an integer multiple of 2^-149 (the smallest subnormal) below 2^128,
//! i.e. k·2^-149 with |k| < 2^277. A sum of up to 2^40 of them is k·2^-149 with |k| < 2^317,
//! so a 320-bit two's-complement integer holds it exactly: additions are integer additions
//! with carry (five 64-bit limbs), several times faster than MPFR and allocation-free.
//! Conversions round exactly as MPFR does (to nearest, ties to even), and [`ExactSum::to_float`]
//! hands the exact value to MPFR where a decimal string or a division is wanted.

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
    limbs: [u64; LIMBS],
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
        limbs: [0; LIMBS],
        special: 0.0,
    };

    /// The exact value of `x`.
    #[inline]
    pub fn from_f32(x: f32) -> ExactSum {
        let bits = x.to_bits();
        let biased = (bits >> 23) & 0xff;
        if biased == 0xff {
            return ExactSum {
                limbs: [0; LIMBS],
                special: x,
            };
        }
        let frac = bits & 0x7f_ffff;
        // Normal: (2^23 + frac)·2^(biased − 150) = (2^23 + frac)·2^(biased − 1) units;
        // subnormal: frac·2^-149 = frac units.
        let (m, shift) = if biased == 0 {
            (frac, 0)
        } else {
            (frac | 0x80_0000, biased - 1)
        };
        let wide = (m as u128) << (shift % 64);
        let at = (shift / 64) as usize; // ≤ 3: shift ≤ 253
        let mut limbs = [0u64; LIMBS];
        limbs[at] = wide as u64;
        limbs[at + 1] = (wide >> 64) as u64;
        ExactSum {
            limbs: if bits >> 31 == 1 {
                negate(limbs)
            } else {
                limbs
            },
            // −0 stays −0 (a sum of −0 only is −0); any other finite term is +0 here.
            special: if x == 0.0 { x } else { 0.0 },
        }
    }

    /// Whether the sum is negative (an infinite or NaN sum is not).
    #[inline]
    pub fn is_negative(&self) -> bool {
        self.special == 0.0 && self.limbs[LIMBS - 1] >> 63 == 1
    }

    /// Whether the sum is exactly zero (of either sign).
    #[inline]
    pub fn is_zero(&self) -> bool {
        self.special == 0.0 && self.limbs == [0; LIMBS]
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
                limbs: self.limbs,
                special: self.special.abs(),
            }
        }
    }

    /// The magnitude's limbs (two's complement undone).
    #[inline]
    fn magnitude(&self) -> [u64; LIMBS] {
        if self.limbs[LIMBS - 1] >> 63 == 1 {
            negate(self.limbs)
        } else {
            self.limbs
        }
    }

    /// The sum rounded to the nearest f64, ties to even (as MPFR's `to_f64`).
    #[inline(always)]
    pub fn to_f64(&self) -> f64 {
        if self.special != 0.0 || self.special.is_nan() {
            return self.special as f64;
        }
        let neg = self.limbs[LIMBS - 1] >> 63 == 1;
        let mag = self.magnitude();
        let Some(top) = mag.iter().rposition(|&x| x != 0) else {
            return self.special as f64; // ±0
        };
        // The two top limbs, shifted so that the leading one is bit 127: `head` holds the 64
        // most significant bits, `dropped` the next 64, and any lower limb is below them.
        let below = if top == 0 { 0 } else { mag[top - 1] };
        let lz = mag[top].leading_zeros();
        let window = (((mag[top] as u128) << 64) | below as u128) << lz;
        let (head, dropped) = ((window >> 64) as u64, window as u64);
        let lower_nonzero = mag[..top.saturating_sub(1)].iter().any(|&x| x != 0);
        let bit_len = 64 * top as i32 + 64 - lz as i32;
        // Round to 53 bits, to nearest, ties to even (a value of at most 53 bits has nothing
        // below them and stays exact).
        let mut mant = head >> 11;
        let round = (head >> 10) & 1 == 1;
        let sticky = head & 0x3ff != 0 || dropped != 0 || lower_nonzero;
        if round && (sticky || mant & 1 == 1) {
            mant += 1;
        }
        // value = mant·2^(bit_len − 53 + UNIT_EXP) with 2^52 ≤ mant ≤ 2^53: built from its
        // bits, the exponent field of mant/2^52 being bit_len + UNIT_EXP − 1 + 1023. Adding
        // mant (with its leading one) to the field one below carries exactly; a rounding carry
        // to 2^53 moves to the next binade. Always normal: 2^-149 ≤ |value| < 2^171.
        let field = (bit_len + UNIT_EXP - 1 + 1023 - 1) as u64;
        f64::from_bits(((neg as u64) << 63) | ((field << 52) + mant))
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
        if self.special != 0.0 || self.special.is_nan() || self.limbs == [0; LIMBS] {
            f.assign(self.special);
            return;
        }
        // Horner in base 2^64 from the top limb: every step is exact at EXACT_PREC bits.
        f.assign(0);
        for &limb in self.magnitude().iter().rev() {
            *f <<= 64u32;
            *f += limb;
        }
        *f >>= -UNIT_EXP as u32;
        if self.limbs[LIMBS - 1] >> 63 == 1 {
            f.neg_assign();
        }
    }
}

/// Two's-complement negation of the limbs.
#[inline]
fn negate(limbs: [u64; LIMBS]) -> [u64; LIMBS] {
    let mut out = [0u64; LIMBS];
    let mut carry = true;
    for i in 0..LIMBS {
        let (x, c) = (!limbs[i]).overflowing_add(carry as u64);
        out[i] = x;
        carry = c;
    }
    out
}

impl Neg for ExactSum {
    type Output = ExactSum;
    #[inline]
    fn neg(self) -> ExactSum {
        ExactSum {
            limbs: negate(self.limbs),
            special: -self.special,
        }
    }
}

impl Add for ExactSum {
    type Output = ExactSum;
    #[inline]
    fn add(self, rhs: ExactSum) -> ExactSum {
        let mut out = [0u64; LIMBS];
        let mut carry = false;
        for ((o, &a), &b) in out.iter_mut().zip(&self.limbs).zip(&rhs.limbs) {
            let (x, c1) = a.overflowing_add(b);
            let (x, c2) = x.overflowing_add(carry as u64);
            *o = x;
            carry = c1 | c2;
        }
        ExactSum {
            limbs: out,
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

/// A narrower exact accumulator for one set of terms: k·2^exp with k an `i128`, exp the
/// lowest bit any term has. It applies when the terms' span plus carry room for their count
/// fits in 126 bits (gensum weights up to κ ≈ 1e16, real branch lengths): an addition is one
/// add with carry instead of five, a stored value 16 bytes instead of 48. The values, their
/// roundings and differences are exactly those of [`ExactSum`] (tested against it and MPFR).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NarrowScale {
    exp: i32,
}

/// Bits of k's magnitude the narrow accumulator allows (one spare below i128's 127).
const NARROW_BITS: i32 = 126;

/// The exponents of an f32's lowest bit (its ulp) and of a power of two above |x|:
/// `x = m·2^low`, `|x| < 2^high`; None for ±0 and non-finite values.
#[inline]
fn bit_range(x: f32) -> Option<(i32, i32)> {
    let bits = x.to_bits();
    let biased = ((bits >> 23) & 0xff) as i32;
    if biased == 0xff || bits & 0x7fff_ffff == 0 {
        return None;
    }
    Some(if biased == 0 {
        (-149, -126)
    } else {
        (biased - 150, biased - 126)
    })
}

/// 2^e as an f64 (normal: −1022 ≤ e ≤ 1023).
#[inline]
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

impl NarrowScale {
    /// The scale of a sum of any subset of `terms`, or None when they need the full range:
    /// a span too wide, a non-finite term, or a −0 (whose sign rules [`ExactSum`] keeps).
    pub fn for_terms(terms: &[f32]) -> Option<NarrowScale> {
        let (mut low, mut high) = (i32::MAX, i32::MIN);
        for &x in terms {
            if !x.is_finite() || x.to_bits() == 0x8000_0000 {
                return None;
            }
            if let Some((l, h)) = bit_range(x) {
                low = low.min(l);
                high = high.max(h);
            }
        }
        if low == i32::MAX {
            return Some(NarrowScale { exp: 0 }); // all +0
        }
        // n terms below 2^high each: |Σ| < n·2^high ≤ 2^(count_bits + high).
        let count_bits = (usize::BITS - terms.len().leading_zeros()) as i32;
        (high - low + count_bits <= NARROW_BITS).then_some(NarrowScale { exp: low })
    }

    /// The exact value of `x` (one of the terms the scale was made for) in units of 2^exp.
    #[inline]
    pub fn term(self, x: f32) -> i128 {
        self.units(x)
            .expect("a term outside the scale it was made for")
    }

    /// `x` in units of 2^exp if it is exactly such a multiple below 2^(126 + exp).
    #[inline]
    fn units(self, x: f32) -> Option<i128> {
        if !x.is_finite() {
            return None;
        }
        let Some((low, high)) = bit_range(x) else {
            return Some(0);
        };
        if low < self.exp || high - self.exp > NARROW_BITS {
            return None;
        }
        let bits = x.to_bits();
        let frac = bits & 0x7f_ffff;
        let m = if (bits >> 23) & 0xff == 0 {
            frac
        } else {
            frac | 0x80_0000
        };
        let k = (m as i128) << (low - self.exp);
        Some(if bits >> 31 == 1 { -k } else { k })
    }

    /// k·2^exp rounded to the nearest f64, ties to even (`as` rounds so, from i64 in one
    /// instruction; the scaling by a power of two is exact: |k·2^exp| ≥ 2^-149 is normal).
    #[inline]
    pub fn to_f64(self, k: i128) -> f64 {
        let x = match i64::try_from(k) {
            Ok(k) => k as f64,
            Err(_) => k as f64,
        };
        x * pow2(self.exp)
    }

    /// k·2^exp as an [`ExactSum`].
    pub fn to_exact(self, k: i128) -> ExactSum {
        let shift = (self.exp - UNIT_EXP) as u32; // ≥ 0: no term has a bit below 2^-149
        let mag = k.unsigned_abs();
        let (at, r) = ((shift / 64) as usize, shift % 64);
        let words = [mag as u64, (mag >> 64) as u64, 0];
        let mut limbs = [0u64; LIMBS];
        for i in 0..3 {
            let below = if r == 0 || i == 0 {
                0
            } else {
                words[i - 1] >> (64 - r)
            };
            let word = (words[i] << r) | below;
            if word != 0 {
                limbs[at + i] = word;
            }
        }
        ExactSum {
            limbs: if k < 0 { negate(limbs) } else { limbs },
            special: 0.0,
        }
    }

    /// `computed − k·2^exp`, rounded to the nearest f64: in i128 when `computed` is on the
    /// scale (the usual case), else through [`ExactSum`]. Equal to
    /// `(ExactSum::from_f32(computed) − self.to_exact(k)).to_f64()` up to the sign of zero.
    #[inline]
    pub fn diff_f64(self, computed: f32, k: i128) -> f64 {
        match self.units(computed) {
            // Both below 2^126 in magnitude: the difference cannot overflow.
            Some(c) => self.to_f64(c - k),
            None => (ExactSum::from_f32(computed) - self.to_exact(k)).to_f64(),
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
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
        check_narrow(values, fixed);
    }

    /// Where the narrow accumulator applies, it gives [`ExactSum`]'s value, rounding and
    /// differences (from terms, from values off its scale, from non-finite ones).
    fn check_narrow(values: &[f32], fixed: ExactSum) -> bool {
        let Some(scale) = NarrowScale::for_terms(values) else {
            return false;
        };
        let k = values.iter().map(|&x| scale.term(x)).sum::<i128>();
        assert_eq!(scale.to_exact(k), fixed, "{values:?}");
        assert_eq!(scale.to_f64(k).to_bits(), fixed.to_f64().to_bits());
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
        true
    }

    /// Sums whose terms span at most 100 bits, in cancelling runs: the narrow accumulator
    /// applies to every one and agrees with MPFR after every addition; one bit wider than it
    /// allows is refused.
    #[test]
    fn narrow_sums_match_mpfr() {
        let mut rng = crate::rng(13);
        for _ in 0..200 {
            let base = rng.random_range(-126..28); // normal terms: no underflow to ±0
            let len = rng.random_range(1..60);
            let values: Vec<f32> = (0..len)
                .map(|_| {
                    let x = 2f32.powi(base + rng.random_range(0..76)) * rng.random_range(1.0..2.0);
                    if rng.random() { x } else { -x }
                })
                .collect();
            let mut with_negatives = values.clone();
            with_negatives.extend(values.iter().rev().skip(1).map(|x| -x));
            for end in 1..=with_negatives.len() {
                let part = &with_negatives[..end];
                check(part);
                assert!(check_narrow(part, fixed_sum(part)), "{part:?}");
            }
        }
        // 2 terms (2 count bits): 1 (ulp 2^-23) and 2^k (below 2^(k+1)): span k + 1 + 23 + 2.
        let fits = |k: i32| NarrowScale::for_terms(&[2f32.powi(k), 1.0]).is_some();
        assert!(fits(100) && !fits(101));
        assert!(NarrowScale::for_terms(&[1.0, -0.0]).is_none());
        assert!(NarrowScale::for_terms(&[1.0, f32::INFINITY]).is_none());
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
