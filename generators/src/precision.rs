//! The binary floating-point formats a treefix kernel stores its values in or adds them in:
//! bfloat16, IEEE binary16, binary32 and binary64 ([`Precision`]), and the pair a kernel uses
//! ([`Arithmetic`]: a storage format and an accumulation format as wide or wider, as GPU
//! libraries that store 16-bit values and add in f32 do). Each format is named here once, with
//! its precision p, unit roundoff u = 2^-p, exponent range, overflow threshold and rounding;
//! nothing else in the toolkit writes 24 bits or 2^-24.
//!
//! Values of every format travel as f64, which holds each of them exactly; f16 and bf16 values
//! also travel as f32, which holds them exactly too. Rounding to nearest, ties to even:
//! - an f32 to f16 or bf16 is one conversion (the `half` crate, checked against MPFR);
//! - an f64 to f16 or bf16 goes through f32 rounded to odd, then to nearest: rounding to odd
//!   at q ≥ p + 2 bits and then to nearest at p bits is the one rounding to nearest at p
//!   (Boldo & Melquiond 2008), and f32 has q = 24 ≥ 13 bits with an exponent range that holds
//!   both formats' subnormals at a finer quantum (2^-149 against 2^-24 and 2^-133).
//!
//! The sum of two values of a format, computed in a wider format and rounded to the first, is
//! the sum rounded once when the wider format has at least 2p + 2 bits (Figueroa 1995): f32
//! for f16 (24 ≥ 24) and bf16 (24 ≥ 18), f64 for f32 (53 ≥ 50). docs/design.md §5.1 proves it
//! for this project's cases, subnormals and overflow included; the tests check it against MPFR.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A binary floating-point format, narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// bfloat16: 8 bits of precision, f32's exponent range.
    Bf16,
    /// IEEE binary16: 11 bits, normal numbers from 2^-14 to 65504.
    F16,
    /// IEEE binary32: 24 bits.
    F32,
    /// IEEE binary64: 53 bits.
    F64,
}

impl Precision {
    /// Every format, narrowest first.
    pub const ALL: [Precision; 4] = [
        Precision::Bf16,
        Precision::F16,
        Precision::F32,
        Precision::F64,
    ];

