//! The values an order adds: one trait, [`ScanValue`], that every summation order of
//! [`crate::orders`] and the scan plan ([`crate::scan_plan`]) is generic over, and its
//! instances for plain numbers, magnitudes and pairs. The other instances live beside their
//! types (float-float pairs, fixed-point sums, bound values, exact sums).

/// Something that can be summed along an order: an f32 partial sum (the twins), a bound on
/// one (the bounds), an exact sum (the references), a magnitude. Plain data, shared between
/// threads: the scan plan's tiles are scanned in parallel, each exactly as alone.
pub trait ScanValue: Copy + Send + Sync {
    /// One input weight as a value of this type.
    fn term(w: f32) -> Self;
    /// The exact zero: the scan plan's padding, leaffix's E[close v], S[−1].
    fn zero() -> Self {
        Self::term(0.0)
    }
    /// One addition of the order (rounded, for floating-point types). IEEE addition is
    /// commutative, so only the pairing matters; the operands are still passed in the order
    /// the kernels use.
    fn plus(self, rhs: Self) -> Self;
}

impl ScanValue for f32 {
    #[inline]
    fn term(w: f32) -> Self {
        w
    }
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        self + rhs
    }
}

impl ScanValue for f64 {
    #[inline]
    fn term(w: f32) -> Self {
        w as f64
    }
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        self + rhs
    }
}

/// The same sums over |t| instead of t: `Abs<f64>` is Σ|t| in f64 rounded to nearest, the
/// magnitude an order accumulates.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Abs<T>(pub T);

impl<T: ScanValue> ScanValue for Abs<T> {
    #[inline]
    fn term(w: f32) -> Self {
        Abs(T::term(w.abs()))
    }
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        Abs(self.0.plus(rhs.0))
    }
}

/// Two sums carried through the same order at once (say, a value and its magnitude).
impl<A: ScanValue, B: ScanValue> ScanValue for (A, B) {
    #[inline(always)]
    fn term(w: f32) -> Self {
        (A::term(w), B::term(w))
    }
    #[inline(always)]
    fn plus(self, rhs: Self) -> Self {
        (self.0.plus(rhs.0), self.1.plus(rhs.1))
    }
}
