//! The formats the generator draws values of: f32 (the seed paper's experiments) and f64. The
//! generator is written once over [`Drawn`]; each format says how a value is rounded, split by
//! TwoProduct, checked and placed in its range.

use crate::exact_sum::EXACT_PREC;

/// A format of the generator's values.
pub(crate) trait Drawn:
    Copy + PartialOrd + Default + std::ops::Neg<Output = Self> + Send + Sync + 'static
{
    /// Bits of the exact running sum: any sum of the values the generator makes, exactly.
    const EXACT_BITS: u32;
    /// The window `rescale` puts the values in: the largest exponent at most `TOP`, the
    /// smallest at least `LOW`, refused when that lifts the largest above `HIGH`.
    const TOP: i32;
    const LOW: i32;
    const HIGH: i32;
    /// `x` rounded to nearest in the format.
    fn of(x: f64) -> Self;
    /// The value as an f64 (exact).
    fn wide(self) -> f64;
    /// TwoProduct: p = fl(x·y) and q = x·y − p, both of the format, p + q = x·y exactly
    /// (barring overflow and underflow, which the validity check catches).
    fn two_product(x: Self, y: Self) -> (Self, Self);
    /// Finite and not subnormal (GPUs flush subnormals).
    fn usable(self) -> bool;
    /// The value one ulp nearer zero (a positive normal value).
    fn below(self) -> Self;
}

impl Drawn for f32 {
    /// Any sum of up to 2^40 f32.
    const EXACT_BITS: u32 = EXACT_PREC;
    const TOP: i32 = 60;
    const LOW: i32 = -110;
    const HIGH: i32 = 100;
    #[inline]
    fn of(x: f64) -> f32 {
        x as f32
    }
    #[inline]
    fn wide(self) -> f64 {
        self as f64
    }
    /// x·y is exact in f64 (48 bits).
    fn two_product(x: f32, y: f32) -> (f32, f32) {
        let xy = x as f64 * y as f64;
        let p = xy as f32;
        let q = (xy - p as f64) as f32;
        (p, q)
    }
    fn usable(self) -> bool {
        self.is_finite() && !self.is_subnormal()
    }
    fn below(self) -> f32 {
        f32::from_bits(self.to_bits() - 1)
    }
}

impl Drawn for f64 {
    /// Values within 2^-400 … 2^400 and up to 2^40 of them.
    const EXACT_BITS: u32 = 900;
    const TOP: i32 = 60;
    const LOW: i32 = -400;
    const HIGH: i32 = 400;
    #[inline]
    fn of(x: f64) -> f64 {
        x
    }
    #[inline]
    fn wide(self) -> f64 {
        self
    }
    /// The tail by one fused multiply-add: x·y − p rounded once, which is exact (IEEE's fma
    /// is correctly rounded, so the bytes are the same everywhere).
    fn two_product(x: f64, y: f64) -> (f64, f64) {
        let p = x * y;
        (p, x.mul_add(y, -p))
    }
    fn usable(self) -> bool {
        self.is_finite() && !self.is_subnormal()
    }
    fn below(self) -> f64 {
        f64::from_bits(self.to_bits() - 1)
    }
}
