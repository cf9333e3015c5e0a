//! The fixed point of f64 weights: every finite f64 is an integer multiple of its ulp (at
//! least 2^-1074), so, as for f32, the sums of a weight vector are integers on the scale of
//! its lowest bit. f64's range needs far more limbs than f32's (2^-1074 … 2^1024 is 2098 bits:
//! [`MAX_F64_LIMBS`]), but the scale takes what the weights span, not the format's worst
//! case: weights within 2^64 of each other, as ill-conditioned sums of up to κ = 1e16 are,
//! fit two or three limbs.
//!
//! The rounding back to f64 is IEEE's to nearest, ties to even, with f64's own subnormals
//! (exact: below 2^-1022 every sum of f64 values is a multiple of 2^-1074 that f64 holds) and
//! overflow (±∞ from (2 − 2^-53)·2^1023 on).

use super::{Fixed, Scale, pow2};

/// 64-bit limbs enough for f64's whole range (2^-1074 … 2^1024) and up to 2^31 vertices, with
/// a sign bit and a spare one: 2098 + 32 + 2 bits.
pub const MAX_F64_LIMBS: usize = 34;

/// The exponents of an f64's lowest bit (its ulp) and of a power of two above |x|:
/// `x = m·2^low`, `|x| < 2^high`, m < 2^53; None for ±0 and non-finite values.
#[inline]
pub fn bit_range_f64(x: f64) -> Option<(i32, i32, u64)> {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0x7ff || bits << 1 == 0 {
        return None;
    }
    let frac = bits & ((1 << 52) - 1);
    Some(if biased == 0 {
        (-1074, -1022, frac)
    } else {
        (biased - 1075, biased - 1022, frac | 1 << 52)
    })
}

impl<const L: usize> Fixed<L> {
    /// A finite f64 `x` in units of 2^unit; its lowest bit must not be below the unit, nor its
    /// magnitude reach 2^(64·L − 1 + unit).
    #[inline(always)]
    pub fn from_f64_at(x: f64, unit: i32) -> Fixed<L> {
        let Some((low, _, m)) = bit_range_f64(x) else {
            return Fixed::ZERO;
        };
        // The sign applied without a branch, as for f32 terms.
        Self::signed(m, (low - unit) as u32, (x.to_bits() as i64) >> 63)
    }

    /// k·2^unit rounded to the nearest f64, ties to even: ±∞ from the overflow threshold on,
    /// subnormal results exact (for a unit of at least 2^-1074, the scale of f64 weights), +0
    /// for 0. [`Fixed::to_f64_at`] is the same rounding for units of f32 weights, whose sums
    /// stay far inside f64's range.
    #[inline]
    pub fn round_f64_at(self, unit: i32) -> f64 {
        if let Some(k) = self.small() {
            let (top, below, e) = Self::normalised(k);
            // Rounded to odd at 55 bits, then to nearest at 53 by the integer's conversion,
            // then scaled by a power of two: exact where that power and the result are
            // normal (an overflow of the product is IEEE's own ±∞).
            if (-1022..=1023).contains(&(e + 9 + unit)) {
                return Self::odd_f64((top, below, e), 9, unit, k < 0);
            }
        }
        if L >= 3
            && let Some(x) = self.round_top_limbs(unit)
        {
            return x;
        }
        let sign = (self.is_negative() as u64) << 63;
        let mag = self.magnitude();
        let Some((head, below, bit_len)) = Self::head(&mag) else {
            return 0.0;
        };
        // The exponent of the leading bit: the value lies in [2^top, 2^(top + 1)).
        let top = bit_len + unit - 1;
        if top > 1023 {
            return f64::from_bits(sign | f64::INFINITY.to_bits());
        }
        if top < -1022 {
            // Below the normal range the value is a multiple of 2^-1074 under 2^-1022: fewer
            // than 53 bits of one limb, which are f64's subnormal field itself.
            debug_assert!(unit >= -1074, "a unit below f64's finest quantum");
            return f64::from_bits(sign | mag[0] << (unit + 1074));
        }
        // Rounded to 53 bits, ties to even; the carry of a rounding up moves to the next
        // binade, from 2^1023's to ±∞ (the field 2047 with a zero fraction).
        let mut mant = head >> 11;
        let round = (head >> 10) & 1 == 1;
        let sticky = head & 0x3ff != 0 || below;
        if round && (sticky || mant & 1 == 1) {
            mant += 1;
        }
        let field = (top + 1023 - 1) as u64;
        f64::from_bits(sign | ((field << 52) + mant))
    }
}

