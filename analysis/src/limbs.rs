//! Two's-complement fixed point on L limbs of 32 bits: the partial sums of the exact Euler-tour
//! scan (`vectorial-exact`). Its GPU twin is `shaders/sum_exact.wgsl`, which performs the same
//! u32 operations (WGSL has no u64 and no add-with-carry, so carries come from comparisons).
//!
//! Integer addition is associative, so a scan of these values gives the same bits whatever its
//! pairing (any scan plan, any tile size): every prefix is exact, and so is a difference of two
//! prefixes. Only the final conversion to f32 rounds, once, to nearest, ties to even.
//!
//! # Scale
//!
//! The weights fix the scale ([`ExactScale::for_weights`]): the unit is 2^low, low the exponent
//! of the lowest bit any nonzero weight has, and every weight is below 2^high. A treefix result
//! (a path sum or a subtree sum) adds at most n weights: |result| < n·2^high ≤ 2^(b + high),
//! b the bit length of n, i.e. an integer of high − low + b bits, plus a sign bit. That many
//! bits, rounded up to whole limbs, hold every result and every prefix the scan forms (each is
//! itself a sum of at most n weights, with the ±w pairs of rootfix cancelled). f32's whole range
//! (2^-149 … 2^128, 277 bits) with 2^31 vertices needs 310 bits: at most [`MAX_LIMBS`] = 10.
//!
//! # Signed zeros and non-finite weights
//!
//! −0 and +0 are the same integer, 0, and an exact zero converts to +0. Non-finite weights have
//! no fixed point: [`ExactScale::for_weights`] refuses them (the readers and weight models never
//! produce them).

use crate::orders::ScanValue;
use generators::exact_sum::bit_range;
use std::ops::{Add, Neg, Sub};

/// Bits per limb.
pub const LIMB_BITS: u32 = 32;
/// Limbs enough for f32's whole range and up to 2^31 − 1 vertices.
pub const MAX_LIMBS: usize = 10;

/// k·2^unit with k an L-limb two's-complement integer, least significant limb first; the unit
/// is kept by the [`ExactScale`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limbs<const L: usize>(pub [u32; L]);

impl<const L: usize> Limbs<L> {
    pub const ZERO: Limbs<L> = Limbs([0; L]);

    #[cfg(test)]
    fn is_negative(&self) -> bool {
        self.0[L - 1] >> 31 == 1
    }
}

impl<const L: usize> Neg for Limbs<L> {
    type Output = Limbs<L>;
    /// Two's-complement negation: every bit flipped, then one added.
    #[inline]
    fn neg(self) -> Limbs<L> {
        let mut out = [0u32; L];
        let mut carry = 1u32;
        for (o, &x) in out.iter_mut().zip(&self.0) {
            let y = (!x).wrapping_add(carry);
            carry = u32::from(y < carry);
            *o = y;
        }
        Limbs(out)
    }
}

impl<const L: usize> Add for Limbs<L> {
    type Output = Limbs<L>;
    /// The sum modulo 2^(32·L), limb by limb; each carry is found by a comparison, as the WGSL
    /// twin must (`x < a` after `x = a + b` wrapped).
    #[inline]
    fn add(self, rhs: Limbs<L>) -> Limbs<L> {
        let mut out = [0u32; L];
        let mut carry = 0u32;
        for ((o, &a), &b) in out.iter_mut().zip(&self.0).zip(&rhs.0) {
            let x = a.wrapping_add(b);
            let c1 = u32::from(x < a);
            let y = x.wrapping_add(carry);
            let c2 = u32::from(y < x);
            *o = y;
            carry = c1 | c2;
        }
        Limbs(out)
    }
}

impl<const L: usize> Sub for Limbs<L> {
    type Output = Limbs<L>;
    #[inline]
    fn sub(self, rhs: Limbs<L>) -> Limbs<L> {
        self + -rhs
    }
}

/// The exact scan's partial sums are scanned with the same generic plan as every other
/// order; `term` is never used (the terms need the scale, see [`ExactScale::term`]).
impl<const L: usize> ScanValue for Limbs<L> {
    fn term(_: f32) -> Self {
        unreachable!("fixed-point terms are made by ExactScale::term")
    }
    #[inline]
    fn zero() -> Self {
        Limbs::ZERO
    }
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        self + rhs
    }
}

