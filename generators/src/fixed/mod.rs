//! The toolkit's one fixed-point number: k·2^unit with k an L-limb two's-complement integer
//! (64-bit limbs, least significant first, L a const generic). The exact reference, the exact
//! treefix, [`ExactSum`](crate::exact_sum::ExactSum) (L = 5 at 2^-149) and the read of the
//! GPU's exact scan all hold their values in it; the GPU's 32-bit words are only its
//! serialised form ([`Fixed::from_words_u32`], [`Fixed::to_words_u32`]).
//!
//! Every finite f32 is an integer multiple of its ulp, so a set of f32 terms has a common unit
//! (the lowest bit any of them has) and every sum of them is an integer in that unit:
//! additions are integer additions with carry, exact and associative. The unit is kept by
//! whoever holds the value ([`Scale`] for one weight vector). Conversions round as MPFR does
//! (to nearest, ties to even).

mod binary64;
mod scale;

pub use binary64::{MAX_F64_LIMBS, bit_range_f64};
pub use scale::{MAX_GPU_WORDS, MAX_LIMBS, Scale};

use std::ops::{Add, Neg, Sub};

/// k·2^unit with k an L-limb two's-complement integer (64-bit limbs, least significant
/// first); the unit is kept by whoever holds the value.
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

/// 2^e as an f64 (normal: −1022 ≤ e ≤ 1023).
#[inline]
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

impl<const L: usize> Default for Fixed<L> {
    fn default() -> Self {
        Fixed::ZERO
    }
}

impl<const L: usize> Fixed<L> {
    pub const ZERO: Fixed<L> = Fixed { limbs: [0; L] };

    /// [`Fixed::from_f32_at`] for a finite `x`, without a branch (on the exponent's
    /// subnormal and zero cases): the terms of a walk.
    #[inline(always)]
    pub fn from_finite_f32_at(x: f32, unit: i32) -> Fixed<L> {
        debug_assert!(x.is_finite());
        let bits = x.to_bits();
        let biased = (bits >> 23) & 0xff;
        // A subnormal's (and a zero's) significand has no implicit one and the exponent of
        // field 1; a zero's is 0, and so is its integer (its shift, which may be below the
        // unit, clamped to 0).
        let m = (bits & 0x7f_ffff) | ((biased != 0) as u32) << 23;
        let shift = (biased.max(1) as i32 - 150 - unit).max(0) as u32;
        Self::signed(m as u64, shift, ((bits as i32) >> 31) as i64)
    }

    /// (m·2^shift ^ s) − s: m·2^shift, negated where s is all ones (m below 2^53).
    #[inline(always)]
    fn signed(m: u64, shift: u32, s: i64) -> Fixed<L> {
        if L == 1 {
            let k = (m as i64) << shift;
            let mut limbs = [0u64; L];
            limbs[0] = ((k ^ s) - s) as u64;
            return Fixed { limbs };
        }
        if L == 2 {
            let k = (m as i128) << shift;
            let k = (k ^ s as i128) - s as i128;
            let mut limbs = [0u64; L];
            limbs[0] = k as u64;
            limbs[1] = (k >> 64) as u64;
            return Fixed { limbs };
        }
        let wide = (m as u128) << (shift % 64);
        let at = (shift / 64) as usize;
        // Every limb chosen by comparison rather than stored at a computed index: the loop
        // unrolls into selects and the value stays in registers. The sign as above: every
        // limb complemented, then one added with carry.
        let (lo, hi) = (wide as u64, (wide >> 64) as u64);
        let s = s as u64;
        let mut limbs = [0u64; L];
        let mut carry = s & 1;
        for (i, limb) in limbs.iter_mut().enumerate() {
            let x = if i == at {
                lo
            } else if i == at + 1 {
                hi
            } else {
                0
            };
            let (y, c) = (x ^ s).overflowing_add(carry);
            *limb = y;
            carry = c as u64;
        }
        Fixed { limbs }
    }

    /// A finite `x` in units of 2^unit; its lowest bit must not be below the unit, nor its
    /// magnitude reach 2^(64·L − 1 + unit).
    #[inline(always)]
    pub fn from_f32_at(x: f32, unit: i32) -> Fixed<L> {
        let Some((low, _, m)) = bit_range(x) else {
            return Fixed::ZERO;
        };
        let shift = (low - unit) as u32;
        // The sign applied without a branch: the signs of ill-conditioned weights are random,
        // and a mispredicted branch per term cost more than the rest of the addition.
        Self::signed(m as u64, shift, ((x.to_bits() as i32) >> 31) as i64)
    }