impl<const L: usize> Fixed<L> {
    /// [`Fixed::round_f64_at`] from the two top limbs alone, where they hold 56 bits or more of
    /// the magnitude and the result is a normal f64 (None otherwise): the lower limbs only
    /// decide the sticky bit. The wide sums of f64 weights (three limbs and more) round here
    /// without forming their magnitude.
    #[inline(always)]
    fn round_top_limbs(self, unit: i32) -> Option<f64> {
        let hi = ((self.limbs[L - 1] as u128) << 64 | self.limbs[L - 2] as u128) as i128;
        let below = self.limbs[..L - 2].iter().any(|&x| x != 0);
        // ⌊|k| / 2^(64·(L − 2))⌋ and whether anything is left: for a negative k with a
        // nonzero remainder, |k| = (−hi − 1)·2^(64·(L−2)) + (2^(64·(L−2)) − low).
        let (top, sticky) = match (hi < 0, below) {
            (false, _) => (hi as u128, below),
            (true, false) => (hi.unsigned_abs(), false),
            (true, true) => (!hi as u128, true),
        };
        if top < 1 << 55 {
            return None;
        }
        let lz = top.leading_zeros();
        let norm = top << lz;
        // 55 bits rounded to odd, then to nearest at 53 by the conversion (Boldo & Melquiond).
        let dropped = (norm << 55 != 0) | sticky;
        let m = (norm >> 73) as u64 | dropped as u64;
        let e = (128 - lz as i32) - 55 + 64 * (L as i32 - 2) + unit;
        if !(-1022..=1023).contains(&e) {
            return None;
        }
        let x = m as i64 as f64 * pow2(e);
        Some(f64::from_bits(x.to_bits() | ((hi < 0) as u64) << 63))
    }
}

impl Scale {
    /// The scale of the treefix results of f64 weights `w`, or None if a weight is not finite.
    /// Its [`Scale::limbs`] may exceed [`super::MAX_LIMBS`] (up to [`MAX_F64_LIMBS`]); it has
    /// no GPU words (WGSL has no f64).
    pub fn for_f64_weights(w: &[f64]) -> Option<Scale> {
        // As for f32 weights: the extreme magnitudes of the nonzero weights, in lanes without
        // a branch.
        const LANES: usize = 8;
        let (mut lo, mut hi) = ([f64::INFINITY; LANES], [0f64; LANES]);
        let mut finite = [true; LANES];
        for c in w.chunks(LANES) {
            for (i, &x) in c.iter().enumerate() {
                let a = x.abs();
                finite[i] &= a < f64::INFINITY;
                hi[i] = if a > hi[i] { a } else { hi[i] };
                let a = if a == 0.0 { f64::INFINITY } else { a };
                lo[i] = if a < lo[i] { a } else { lo[i] };
            }
        }
        if finite.contains(&false) {
            return None;
        }
        let lo = lo.into_iter().fold(f64::INFINITY, f64::min);
        let hi = hi.into_iter().fold(0.0, f64::max);
        if lo == f64::INFINITY {
            return Some(Scale { unit: 0, bits: 1 }); // every weight ±0
        }
        let field = |a: f64| ((a.to_bits() >> 52) as i32).max(1);
        // bit_range_f64: low = field − 1075, high = field − 1022.
        let (low, high) = (field(lo) - 1075, field(hi) - 1022);
        let count_bits = usize::BITS - w.len().leading_zeros();
        let bits = (high - low) as u32 + count_bits + 1;
        Some(Scale { unit: low, bits })
    }

    /// The exact value of the f64 `x` (one of the weights the scale was made for).
    #[inline(always)]
    pub fn term_f64<const L: usize>(self, x: f64) -> Fixed<L> {
        Fixed::from_f64_at(x, self.unit)
    }

    /// k·2^unit rounded to the nearest f64 with f64's subnormals and overflow
    /// ([`Fixed::round_f64_at`]).
    #[inline]
    pub fn round_f64<const L: usize>(self, k: Fixed<L>) -> f64 {
        k.round_f64_at(self.unit)
    }
}

#[cfg(test)]
mod tests;