/// The fixed point of one weight vector: its unit's exponent and the limbs its results need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExactScale {
    /// The value of the integer 1 is 2^unit.
    pub unit: i32,
    /// 1 ..= [`MAX_LIMBS`].
    pub limbs: usize,
}

impl ExactScale {
    /// The scale of the treefix results of `w` (one weight per vertex), or None if a weight is
    /// not finite.
    pub fn for_weights(w: &[f32]) -> Option<ExactScale> {
        ExactScale::for_parts(&[w])
    }

    /// One scale for the weights of several trees scanned together (a forest on the GPU),
    /// without joining them: their results are sums of at most all of them.
    pub fn for_parts(parts: &[&[f32]]) -> Option<ExactScale> {
        let (mut low, mut high) = (i32::MAX, i32::MIN);
        for &x in parts.iter().flat_map(|w| w.iter()) {
            if !x.is_finite() {
                return None;
            }
            if let Some((l, h, _)) = bit_range(x) {
                low = low.min(l);
                high = high.max(h);
            }
        }
        if low == i32::MAX {
            return Some(ExactScale { unit: 0, limbs: 1 }); // every weight ±0
        }
        let n: usize = parts.iter().map(|w| w.len()).sum();
        let count_bits = (usize::BITS - n.leading_zeros()) as i32;
        let bits = (high - low + count_bits + 1) as usize;
        let limbs = bits.div_ceil(LIMB_BITS as usize);
        debug_assert!(limbs <= MAX_LIMBS);
        Some(ExactScale { unit: low, limbs })
    }

    /// `x` (one of the weights the scale was made for) as an integer multiple of the unit: the
    /// 24-bit significand shifted into place (at most two limbs), negated for a negative x.
    #[inline]
    pub fn term<const L: usize>(self, x: f32) -> Limbs<L> {
        let mut out = [0u32; L];
        let Some((low, _, m)) = bit_range(x) else {
            return Limbs(out);
        };
        let shift = (low - self.unit) as u32;
        let (at, off) = ((shift / LIMB_BITS) as usize, shift % LIMB_BITS);
        out[at] = m << off;
        // m has 24 bits: past an offset of 8 its top spills into the next limb.
        if off > 8 && at + 1 < L {
            out[at + 1] = m >> (LIMB_BITS - off);
        }
        let k = Limbs(out);
        if x.is_sign_negative() { -k } else { k }
    }

    /// k·2^unit rounded to the nearest f32, ties to even; ±∞ beyond f32's range (as IEEE
    /// rounding gives: from 2^128·(1 − 2^-25) on); subnormal results as IEEE has them; +0 for 0.
    pub fn round<const L: usize>(self, k: Limbs<L>) -> f32 {
        round_limbs(&k.0, self.unit).0
    }

    /// [`ExactScale::round`], and whether the rounding changed the value (a result beyond
    /// f32's range did).
    pub fn round_inexact<const L: usize>(self, k: Limbs<L>) -> (f32, bool) {
        round_limbs(&k.0, self.unit)
    }
}

/// Bit `i` of the magnitude `m`.
#[inline]
fn bit(m: &[u32], i: u32) -> u32 {
    (m[(i / LIMB_BITS) as usize] >> (i % LIMB_BITS)) & 1
}

/// Whether any bit of `m` below bit `i` is set.
#[inline]
fn any_below(m: &[u32], i: u32) -> bool {
    let (at, off) = ((i / LIMB_BITS) as usize, i % LIMB_BITS);
    m[..at].iter().any(|&x| x != 0) || (off > 0 && m[at] & ((1u32 << off) - 1) != 0)
}

/// Bits i .. i + 32 of `m` (zeros past its top).
#[inline]
fn window(m: &[u32], i: u32) -> u32 {
    let (at, off) = ((i / LIMB_BITS) as usize, i % LIMB_BITS);
    let mut x = m[at] >> off;
    if off > 0 && at + 1 < m.len() {
        x |= m[at + 1] << (LIMB_BITS - off);
    }
    x
}