    /// The limbs, least significant first (two's complement).
    pub fn limbs(&self) -> &[u64; L] {
        &self.limbs
    }

    #[inline]
    pub fn is_negative(&self) -> bool {
        self.limbs[L - 1] >> 63 == 1
    }

    #[inline]
    pub fn is_zero(&self) -> bool {
        self.limbs.iter().all(|&x| x == 0)
    }

    /// The magnitude's limbs (two's complement undone).
    #[inline]
    pub(crate) fn magnitude(&self) -> [u64; L] {
        if self.is_negative() {
            (-*self).limbs
        } else {
            self.limbs
        }
    }

    /// k as an i128 when it fits one (always for L ≤ 2: the fast paths below).
    #[inline(always)]
    fn small(&self) -> Option<i128> {
        if L == 1 {
            return Some(self.limbs[0] as i64 as i128);
        }
        let low = ((self.limbs[1] as u128) << 64 | self.limbs[0] as u128) as i128;
        let extension = (low >> 127) as u64;
        self.limbs[2..]
            .iter()
            .all(|&x| x == extension)
            .then_some(low)
    }

    /// |k| of a k that fits an i128, normalised: its leading 64 bits (the leading one at bit
    /// 63, or 0 for k = 0), whether any bit below them is set, and the exponent of bit 0 of
    /// those 64 (|k| = top·2^e when nothing is below).
    #[inline(always)]
    fn normalised(k: i128) -> (u64, bool, i32) {
        let mag = k.unsigned_abs();
        let lz = mag.leading_zeros();
        let norm = mag.wrapping_shl(lz);
        ((norm >> 64) as u64, norm as u64 != 0, 64 - lz as i32)
    }

    /// (top, below, e) of [`Fixed::normalised`] rounded to odd at 64 − `spare` bits, times
    /// 2^unit, as an f64 (exact: fewer than 54 bits) with the sign of k.
    #[inline(always)]
    fn odd_f64((top, below, e): (u64, bool, i32), spare: u32, unit: i32, negative: bool) -> f64 {
        let dropped = (top & ((1u64 << spare) - 1) != 0) | below;
        let m = (top >> spare) | dropped as u64;
        // m < 2^(64 − spare) ≤ 2^55: exact through i64, and in f64 once rounded by the
        // conversion (at most 53 bits); the scaling by a power of two is exact (the value is
        // at least 2^-149, far from f64's subnormals). The sign set without a branch (random
        // signs mispredict).
        let x = (m as i64 as f64) * pow2(e + spare as i32 + unit);
        f64::from_bits(x.to_bits() | (negative as u64) << 63)
    }

    /// k·2^unit rounded to the nearest f64 and (through rounding to odd) to the nearest f32,
    /// ties to even, with whether the f32 rounding changed the value: one normalisation for
    /// all three. As [`Fixed::to_f64_at`] and [`Fixed::round_f32_at`].
    #[inline(always)]
    pub fn roundings_at(self, unit: i32) -> (f64, f32, bool) {
        match self.small() {
            Some(k) => {
                let n = Self::normalised(k);
                let odd = Self::odd_f64(n, 11, unit, k < 0);
                let x = odd as f32;
                (Self::odd_f64(n, 9, unit, k < 0), x, x as f64 != odd)
            }
            None => {
                let (x, inexact) = self.round_f32_at(unit);
                (self.to_f64_at(unit), x, inexact)
            }
        }
    }

    /// The leading 64 bits of the magnitude `mag` (leading one at bit 63), whether any bit below
    /// them is set, and the magnitude's bit length; None for 0.
    #[inline]
    fn head(mag: &[u64; L]) -> Option<(u64, bool, i32)> {
        let top = mag.iter().rposition(|&x| x != 0)?;
        let below = if top == 0 { 0 } else { mag[top - 1] };
        let lz = mag[top].leading_zeros();
        let window = (((mag[top] as u128) << 64) | below as u128) << lz;
        let (head, dropped) = ((window >> 64) as u64, window as u64);
        let lower_nonzero = mag[..top.saturating_sub(1)].iter().any(|&x| x != 0);
        let bit_len = 64 * top as i32 + 64 - lz as i32;
        Some((head, dropped != 0 || lower_nonzero, bit_len))
    }

