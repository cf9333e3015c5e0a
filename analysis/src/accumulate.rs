//! The partial sums of an accumulation format ([`generators::Arithmetic`]): the values every
//! summation order adds when a kernel adds in f16, bf16, f32 or f64, and what they become when
//! stored.
//!
//! f32 and f64 add natively. f16 and bf16 partial sums travel as the f32 that holds them, and
//! each addition is the f32 sum rounded to the format ([`Narrow`]): the sum rounded once,
//! since f32 has at least 2p + 2 bits for both (`generators::precision`). Every algorithm's
//! order is generic over [`ScanValue`], so one order gives the twin in every format; the
//! result is rounded once more to the storage format at the store ([`Stored::store`]).

use crate::scan_value::ScanValue;
use generators::{Arithmetic, Precision};
use std::marker::PhantomData;

/// A format narrower than f32 whose sums are f32 sums rounded to it.
pub trait NarrowFormat:
    Copy + Send + Sync + Default + PartialEq + std::fmt::Debug + 'static
{
    const PRECISION: Precision;
}

/// IEEE binary16.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Half;
impl NarrowFormat for Half {
    const PRECISION: Precision = Precision::F16;
}

/// bfloat16.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BFloat;
impl NarrowFormat for BFloat {
    const PRECISION: Precision = Precision::Bf16;
}

/// A partial sum of format `F`, carried as the f32 that holds it exactly.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Narrow<F: NarrowFormat>(pub f32, PhantomData<F>);

impl<F: NarrowFormat> Narrow<F> {
    /// `x` rounded to `F`.
    #[inline(always)]
    pub fn rounded(x: f32) -> Narrow<F> {
        Narrow(F::PRECISION.round_f32(x), PhantomData)
    }
}

impl<F: NarrowFormat> ScanValue for Narrow<F> {
    /// A weight of the storage format, which `F` holds (the storage fits in the accumulation
    /// format), so rounding it changes nothing.
    #[inline(always)]
    fn term(w: f32) -> Self {
        Narrow::rounded(w)
    }
    #[inline(always)]
    fn plus(self, rhs: Self) -> Self {
        Narrow::rounded(self.0 + rhs.0)
    }
}

/// A partial sum of an accumulation format as the read and the store see it: the vectorial
/// leaffix subtracts two of them, and every result is rounded once to the storage format.
pub trait Stored: ScanValue {
    /// The accumulation format's unit roundoff u = 2^-p: |fl(x) − x| ≤ u·|fl(x)| for a sum
    /// that rounds (a sum in the subnormal range is exact).
    const UNIT: f64;
    /// `self − rhs` rounded in the accumulation format.
    fn minus(self, rhs: Self) -> Self;
    /// `−self`, exact.
    fn neg(self) -> Self;
    /// Whether the value is finite (no overflow on the way).
    fn is_finite(self) -> bool;
    /// Whether `s`, the sum of `a` and `b` rounded in this format, is their exact sum (false
    /// after an overflow).
    fn sum_is_exact(a: Self, b: Self, s: Self) -> bool;
    /// The value rounded to nearest in `storage` (which the accumulation format holds), as
    /// the f32 that carries every storage format but f64.
    fn store(self, storage: Precision) -> f32;
    /// The value as an f64 (exact).
    fn to_f64(self) -> f64;
    /// The value as the f32 that carries it, where its format is the storage format (f32,
    /// f16, bf16; an f64 is rounded, which no storage asks for).
    fn as_f32(self) -> f32;
}