/// The rounding of [`ExactScale::round_inexact`] on a limb slice; `sum_round` of
/// `shaders/sum_exact.wgsl` performs the same steps.
fn round_limbs(k: &[u32], unit: i32) -> (f32, bool) {
    let l = k.len();
    let negative = k[l - 1] >> 31 == 1;
    // The magnitude: two's complement undone.
    let mut m = [0u32; MAX_LIMBS];
    let m = &mut m[..l];
    let mut carry = u32::from(negative);
    for (o, &x) in m.iter_mut().zip(k) {
        let x = if negative { !x } else { x };
        let y = x.wrapping_add(carry);
        carry = u32::from(y < carry);
        *o = y;
    }
    let Some(top) = m.iter().rposition(|&x| x != 0) else {
        return (0.0, false);
    };
    let sign = u32::from(negative) << 31;
    // The exponent of the leading bit.
    let length = LIMB_BITS * top as u32 + LIMB_BITS - m[top].leading_zeros();
    let lead = length as i32 - 1 + unit;
    if lead > 127 {
        return (f32::from_bits(sign | 0x7f80_0000), true);
    }
    // The exponent of the result's last bit: 24 bits below the lead, or the subnormals' 2^-149.
    let last = (lead - 23).max(-149);
    let drop = last - unit;
    let (mut significand, inexact) = if drop <= 0 {
        // Nothing dropped: at most 24 bits, all in limb 0.
        (m[0] << (-drop) as u32, false)
    } else {
        let drop = drop as u32;
        let keep = window(m, drop);
        let round = bit(m, drop - 1) == 1;
        let sticky = any_below(m, drop - 1);
        (
            keep + u32::from(round && (sticky || keep & 1 == 1)),
            round || sticky,
        )
    };
    // value = significand·2^last, 2^23 ≤ significand ≤ 2^24 for normal results and below 2^23
    // for subnormal ones (last = −149): the biased exponent field of a normal result is
    // last + 150, and adding the significand with its leading one to the field one below
    // carries into it exactly; a rounding up to 2^24 moves to the next binade, a subnormal
    // rounded up to 2^23 becomes the smallest normal, 2^128 becomes the infinity.
    significand = (((last + 149) as u32) << 23).wrapping_add(significand);
    let overflow = significand >= 0x7f80_0000;
    (
        f32::from_bits(sign | significand.min(0x7f80_0000)),
        inexact || overflow,
    )
}

/// Half the spacing of f32 values at x (for the correctly rounded x̂ = RN(x),
/// |x̂ − x| ≤ half_ulp(x̂)): 2^(e − 24) for 2^e ≤ |x̂| < 2^(e+1), 2^-150 among subnormals.
pub fn half_ulp(x: f32) -> f64 {
    let biased = ((x.to_bits() >> 23) & 0xff) as i32;
    if biased == 0xff {
        return f64::INFINITY;
    }
    2f64.powi(biased.max(1) - 127 - 24)
}

