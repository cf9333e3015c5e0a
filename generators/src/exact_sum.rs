//! Exact sums of f32 values: a fixed-point accumulator ([`ExactSum`]) sized for the f32
//! exponent range, narrower ones sized for one set of terms ([`Scale`]), and the condition
//! number of a sum.
//!
//! Every finite f32 is an integer multiple of 2^-149 (the smallest subnormal) below 2^128,
//! i.e. k·2^-149 with |k| < 2^277. A sum of up to 2^40 of them is k·2^-149 with |k| < 2^317,
//! so a 320-bit two's-complement integer holds it exactly: additions are integer additions
//! with carry (five 64-bit limbs), several times faster than MPFR and allocation-free.
//! Conversions round exactly as MPFR does (to nearest, ties to even), and [`ExactSum::to_float`]
//! hands the exact value to MPFR where a decimal string or a division is wanted.
//!
//! Most weight vectors span far fewer bits: with the lowest bit of any term as unit and room
//! for the carries of their count, 1 to 4 limbs hold every partial sum ([`Fixed`] at a
//! [`Scale`]); the same values, fewer limbs to add and store.

use rug::ops::NegAssign;
use rug::{Assign, Float};
use std::ops::{Add, AddAssign, Neg, Sub};

/// Bits that hold any sum of up to 2^40 f32 values exactly: f32 spans 2^-149..2^128 (277 bits).
pub const EXACT_PREC: u32 = 320;

/// Limbs of [`ExactSum`] (64 bits each, least significant first).
const LIMBS: usize = 5;

/// The exponent of the accumulator's unit: the value is k·2^UNIT_EXP.
pub const UNIT_EXP: i32 = -149;

/// k·2^unit with k an L-limb two's-complement integer (64-bit limbs, least significant
/// first); the unit is kept by whoever holds the value ([`ExactSum`]: 2^-149; a [`Scale`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fixed<const L: usize> {
    limbs: [u64; L],
}

/// The exponents of an f32's lowest bit (its ulp) and of a power of two above |x|:
/// `x = m·2^low`, `|x| < 2^high`, m < 2^24; None for ±0 and non-finite values.
#[inline]
pub fn bit_range(x: f32) -> Option<(i32, i32, u32)> {
    let bits = x.to_bits();
    let biased = ((bits >> 23) & 0xff) as i32;
    if biased == 0xff || bits & 0x7fff_ffff == 0 {
        return None;
    }
    let frac = bits & 0x7f_ffff;
    Some(if biased == 0 {
        (-149, -126, frac)
    } else {
        (biased - 150, biased - 126, frac | 0x80_0000)
    })
}

impl<const L: usize> Fixed<L> {
    pub const ZERO: Fixed<L> = Fixed { limbs: [0; L] };

    /// A finite `x` in units of 2^unit; its lowest bit must not be below the unit, nor its
    /// magnitude reach 2^(64·L − 1 + unit).
    #[inline]
    fn from_f32_at(x: f32, unit: i32) -> Fixed<L> {
        let Some((low, _, m)) = bit_range(x) else {
            return Fixed::ZERO;
        };
        let shift = (low - unit) as u32;
        if L == 2 {
            // In one i128 (the reference's common case): measured 1.3× the limb selects below
            // (n = 10^5 rootfix 115 against 89 M additions/s).
            let k = ((m as i128) << shift) * if x.is_sign_negative() { -1 } else { 1 };
            let mut limbs = [0u64; L];
            limbs[0] = k as u64;
            limbs[1] = (k >> 64) as u64;
            return Fixed { limbs };
        }
        let wide = (m as u128) << (shift % 64);
        let at = (shift / 64) as usize;
        // Every limb chosen by comparison rather than stored at a computed index: the loop
        // unrolls into selects and the value stays in registers.
        let (lo, hi) = (wide as u64, (wide >> 64) as u64);
        let mut limbs = [0u64; L];
        for (i, limb) in limbs.iter_mut().enumerate() {
            *limb = if i == at {
                lo
            } else if i == at + 1 {
                hi
            } else {
                0
            };
        }
        let f = Fixed { limbs };
        if x.is_sign_negative() { -f } else { f }
    }

    #[inline]
    fn is_negative(&self) -> bool {
        self.limbs[L - 1] >> 63 == 1
    }

    #[inline]
    fn is_zero(&self) -> bool {
        self.limbs.iter().all(|&x| x == 0)
    }

    /// The magnitude's limbs (two's complement undone).
    #[inline]
    fn magnitude(&self) -> [u64; L] {
        if self.is_negative() {
            (-*self).limbs
        } else {
            self.limbs
        }
    }