    /// The name on the command line and in every file.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Bf16 => "bf16",
            Precision::F16 => "f16",
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }

    /// p: bits of the significand, the hidden bit included.
    pub const fn p(self) -> u32 {
        match self {
            Precision::Bf16 => 8,
            Precision::F16 => 11,
            Precision::F32 => 24,
            Precision::F64 => 53,
        }
    }

    /// p as an f64, for the lost-bits arithmetic.
    pub fn bits(self) -> f64 {
        f64::from(self.p())
    }

    /// The unit roundoff u = 2^-p: the largest relative error of one rounding to nearest of a
    /// value in the normal range.
    pub fn u(self) -> f64 {
        pow2(-(self.p() as i32))
    }

    /// The exponent of the smallest normal number, 2^emin.
    pub const fn emin(self) -> i32 {
        match self {
            Precision::Bf16 | Precision::F32 => -126,
            Precision::F16 => -14,
            Precision::F64 => -1022,
        }
    }

    /// The exponent of the largest binade: every finite value is below 2^(emax + 1).
    pub const fn emax(self) -> i32 {
        match self {
            Precision::Bf16 | Precision::F32 => 127,
            Precision::F16 => 15,
            Precision::F64 => 1023,
        }
    }

    /// The exponent of the smallest subnormal, the format's finest quantum: emin − p + 1.
    pub const fn quantum_exp(self) -> i32 {
        self.emin() - self.p() as i32 + 1
    }

    /// The largest finite value, (2 − 2^(1−p))·2^emax.
    pub fn max_finite(self) -> f64 {
        (2.0 - pow2(1 - self.p() as i32)) * pow2(self.emax())
    }

    /// The smallest positive normal value, 2^emin.
    pub fn min_normal(self) -> f64 {
        pow2(self.emin())
    }

    /// The smallest positive subnormal value, 2^(emin − p + 1).
    pub fn min_subnormal(self) -> f64 {
        pow2(self.quantum_exp())
    }

    /// The magnitude from which rounding to nearest gives ±∞: halfway between the largest
    /// finite value and 2^(emax + 1), (2 − 2^-p)·2^emax.
    pub fn overflow_threshold(self) -> f64 {
        (2.0 - pow2(-(self.p() as i32))) * pow2(self.emax())
    }

    /// Whether every value of `self` is a value of `wider` (its precision and its range).
    pub fn fits_in(self, wider: Precision) -> bool {
        self.p() <= wider.p()
            && self.emax() <= wider.emax()
            && self.quantum_exp() >= wider.quantum_exp()
    }

    /// Whether the sum of two values of `self`, rounded to nearest in `wider` and then to
    /// nearest in `self`, is always their sum rounded once to `self`: `self` fits in `wider`
    /// and `wider` has at least 2p + 2 bits (the module's double-rounding rule).
    pub fn adds_exactly_through(self, wider: Precision) -> bool {
        self == wider || (self.fits_in(wider) && wider.p() >= 2 * self.p() + 2)
    }

    /// `x` rounded to nearest in this format, ties to even; ±∞ from the overflow threshold
    /// on, NaN as NaN, the sign of a zero kept.
    #[inline]
    pub fn round(self, x: f64) -> f64 {
        match self {
            Precision::F64 => x,
            Precision::F32 => x as f32 as f64,
            Precision::F16 => half::f16::from_f32(odd_f32(x)).to_f64(),
            Precision::Bf16 => half::bf16::from_f32(odd_f32(x)).to_f64(),
        }
    }

    /// `x` (an f32) rounded to nearest in this format, as an f32; for [`Precision::F64`] and
    /// [`Precision::F32`], `x` itself.
    #[inline]
    pub fn round_f32(self, x: f32) -> f32 {
        match self {
            Precision::F64 | Precision::F32 => x,
            Precision::F16 => half::f16::from_f32(x).to_f32(),
            Precision::Bf16 => half::bf16::from_f32(x).to_f32(),
        }
    }

    /// Whether `x` is a value of this format (±∞ and NaN included).
    pub fn holds(self, x: f64) -> bool {
        x.is_nan() || self.round(x) == x
    }

    /// Whether every value of `w` is a value of this format: the first one that is not, with
    /// its index.
    pub fn first_outside(self, w: &[f32]) -> Option<(usize, f32)> {
        w.iter()
            .enumerate()
            .find(|(_, x)| !x.is_nan() && self.round_f32(**x) != **x)
            .map(|(i, x)| (i, *x))
    }

    /// The spacing of this format's values at |x| (a finite value of it): 2^(e − p + 1) in the
    /// binade [2^e, 2^(e+1)), the finest quantum below the normal range.
    pub fn ulp(self, x: f64) -> f64 {
        let a = x.abs();
        if a < self.min_normal() {
            return self.min_subnormal();
        }
        // The binade's exponent from f64's own field (every value of these formats is normal
        // in f64 above the format's own subnormal range).
        let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        pow2(e - self.p() as i32 + 1)
    }

    /// The position of `x` (a value of this format) among the format's values, in order: the
    /// number of values from +0 up to it, negative below zero, ±0 both at 0; ±∞ one past the
    /// largest finite value. The distance of two positions is their distance in ulps.
    pub fn ordinal(self, x: f64) -> i64 {
        let magnitude = match self {
            Precision::F64 => (x.abs().to_bits()) as i64,
            Precision::F32 => (x.abs() as f32).to_bits() as i64,
            Precision::F16 => half::f16::from_f64(x.abs()).to_bits() as i64,
            Precision::Bf16 => half::bf16::from_f64(x.abs()).to_bits() as i64,
        };
        if x.is_sign_negative() {
            -magnitude
        } else {
            magnitude
        }
    }

    /// log2(e) + p, not floored: the bits of this format a relative error e costs (below 0
    /// for e < u).
    pub fn bits_of_rel(self, rel: f64) -> f64 {
        rel.log2() + self.bits()
    }

    /// The relative error that costs `bits` bits: 2^(bits − p).
    pub fn rel_of_bits(self, bits: f64) -> f64 {
        2f64.powf(bits - self.bits())
    }

    /// log2(e) + p floored at 0: the bits of this format a relative error e lost (+∞ for
    /// e = +∞; p for e = 1, nothing correct left).
    pub fn lost_bits(self, rel: f64) -> f64 {
        if rel > 0.0 {
            self.bits_of_rel(rel).max(0.0)
        } else {
            0.0
        }
    }
}