/// Calls `body` with the limb count of `scale` as a const generic.
#[macro_export]
macro_rules! with_limbs {
    ($scale:expr, $l:ident => $body:expr) => {
        match $scale.limbs {
            1 => {
                const $l: usize = 1;
                $body
            }
            2 => {
                const $l: usize = 2;
                $body
            }
            3 => {
                const $l: usize = 3;
                $body
            }
            4 => {
                const $l: usize = 4;
                $body
            }
            5 => {
                const $l: usize = 5;
                $body
            }
            6 => {
                const $l: usize = 6;
                $body
            }
            7 => {
                const $l: usize = 7;
                $body
            }
            8 => {
                const $l: usize = 8;
                $body
            }
            9 => {
                const $l: usize = 9;
                $body
            }
            10 => {
                const $l: usize = 10;
                $body
            }
            l => unreachable!("{l} limbs: more than f32's range needs"),
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Float;

    /// Precision that holds every value here exactly (integers below 2^320, scaled by powers
    /// of two).
    const PREC: u32 = 400;

    /// MPFR's rounding to nearest f32.
    fn mpfr_round(k: &Float) -> f32 {
        k.to_f32_round(rug::float::Round::Nearest)
    }

    /// k·2^unit, exactly, in MPFR.
    fn exact<const L: usize>(k: Limbs<L>, unit: i32) -> Float {
        let mut x = Float::with_val(PREC, 0);
        for (i, &limb) in k.0.iter().enumerate() {
            x += Float::with_val(PREC, limb) << (32 * i as u32);
        }
        if k.is_negative() {
            x -= Float::with_val(PREC, 1) << (32 * L as u32);
        }
        x << unit
    }

    /// Every rounding case: ties to even and odd, sticky bits in lower limbs, subnormal
    /// results, rounding up into the next binade, into the normals, to infinity.
    #[test]
    fn rounding_is_mpfr_rounding() {
        let mut rng = generators::rng(7);
        use rand::RngExt;
        let mut checked = 0;
        for unit in [-149, -140, -100, -30, 0, 20, 60, 90, 100] {
            for _ in 0..4000 {
                // A random integer of random length, with structured low bits: ties and
                // near-ties at 24 bits are where roundings differ.
                let mut k = [0u32; 10];
                let length = rng.random_range(1..=300u32);
                for (i, limb) in k.iter_mut().enumerate() {
                    let start = 32 * i as u32;
                    if start < length {
                        *limb = rng.random::<u32>();
                        if length - start < 32 {
                            *limb &= (1u32 << (length - start)) - 1;
                            *limb |= 1u32 << (length - start - 1);
                        }
                    }
                }
                match rng.random_range(0..4) {
                    0 if length > 26 => {
                        // An exact tie: the bit after the 24 kept ones set, none below.
                        let tie = length - 25;
                        for b in 0..tie {
                            k[(b / 32) as usize] &= !(1u32 << (b % 32));
                        }
                        k[(tie / 32) as usize] |= 1u32 << (tie % 32);
                    }
                    1 if length > 26 => {
                        // All ones below the kept bits: rounds up, often across a binade.
                        for b in 0..length - 24 {
                            k[(b / 32) as usize] |= 1u32 << (b % 32);
                        }
                    }
                    _ => {}
                }
                let mut value = Limbs(k);
                if rng.random_bool(0.5) {
                    value = -value;
                }
                let (got, inexact) = round_limbs(&value.0, unit);
                let want = mpfr_round(&exact(value, unit));
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "k = {:x?}, unit {unit}: {got:e} against MPFR {want:e}",
                    value.0
                );
                let back = Float::with_val(PREC, got);
                assert_eq!(inexact, back != exact(value, unit), "k = {:x?}", value.0);
                checked += 1;
            }
        }
        assert!(checked > 30_000);
        assert_eq!(round_limbs(&[0, 0], -20), (0.0, false));
    }

    #[test]
    fn terms_are_exact_and_add_exactly() {
        let w = [
            1.5f32,
            -3.0e-7,
            2.0e30,
            -2.0e30,
            f32::MIN_POSITIVE,
            -0.0,
            7.0,
        ];
        let scale = ExactScale::for_weights(&w).unwrap();
        with_limbs!(scale, L => {
            let mut total = Limbs::<L>::ZERO;
            let mut want = Float::with_val(PREC, 0);
            for &x in &w {
                let t = scale.term::<L>(x);
                assert_eq!(exact(t, scale.unit), x, "{x:e}");
                total = total + t;
                want += x;
                assert_eq!(exact(total, scale.unit), want);
            }
            assert_eq!(scale.round(total), mpfr_round(&want));
            assert!(exact(total - total, scale.unit).is_zero());
        });
        assert_eq!(ExactScale::for_weights(&[1.0, f32::NAN]), None);
        assert_eq!(ExactScale::for_weights(&[0.0, -0.0]).unwrap().limbs, 1);
        // The full range with many vertices: the most limbs.
        let mut wide = vec![0.0f32; 1 << 20];
        wide[0] = f32::MAX;
        wide[1] = f32::from_bits(1);
        assert_eq!(ExactScale::for_weights(&wide).unwrap().limbs, 10);
    }

    #[test]
    fn half_ulps() {
        assert_eq!(half_ulp(1.0), 2f64.powi(-24));
        assert_eq!(half_ulp(-1.5), 2f64.powi(-24));
        assert_eq!(half_ulp(0.0), 2f64.powi(-150));
        assert_eq!(half_ulp(f32::MIN_POSITIVE), 2f64.powi(-150));
        assert_eq!(half_ulp(f32::MAX), 2f64.powi(103));
        assert_eq!(half_ulp(f32::INFINITY), f64::INFINITY);
    }
}