    /// k·2^unit rounded to the nearest f64, ties to even (as MPFR's `to_f64`); +0 for 0.
    #[inline(always)]
    fn to_f64_at(self, unit: i32) -> f64 {
        // One or two limbs: Rust's int-to-float conversion rounds to nearest, ties to even (one
        // instruction from i64); the scaling by a power of two is exact.
        if L == 1 {
            return (self.limbs[0] as i64 as f64) * pow2(unit);
        }
        if L == 2 {
            let k = (((self.limbs[1] as u128) << 64) | self.limbs[0] as u128) as i128;
            let x = match i64::try_from(k) {
                Ok(k) => k as f64,
                Err(_) => k as f64,
            };
            return x * pow2(unit);
        }
        let neg = self.is_negative();
        let mag = self.magnitude();
        let Some(top) = mag.iter().rposition(|&x| x != 0) else {
            return 0.0;
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
        // value = mant·2^(bit_len − 53 + unit) with 2^52 ≤ mant ≤ 2^53: built from its bits,
        // the exponent field of mant/2^52 being bit_len + unit − 1 + 1023. Adding mant (with
        // its leading one) to the field one below carries exactly; a rounding carry to 2^53
        // moves to the next binade. Always normal: 2^-149 ≤ |value| < 2^(64·L + unit).
        let field = (bit_len + unit - 1 + 1023 - 1) as u64;
        f64::from_bits(((neg as u64) << 63) | ((field << 52) + mant))
    }

    /// k·2^unit rounded to odd at 53 bits: truncated to an f64, whose last bit is then set if
    /// anything was dropped. Rounding that to f32 (to nearest, ties to even, with subnormals
    /// and overflow as IEEE has them) is the correct rounding of k·2^unit itself, since 53 ≥
    /// 24 + 2 (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved
    /// algorithms using rounding to odd", IEEE TC 57(4), 2008).
    fn to_f64_odd_at(self, unit: i32) -> f64 {
        let neg = self.is_negative();
        let mag = self.magnitude();
        let Some(top) = mag.iter().rposition(|&x| x != 0) else {
            return 0.0;
        };
        let below = if top == 0 { 0 } else { mag[top - 1] };
        let lz = mag[top].leading_zeros();
        let window = (((mag[top] as u128) << 64) | below as u128) << lz;
        let (head, dropped) = ((window >> 64) as u64, window as u64);
        let lower_nonzero = mag[..top.saturating_sub(1)].iter().any(|&x| x != 0);
        let bit_len = 64 * top as i32 + 64 - lz as i32;
        let sticky = head & 0x7ff != 0 || dropped != 0 || lower_nonzero;
        let mant = (head >> 11) | sticky as u64;
        // As in `to_f64_at`, without a rounding carry: mant < 2^53 keeps its binade.
        let field = (bit_len + unit - 1 + 1023 - 1) as u64;
        f64::from_bits(((neg as u64) << 63) | ((field << 52) + mant))
    }

    /// k·2^unit rounded to the nearest f32, ties to even; ±∞ beyond f32's range, as IEEE
    /// rounding gives; +0 for 0.
    #[inline]
    fn to_f32_at(self, unit: i32) -> f32 {
        self.to_f64_odd_at(unit) as f32
    }

    /// The same value on [`ExactSum`]'s scale (unit 2^-149, five limbs).
    fn widen(&self, unit: i32) -> Fixed<LIMBS> {
        let shift = (unit - UNIT_EXP) as u32; // ≥ 0: no f32 has a bit below 2^-149
        let (at, r) = ((shift / 64) as usize, shift % 64);
        let mag = self.magnitude();
        let mut limbs = [0u64; LIMBS];
        for i in 0..=L {
            let word = if i < L { mag[i] << r } else { 0 };
            let below = if r == 0 || i == 0 {
                0
            } else {
                mag[i - 1] >> (64 - r)
            };
            if word | below != 0 {
                limbs[at + i] = word | below;
            }
        }
        let f = Fixed { limbs };
        if self.is_negative() { -f } else { f }
    }
}

impl<const L: usize> Fixed<L> {
    /// The two's-complement integer k of 32-bit limbs (least significant first) times
    /// 2^shift; it must fit.
    fn from_limbs_u32(k: &[u32], shift: usize) -> Fixed<L> {
        let negative = k.last().is_some_and(|&top| top >> 31 == 1);
        let mut limbs = [0u64; L];
        let mut carry = u32::from(negative);
        for (i, &x) in k.iter().enumerate() {
            // The magnitude's limb i, placed at bit 32·i + shift.
            let x = if negative { !x } else { x };
            let m = x.wrapping_add(carry);
            carry = u32::from(m < carry);
            if m == 0 {
                continue;
            }
            let at = 32 * i + shift;
            let (limb, off) = (at / 64, at % 64);
            limbs[limb] |= (m as u64) << off;
            let spill = if off > 32 {
                (m as u64) >> (64 - off)
            } else {
                0
            };
            if spill != 0 {
                limbs[limb + 1] |= spill;
            }
        }
        let f = Fixed { limbs };
        if negative { -f } else { f }
    }
}

impl<const L: usize> Neg for Fixed<L> {
    type Output = Fixed<L>;
    /// Two's-complement negation.
    #[inline]
    fn neg(self) -> Fixed<L> {
        let mut limbs = [0u64; L];
        let mut carry = true;
        for (o, &x) in limbs.iter_mut().zip(&self.limbs) {
            let (y, c) = (!x).overflowing_add(carry as u64);
            *o = y;
            carry = c;
        }
        Fixed { limbs }
    }
}

impl<const L: usize> Add for Fixed<L> {
    type Output = Fixed<L>;
    /// Limb by limb with carry (the `|` merges the two carries, at most one of which is set).
    #[inline]
    #[allow(clippy::suspicious_arithmetic_impl)]
    fn add(self, rhs: Fixed<L>) -> Fixed<L> {
        let mut limbs = [0u64; L];
        let mut carry = false;
        for ((o, &a), &b) in limbs.iter_mut().zip(&self.limbs).zip(&rhs.limbs) {
            let (x, c1) = a.overflowing_add(b);
            let (x, c2) = x.overflowing_add(carry as u64);
            *o = x;
            carry = c1 | c2;
        }
        Fixed { limbs }
    }
}

impl<const L: usize> Sub for Fixed<L> {
    type Output = Fixed<L>;
    #[inline]
    fn sub(self, rhs: Fixed<L>) -> Fixed<L> {
        self + -rhs
    }
}

/// 2^e as an f64 (normal: −1022 ≤ e ≤ 1023).
#[inline]
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

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