    /// k·2^unit rounded to the nearest f64, ties to even (as MPFR's `to_f64`); +0 for 0.
    #[inline(always)]
    pub fn to_f64_at(self, unit: i32) -> f64 {
        if let Some(k) = self.small() {
            // Rounded to odd at 55 bits, then by the int-to-float conversion to nearest at 53:
            // rounding to odd with two more bits than the target, then to nearest, is the
            // rounding to nearest (Boldo & Melquiond, below).
            return Self::odd_f64(Self::normalised(k), 9, unit, k < 0);
        }
        let neg = self.is_negative();
        let Some((head, below, bit_len)) = Self::head(&self.magnitude()) else {
            return 0.0;
        };
        // Round to 53 bits, to nearest, ties to even (a value of at most 53 bits has nothing
        // below them and stays exact).
        let mut mant = head >> 11;
        let round = (head >> 10) & 1 == 1;
        let sticky = head & 0x3ff != 0 || below;
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
    #[inline]
    pub fn to_f64_odd_at(self, unit: i32) -> f64 {
        if let Some(k) = self.small() {
            return Self::odd_f64(Self::normalised(k), 11, unit, k < 0);
        }
        let neg = self.is_negative();
        let Some((head, below, bit_len)) = Self::head(&self.magnitude()) else {
            return 0.0;
        };
        let sticky = head & 0x7ff != 0 || below;
        let mant = (head >> 11) | sticky as u64;
        // As in `to_f64_at`, without a rounding carry: mant < 2^53 keeps its binade.
        let field = (bit_len + unit - 1 + 1023 - 1) as u64;
        f64::from_bits(((neg as u64) << 63) | ((field << 52) + mant))
    }

    /// k·2^unit rounded to the nearest f32, ties to even; ±∞ beyond f32's range, as IEEE
    /// rounding gives (from 2^128·(1 − 2^-25) on); subnormal results as IEEE has them; +0
    /// for 0. With whether the rounding changed the value (a result beyond range did).
    #[inline]
    pub fn round_f32_at(self, unit: i32) -> (f32, bool) {
        let odd = self.to_f64_odd_at(unit);
        let x = odd as f32;
        // A value rounded to odd that was inexact has its 53rd bit set, which no f32 has.
        (x, x as f64 != odd)
    }

    /// k·2^unit rounded to the nearest f32, ties to even (see [`Fixed::round_f32_at`]).
    #[inline]
    pub fn to_f32_at(self, unit: i32) -> f32 {
        self.to_f64_odd_at(unit) as f32
    }

    /// The same integer times 2^shift, in M limbs (it must fit them).
    pub fn widen<const M: usize>(&self, shift: u32) -> Fixed<M> {
        let (at, r) = ((shift / 64) as usize, shift % 64);
        let mag = self.magnitude();
        let mut limbs = [0u64; M];
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

    /// From the serialised form of the GPU's exact scan: the two's-complement integer of the
    /// 32-bit words `k` (least significant first) times 2^shift; it must fit L limbs.
    pub fn from_words_u32(k: &[u32], shift: usize) -> Fixed<L> {
        let negative = k.last().is_some_and(|&top| top >> 31 == 1);
        let mut limbs = [0u64; L];
        let mut carry = u32::from(negative);
        for (i, &x) in k.iter().enumerate() {
            // The magnitude's word i, placed at bit 32·i + shift.
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

    /// The serialised form: `out.len()` 32-bit words, least significant first, the integer
    /// modulo 2^(32·out.len()) (sign-extended past the limbs).
    pub fn to_words_u32(&self, out: &mut [u32]) {
        let extension = if self.is_negative() { u32::MAX } else { 0 };
        for (i, o) in out.iter_mut().enumerate() {
            *o = match self.limbs.get(i / 2) {
                Some(&limb) => (limb >> (32 * (i % 2))) as u32,
                None => extension,
            };
        }
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
    /// Limb by limb with carry (the `|` merges the two carries, at most one of which is set),
    /// modulo 2^(64·L).
    #[inline(always)]
    #[allow(clippy::suspicious_arithmetic_impl)]
    fn add(self, rhs: Fixed<L>) -> Fixed<L> {
        let mut limbs = [0u64; L];
        if L == 1 {
            limbs[0] = self.limbs[0].wrapping_add(rhs.limbs[0]);
            return Fixed { limbs };
        }
        if L == 2 {
            let a = ((self.limbs[1] as u128) << 64) | self.limbs[0] as u128;
            let b = ((rhs.limbs[1] as u128) << 64) | rhs.limbs[0] as u128;
            let s = a.wrapping_add(b);
            limbs[0] = s as u64;
            limbs[1] = (s >> 64) as u64;
            return Fixed { limbs };
        }
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

#[cfg(test)]
mod tests;
