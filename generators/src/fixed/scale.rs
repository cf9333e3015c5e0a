//! The one scale rule: the fixed point of one weight vector (or of the weights of a forest),
//! for the CPU's limbs of 64 bits and the GPU's words of 32.
//!
//! The unit is 2^low, low the exponent of the lowest bit any nonzero weight has, and every
//! weight is below 2^high. A treefix result (a path sum or a subtree sum) adds at most n
//! weights: |result| < n·2^high ≤ 2^(b + high), b the bit length of n, i.e. an integer of
//! high − low + b bits, plus a sign bit: [`Scale::bits`]. Every prefix of an Euler-tour scan
//! is such a sum too (rootfix's ±w pairs cancel), and so is every partial sum of a walk along
//! the tree. f32's whole range (2^-149 … 2^128, 277 bits) with 2^31 vertices needs 310 bits.
//!
//! - The GPU's exact scan stores [`Scale::gpu_words`] words of 32 bits (at most
//!   [`MAX_GPU_WORDS`] = 10) and wraps modulo 2^(32·words); a wrapped intermediate could not
//!   change a result that fits.
//! - The CPU holds [`Scale::limbs`] limbs of 64 bits (at most [`MAX_LIMBS`] = 5), with one
//!   spare bit, so that the difference of a result and a computed f32 on the same scale
//!   cannot overflow ([`Scale::diff_f64`]).

use super::{Fixed, bit_range};

/// 64-bit limbs enough for f32's whole range and up to 2^31 vertices (310 bits and a spare).
pub const MAX_LIMBS: usize = 5;
/// 32-bit words of the GPU's exact scan enough for the same (310 bits).
pub const MAX_GPU_WORDS: usize = 10;

/// `k` (two's complement, 32-bit words, least significant first) shifted right by `bits`,
/// sign-extended, into `out` (as many words as `k`).
fn shift_right(k: &[u32], bits: usize, out: &mut [u32]) {
    let sign = if k.last().is_some_and(|&top| top >> 31 == 1) {
        u32::MAX
    } else {
        0
    };
    let word = |i: usize| k.get(i).copied().unwrap_or(sign);
    let (q, r) = (bits / 32, bits % 32);
    for (i, o) in out.iter_mut().enumerate() {
        *o = match r {
            0 => word(i + q),
            _ => (word(i + q) >> r) | (word(i + q + 1) << (32 - r)),
        };
    }
}

/// The fixed point of one weight vector: its unit's exponent and the bits its results need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    pub(super) unit: i32,
    pub(super) bits: u32,
}

impl Scale {
    /// The scale of the treefix results of `w` (one weight per vertex), or None if a weight is
    /// not finite (it has no fixed point). −0 and +0 are both the integer 0.
    pub fn for_weights(w: &[f32]) -> Option<Scale> {
        Scale::for_parts(&[w])
    }

    /// One scale for the weights of several trees scanned together (a forest on the GPU),
    /// without joining them: their results are sums of at most all of them.
    pub fn for_parts(parts: &[&[f32]]) -> Option<Scale> {
        // The smallest and largest magnitudes of the nonzero weights give the smallest and
        // largest exponent fields (a subnormal's counting as 1, its ulp being a normal's of
        // field 1); eight lanes of comparisons without a branch, which vectorise. A
        // non-finite weight is an infinite magnitude or a NaN, which no comparison holds.
        const LANES: usize = 8;
        let (mut lo, mut hi) = ([f32::INFINITY; LANES], [0f32; LANES]);
        let mut finite = [true; LANES];
        let mut lane = |i: usize, x: f32| {
            let a = x.abs();
            finite[i] &= a < f32::INFINITY;
            hi[i] = if a > hi[i] { a } else { hi[i] };
            let a = if a == 0.0 { f32::INFINITY } else { a };
            lo[i] = if a < lo[i] { a } else { lo[i] };
        };
        for w in parts {
            let chunks = w.chunks_exact(LANES);
            let rest = chunks.remainder();
            for c in chunks {
                for (i, &x) in c.iter().enumerate() {
                    lane(i, x);
                }
            }
            for (i, &x) in rest.iter().enumerate() {
                lane(i, x);
            }
        }
        if finite.contains(&false) {
            return None;
        }
        let lo = lo.into_iter().fold(f32::INFINITY, f32::min);
        let hi = hi.into_iter().fold(0.0, f32::max);
        if lo == f32::INFINITY {
            return Some(Scale { unit: 0, bits: 1 }); // every weight ±0
        }
        let field = |a: f32| (a.to_bits() >> 23).max(1);
        let (lowest, highest) = (field(lo), field(hi));
        // bit_range: low = field − 150, high = field − 126.
        let (low, high) = (lowest as i32 - 150, highest as i32 - 126);
        let n: usize = parts.iter().map(|w| w.len()).sum();
        let count_bits = usize::BITS - n.leading_zeros();
        let bits = (high - low) as u32 + count_bits + 1;
        debug_assert!(bits as usize <= 32 * MAX_GPU_WORDS);
        Some(Scale { unit: low, bits })
    }

    /// The value of the integer 1 is 2^unit.
    pub fn unit(self) -> i32 {
        self.unit
    }

    /// Bits of every result's two's-complement integer, sign included.
    pub fn bits(self) -> u32 {
        self.bits
    }

    /// 64-bit limbs of the CPU's [`Fixed`] (1 to [`MAX_LIMBS`]): the bits and a spare one.
    pub fn limbs(self) -> usize {
        (self.bits as usize + 1).div_ceil(64)
    }

    /// 32-bit words of the GPU's exact scan (1 to [`MAX_GPU_WORDS`]; its shader's `LIMBS`).
    pub fn gpu_words(self) -> usize {
        (self.bits as usize).div_ceil(32)
    }

    /// The exact value of `x` (one of the weights the scale was made for).
    #[inline(always)]
    pub fn term<const L: usize>(self, x: f32) -> Fixed<L> {
        Fixed::from_finite_f32_at(x, self.unit)
    }

    /// k·2^unit from the GPU's serialised form (32-bit words, least significant first, two's
    /// complement; at most [`MAX_GPU_WORDS`]) on this scale: a sum of the weights the scale was
    /// made for, computed elsewhere. `unit` may be finer than this scale's (a forest's scan,
    /// whose lowest weight lies in another tree): the sum is a multiple of this scale's unit,
    /// so the bits shifted out are zeros.
    pub fn from_words_u32<const L: usize>(self, k: &[u32], unit: i32) -> Fixed<L> {
        if unit >= self.unit {
            return Fixed::from_words_u32(k, (unit - self.unit) as usize);
        }
        let mut shifted = [0u32; MAX_GPU_WORDS];
        let shifted = &mut shifted[..k.len()];
        shift_right(k, (self.unit - unit) as usize, shifted);
        Fixed::from_words_u32(shifted, 0)
    }

    /// `x` on this scale if it is a multiple of its unit below 2^(64·L − 2 + unit).
    #[inline]
    pub(crate) fn fits<const L: usize>(self, x: f32) -> Option<Fixed<L>> {
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

    /// k·2^unit rounded to the nearest f64 and to the nearest f32, and whether the f32
    /// rounding changed the value ([`Fixed::roundings_at`]).
    #[inline]
    pub fn roundings<const L: usize>(self, k: Fixed<L>) -> (f64, f32, bool) {
        k.roundings_at(self.unit)
    }

    /// [`Scale::to_f32`], and whether the rounding changed the value.
    #[inline]
    pub fn round_f32<const L: usize>(self, k: Fixed<L>) -> (f32, bool) {
        k.round_f32_at(self.unit)
    }
}