/// An f64 rounded to odd at f32's precision and range: the nearest f32 if `x` is one, else the
/// one of its two f32 neighbours whose last bit is 1 (±∞ beyond f32's range). Rounding to
/// odd loses no information a later rounding to nearest at 2 bits fewer needs.
#[inline]
pub fn odd_f32(x: f64) -> f32 {
    // Within f32's normal exponents: truncate to 24 bits and set the last one if anything was
    // dropped — bit operations only, where the general path below branches on whether x was
    // exact and r even, a coin toss for the exact treefix's sums.
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32 - 1023;
    if (-126..=127).contains(&e) {
        const DROPPED: u64 = (1 << 29) - 1;
        let sticky = ((bits & DROPPED) != 0) as u64;
        return f64::from_bits((bits & !DROPPED) | (sticky << 29)) as f32;
    }
    let r = x as f32;
    if r as f64 == x || !r.is_finite() || r.to_bits() & 1 == 1 {
        return r;
    }
    // r is even and inexact: its neighbour towards x is odd (x lies strictly between them).
    let towards = if (r as f64) < x { 1.0f32 } else { -1.0 };
    step(r, towards)
}

/// The f32 next to `r` in direction `towards` (±1): one more or one less on the magnitude's
/// bits, by the signs of r and of the step (±0 step to ±the smallest subnormal).
fn step(r: f32, towards: f32) -> f32 {
    if r == 0.0 {
        return f32::from_bits(1).copysign(towards);
    }
    let up_in_magnitude = (r > 0.0) == (towards > 0.0);
    let bits = r.to_bits();
    f32::from_bits(if up_in_magnitude { bits + 1 } else { bits - 1 })
}

/// 2^e for −1074 ≤ e ≤ 1023, exactly.
fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `f16`, `bf16`, `f32`, `f64`, or numpy's names of them (`float16`, `bfloat16`, `float32`,
/// `float64`), in any case.
impl FromStr for Precision {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "bf16" | "bfloat16" => Ok(Precision::Bf16),
            "f16" | "float16" | "half" => Ok(Precision::F16),
            "f32" | "float32" | "single" => Ok(Precision::F32),
            "f64" | "float64" | "double" => Ok(Precision::F64),
            _ => Err(format!(
                "unknown precision '{s}' (expected bf16, f16, f32 or f64)"
            )),
        }
    }
}

/// How a kernel computes: the format its inputs and results are stored in, and the format it
/// adds in (the same, or a wider one whose sums are rounded once to storage at the store).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Arithmetic {
    pub storage: Precision,
    pub accumulate: Precision,
}

impl Arithmetic {
    /// f32 stored, f32 added: the seed paper's arithmetic and the default.
    pub const F32: Arithmetic = Arithmetic::same(Precision::F32);

    /// Storage and accumulation in one format.
    pub const fn same(p: Precision) -> Arithmetic {
        Arithmetic {
            storage: p,
            accumulate: p,
        }
    }

    /// `storage` added in `accumulate`, which must hold every value of `storage` (its
    /// precision and its range): bf16 in f16 is refused (f16's range is smaller), f16 in
    /// bf16 too (fewer bits).
    pub fn new(storage: Precision, accumulate: Precision) -> Result<Arithmetic, String> {
        if !storage.fits_in(accumulate) {
            return Err(format!(
                "{storage} values cannot be added in {accumulate}: {}",
                if storage.p() > accumulate.p() {
                    format!(
                        "{accumulate} has {} bits, {storage} {}",
                        accumulate.p(),
                        storage.p()
                    )
                } else {
                    format!(
                        "{accumulate}'s range ends at {:e}, {storage}'s at {:e}",
                        accumulate.max_finite(),
                        storage.max_finite()
                    )
                }
            ));
        }
        Ok(Arithmetic {
            storage,
            accumulate,
        })
    }

    /// Whether the additions are made in a wider format than the storage (one rounding to
    /// storage at the store).
    pub fn is_mixed(self) -> bool {
        self.storage != self.accumulate
    }

    /// `bf16`, or `bf16+f32` when the additions are made in f32.
    pub fn name(self) -> String {
        if self.is_mixed() {
            format!("{}+{}", self.storage, self.accumulate)
        } else {
            self.storage.to_string()
        }
    }

    /// In words: "bf16", "bf16 with f32 accumulation".
    pub fn describe(self) -> String {
        if self.is_mixed() {
            format!("{} with {} accumulation", self.storage, self.accumulate)
        } else {
            self.storage.to_string()
        }
    }
}

impl Default for Arithmetic {
    fn default() -> Self {
        Arithmetic::F32
    }
}

impl fmt::Display for Arithmetic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// `bf16`, `f16+f32` (storage+accumulation).
impl FromStr for Arithmetic {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('+') {
            Some((st, acc)) => Arithmetic::new(st.parse()?, acc.parse()?),
            None => Ok(Arithmetic::same(s.parse()?)),
        }
    }
}

#[cfg(test)]
mod tests;