impl Stored for f32 {
    const UNIT: f64 = 1.0 / (1u64 << 24) as f64;
    #[inline(always)]
    fn neg(self) -> Self {
        -self
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    /// TwoSum in f32: the rounding error is representable and computed exactly.
    #[inline(always)]
    fn sum_is_exact(a: f32, b: f32, s: f32) -> bool {
        let bb = s - a;
        (a - (s - bb)) + (b - bb) == 0.0
    }
    #[inline(always)]
    fn minus(self, rhs: Self) -> Self {
        self - rhs
    }
    #[inline(always)]
    fn store(self, storage: Precision) -> f32 {
        storage.round_f32(self)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn as_f32(self) -> f32 {
        self
    }
}

impl Stored for f64 {
    const UNIT: f64 = f64::EPSILON / 2.0;
    #[inline(always)]
    fn neg(self) -> Self {
        -self
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    /// TwoSum in f64.
    #[inline(always)]
    fn sum_is_exact(a: f64, b: f64, s: f64) -> bool {
        let bb = s - a;
        (a - (s - bb)) + (b - bb) == 0.0
    }
    #[inline(always)]
    fn minus(self, rhs: Self) -> Self {
        self - rhs
    }
    #[inline(always)]
    fn store(self, storage: Precision) -> f32 {
        storage.round(self) as f32
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn as_f32(self) -> f32 {
        self as f32
    }
}

impl<F: NarrowFormat> Stored for Narrow<F> {
    const UNIT: f64 = 1.0 / (1u64 << F::PRECISION.p()) as f64;
    #[inline(always)]
    fn neg(self) -> Self {
        Narrow(-self.0, PhantomData)
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        self.0.is_finite()
    }
    /// The exact sum of two values of `F` is an f64 TwoSum away: `s` is exact when it equals
    /// the f64 sum and that sum is exact.
    #[inline(always)]
    fn sum_is_exact(a: Self, b: Self, s: Self) -> bool {
        let (a, b) = (a.0 as f64, b.0 as f64);
        a + b == s.0 as f64 && f64::sum_is_exact(a, b, a + b)
    }
    #[inline(always)]
    fn minus(self, rhs: Self) -> Self {
        Narrow::rounded(self.0 - rhs.0)
    }
    #[inline(always)]
    fn store(self, storage: Precision) -> f32 {
        storage.round_f32(self.0)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self.0 as f64
    }
    #[inline(always)]
    fn as_f32(self) -> f32 {
        self.0
    }
}

/// Every value stored in `arith`'s storage format.
pub fn store<T: Stored>(arith: Arithmetic, values: Vec<T>) -> Vec<f32> {
    values.into_iter().map(|x| x.store(arith.storage)).collect()
}

/// `$body`, generic over the type `$T`, instantiated with the partial sums of the
/// accumulation format `$accumulate`: the one place that maps a format to its values.
#[macro_export]
macro_rules! in_accumulation_format {
    ($accumulate:expr, $T:ident => $body:expr) => {{
        match $accumulate {
            generators::Precision::F32 => {
                type $T = f32;
                $body
            }
            generators::Precision::F64 => {
                type $T = f64;
                $body
            }
            generators::Precision::F16 => {
                type $T = $crate::accumulate::Narrow<$crate::accumulate::Half>;
                $body
            }
            generators::Precision::Bf16 => {
                type $T = $crate::accumulate::Narrow<$crate::accumulate::BFloat>;
                $body
            }
        }
    }};
}

/// `$body`, an order generic over the type `$T`, instantiated with the partial sums of
/// `$arith`'s accumulation format and stored in its storage format: the twin of an algorithm
/// in any arithmetic whose storage is carried as f32.
#[macro_export]
macro_rules! in_arithmetic {
    ($arith:expr, $T:ident => $body:expr) => {{
        let arith: generators::Arithmetic = $arith;
        $crate::in_accumulation_format!(arith.accumulate, $T => {
            $crate::accumulate::store(arith, $body)
        })
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An f16 sum is the exact sum rounded once: 2048 + 1 is a tie, kept at 2048 (even); a
    /// bf16 sum of 256 and 1 likewise; f64 accumulation stores once.
    #[test]
    fn narrow_sums_round_once() {
        let h = |x| Narrow::<Half>::term(x);
        assert_eq!(h(2048.0).plus(h(1.0)).0, 2048.0);
        assert_eq!(h(2048.0).plus(h(3.0)).0, 2052.0);
        assert_eq!(h(65504.0).plus(h(16.0)).0, f32::INFINITY);
        assert_eq!(h(65504.0).plus(h(8.0)).0, 65504.0);
        let b = |x| Narrow::<BFloat>::term(x);
        assert_eq!(b(256.0).plus(b(1.0)).0, 256.0);
        assert_eq!(b(256.0).plus(b(3.0)).0, 260.0);
        assert_eq!((2048.0f64 + 1.0).store(Precision::F16), 2048.0);
        assert_eq!((2049.0f64 + 2f64.powi(-30)).store(Precision::F16), 2050.0);
        // Below 1 the spacing is 2^-11: 1 − 2^-12 is a tie, kept at 1 (even).
        assert_eq!(h(1.0).minus(h(2f32.powi(-12))).0, 1.0);
        assert_eq!(h(1.0).minus(h(2f32.powi(-11))).0, 1.0 - 2f32.powi(-11));
    }

    #[test]
    fn every_accumulation_format_instantiates_an_order() {
        let w = [1.0f32, 2048.0, 1.0, 1.0];
        let sum = |arith: Arithmetic| in_arithmetic!(arith, T => vec![w.iter().fold(T::zero(), |s, &x| s.plus(T::term(x)))]);
        let f16 = Arithmetic::same(Precision::F16);
        // ((1 + 2048) + 1) + 1 in f16: 2048 (tie to even), 2048, 2048.
        assert_eq!(sum(f16), vec![2048.0]);
        assert_eq!(
            sum(Arithmetic::new(Precision::F16, Precision::F32).unwrap()),
            vec![2052.0]
        );
        assert_eq!(sum(Arithmetic::F32), vec![2051.0]);
    }
}
