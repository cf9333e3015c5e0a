//! The a posteriori running error bound (§9.4): the twin's additions replayed with a
//! rigorous bound on each partial sum's error.

use super::*;

/// What the running error bound carries: the partial sum exactly as the twin computes it, in
/// the accumulation format `T` (f32 for the f32 twins), and a rigorous bound on its error.
///
/// The bound's recursion E(ŝ) = E(â) + E(b̂) + u·|ŝ| is evaluated in f64 rounded to nearest
/// (u·|ŝ| is exact: a power of two times a value far above f64's subnormals); its roundings
/// are accounted for when it is read, as the a priori values' are ([`APrioriIn`],
/// docs/design.md §9.5): each level of the summation tree that adds a nonzero bound rounds at
/// most twice, each time losing at most a factor (1 − 2^-53), and [`RunningIn::err_up`]
/// multiplies by 1 + 2·levels·2^-52, rounded upward.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunningIn<T> {
    pub value: T,
    /// The levels evaluated to nearest (0 while every addition was exact or added exact
    /// operands, whose bound is then exact).
    pub levels: u32,
    /// The recursion as evaluated ([`RunningIn::err_up`] is the bound).
    pub err: f64,
}

/// The running bound of f32 sums.
pub type Running = RunningIn<f32>;

impl<T: Stored> RunningIn<T> {
    pub fn term(t: f32) -> Self {
        RunningIn {
            value: T::term(t),
            levels: 0,
            err: 0.0,
        }
    }

    /// The bound on |ŝ − s|: the recursion as evaluated, raised by what its roundings may
    /// have lost (+∞ after an overflow).
    #[inline]
    pub fn err_up(&self) -> f64 {
        if self.levels == 0 || self.err == 0.0 || !self.err.is_finite() {
            return self.err;
        }
        // 1 + k·2^-52 is exact for k < 2^52: no rounding to direct.
        mul_up(
            self.err,
            1.0 + (2 * self.levels as u64) as f64 * f64::EPSILON,
        )
    }

    /// fl(a ∘ b) where `s` is that result and `b_value` already carries the sign of the
    /// operation.
    #[inline(always)]
    pub(super) fn combine(a: Self, b: Self, b_value: T, s: T) -> Self {
        if !s.is_finite() {
            // Overflow (the weights are finite): no bound, and NaN never enters the sums.
            return RunningIn {
                value: s,
                levels: 0,
                err: f64::INFINITY,
            };
        }
        // u·|s| or 0, selected by a product: whether a sum rounds is unpredictable.
        let inexact = !T::sum_is_exact(a.value, b_value, s) as u8 as f64;
        let local = local_charge::<T>(s) * inexact;
        let carried = a.err + b.err;
        // Both bounds zero: the sum is `local`, exact; else at most two roundings more.
        let rounds = (carried != 0.0) as u32;
        RunningIn {
            value: s,
            levels: rounds * (a.levels.max(b.levels) + 1),
            err: carried + local,
        }
    }
}

/// u·|s| for a sum `s` of format `T` that rounded: exact (u is a power of two; the sums are of
/// f32 weights, multiples of 2^-149, so a sum that rounds is at least 2^(p − 149) and u·|s|
/// at least 2^-149, far above f64's subnormals).
#[inline(always)]
pub(crate) fn local_charge<T: Stored>(s: T) -> f64 {
    s.to_f64().abs() * T::UNIT
}

impl<T: Stored> ScanValue for RunningIn<T> {
    fn term(w: f32) -> Self {
        RunningIn::term(w)
    }
    #[inline(always)]
    fn plus(self, rhs: Self) -> Self {
        // The same addition, operands in the same order, as the twin in this format.
        let s = self.value.plus(rhs.value);
        RunningIn::combine(self, rhs, rhs.value, s)
    }
}

/// The running error bound of a float-float sum: the value exactly as the compensated twin
/// computes it, and a rigorous bound on |(hi + lo) − s|.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunningDw {
    pub value: FloatFloat,
    pub err: f64,
}

impl RunningDw {
    /// u_dw/(1 − u_dw), rounded upward: ẑ = (â + b̂)(1 + δ), |δ| ≤ u_dw, so
    /// |ẑ − (â + b̂)| ≤ u_dw·|â + b̂| ≤ u_dw/(1 − u_dw)·|ẑ|.
    pub(crate) fn unit() -> f64 {
        next_up(U_DW / next_down(1.0 - U_DW))
    }

    /// A bound on |ẑ − (â + b̂)| for ẑ = dw_add(â, b̂) = `z`: 0 when TwoSum proves it
    /// exact ([`dw_add_is_exact`]), else u_dw/(1 − u_dw)·|ẑ|.
    pub(crate) fn local(a: FloatFloat, b: FloatFloat, z: FloatFloat) -> f64 {
        if !(z.hi.is_finite() && z.lo.is_finite()) {
            f64::INFINITY // overflow: no bound
        } else if dw_add_is_exact(a, b) {
            0.0
        } else {
            mul_up(Self::unit(), ff_abs_up(z))
        }
    }
}

/// |hi + lo| rounded upward (|hi| + |lo|, an upper bound of |hi + lo|).
#[inline]
pub(crate) fn ff_abs_up(x: FloatFloat) -> f64 {
    add_up_nonneg(x.hi.abs() as f64, x.lo.abs() as f64)
}

impl ScanValue for RunningDw {
    fn term(w: f32) -> Self {
        RunningDw {
            value: FloatFloat::term(w),
            err: 0.0,
        }
    }
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        // The same dw_add, operands in the same order, as the compensated twin.
        let value = dw_add(self.value, rhs.value);
        RunningDw {
            value,
            err: add_up_nonneg(
                add_up_nonneg(self.err, rhs.err),
                RunningDw::local(self.value, rhs.value, value),
            ),
        }
    }
}