    /// k·2^unit for k a two's-complement integer of 32-bit limbs (least significant first),
    /// as the GPU's exact scan leaves it; `unit` ≥ −149 and |k|·2^unit below 2^170, as any
    /// sum of up to 2^31 f32 values is. A zero is +0.
    pub fn from_limbs_u32(k: &[u32], unit: i32) -> ExactSum {
        ExactSum {
            fixed: Fixed::from_limbs_u32(k, (unit - UNIT_EXP) as usize),
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
/// `limbs` (1 to 4) enough for any sum of a subset of them with a spare sign bit. Applies
/// unless the terms need [`ExactSum`]'s full range (a span too wide), hold a non-finite value
/// or a −0 (whose sign rules [`ExactSum`] keeps). Values, roundings and differences are
/// exactly [`ExactSum`]'s (tested against it and MPFR).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    unit: i32,
    limbs: usize,
}

impl Scale {
    /// The scale of sums of `terms`, or None when they need [`ExactSum`].
    pub fn for_terms(terms: &[f32]) -> Option<Scale> {
        let (mut low, mut high) = (i32::MAX, i32::MIN);
        for &x in terms {
            if !x.is_finite() || x.to_bits() == 0x8000_0000 {
                return None;
            }
            if let Some((l, h, _)) = bit_range(x) {
                low = low.min(l);
                high = high.max(h);
            }
        }
        if low == i32::MAX {
            return Some(Scale { unit: 0, limbs: 1 }); // all +0
        }
        // n terms below 2^high each: |Σ| < n·2^high ≤ 2^(count_bits + high); plus a sign bit
        // and a spare one, so that the difference of two such values cannot overflow.
        let count_bits = (usize::BITS - terms.len().leading_zeros()) as i32;
        let bits = high - low + count_bits + 2;
        let limbs = (bits as usize).div_ceil(64);
        (limbs < LIMBS).then_some(Scale { unit: low, limbs })
    }

    /// Limbs of this scale's [`Fixed`] (1 to 4).
    pub fn limbs(self) -> usize {
        self.limbs
    }

    /// The exact value of `x` (one of the terms the scale was made for).
    #[inline]
    pub fn term<const L: usize>(self, x: f32) -> Fixed<L> {
        debug_assert_eq!(L, self.limbs);
        Fixed::from_f32_at(x, self.unit)
    }

    /// k·2^unit (k as [`ExactSum::from_limbs_u32`] takes it, `unit` ≥ this scale's) on this
    /// scale: a sum of the terms the scale was made for, computed elsewhere (the GPU).
    pub fn from_limbs_u32<const L: usize>(self, k: &[u32], unit: i32) -> Fixed<L> {
        debug_assert_eq!(L, self.limbs);
        Fixed::from_limbs_u32(k, (unit - self.unit) as usize)
    }

    /// `x` on this scale if it is a multiple of its unit below 2^(64·L − 2 + unit).
    #[inline]
    fn fits<const L: usize>(self, x: f32) -> Option<Fixed<L>> {
        if !x.is_finite() {
            return None;
        }
        match bit_range(x) {
            None => Some(Fixed::ZERO),
            Some((low, high, _)) => (low >= self.unit && high - self.unit <= 64 * L as i32 - 2)
                .then(|| Fixed::from_f32_at(x, self.unit)),
        }
    }

    /// k·2^unit rounded to the nearest f64, ties to even.
    #[inline]
    pub fn to_f64<const L: usize>(self, k: Fixed<L>) -> f64 {
        k.to_f64_at(self.unit)
    }

    /// k·2^unit rounded to the nearest f32, ties to even (±∞ beyond f32's range).
    #[inline]
    pub fn to_f32<const L: usize>(self, k: Fixed<L>) -> f32 {
        k.to_f32_at(self.unit)
    }

    /// k·2^unit as an [`ExactSum`].
    pub fn to_exact<const L: usize>(self, k: Fixed<L>) -> ExactSum {
        ExactSum {
            fixed: k.widen(self.unit),
            special: 0.0,
        }
    }

    /// `computed − k·2^unit`, rounded to the nearest f64: on this scale when `computed` fits
    /// it (the usual case), else through [`ExactSum`]. Equal to
    /// `(ExactSum::from_f32(computed) − self.to_exact(k)).to_f64()` up to the sign of zero.
    #[inline]
    pub fn diff_f64<const L: usize>(self, computed: f32, k: Fixed<L>) -> f64 {
        match self.fits::<L>(computed) {
            // Both below 2^(64·L − 2) in magnitude: the difference cannot overflow.
            Some(c) => (c - k).to_f64_at(self.unit),
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
        let Some(scale) = Scale::for_terms(values) else {
            return 0;
        };
        match scale.limbs() {
            1 => check_at::<1>(scale, values, fixed),
            2 => check_at::<2>(scale, values, fixed),
            3 => check_at::<3>(scale, values, fixed),
            4 => check_at::<4>(scale, values, fixed),
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
        let limbs = |k: i32| Scale::for_terms(&[2f32.powi(k), f32::from_bits(1)]).map(Scale::limbs);
        assert_eq!((limbs(102), limbs(103)), (Some(4), None));
        assert_eq!(Scale::for_terms(&[1.0, 3.0]).map(Scale::limbs), Some(1));
        assert!(Scale::for_terms(&[1.0, -0.0]).is_none());
        assert!(Scale::for_terms(&[1.0, f32::INFINITY]).is_none());
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

    /// The GPU's limbs read back: every value of a random sum, at several units, equals the
    /// sum itself.
    #[test]
    fn from_limbs_u32_is_the_value() {
        let mut rng = crate::rng(17);
        use rand::RngExt;
        for unit in [-149, -100, -20, 0, 30] {
            for _ in 0..500 {
                let limbs = rng.random_range(1..=10usize);
                let mut k: Vec<u32> = (0..limbs).map(|_| rng.random::<u32>()).collect();
                // Keep |k|·2^unit within the documented range.
                // Whole limbs below 2^(169 − unit): the rest is sign extension.
                let top = ((169 - unit) / 32 * 32).clamp(32, 32 * limbs as i32) as usize;
                let fill = if rng.random_bool(0.5) { u32::MAX } else { 0 };
                for (i, x) in k.iter_mut().enumerate() {
                    if 32 * i >= top {
                        *x = fill;
                    }
                }
                let mut want = Float::with_val(EXACT_PREC + 64, 0);
                for (i, &x) in k.iter().enumerate() {
                    want += Float::with_val(64, x) << (32 * i as u32);
                }
                if k.last().unwrap() >> 31 == 1 {
                    want -= Float::with_val(8, 1) << (32 * limbs as u32);
                }
                want <<= unit;
                let got = ExactSum::from_limbs_u32(&k, unit).to_float();
                assert_eq!(got, want, "{k:x?} at 2^{unit}");
            }
        }
        assert_eq!(ExactSum::from_limbs_u32(&[0, 0], -3).to_f64().to_bits(), 0);
    }
}
