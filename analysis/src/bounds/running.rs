//! The a posteriori running error bound (§9.4): the twin's additions replayed with a
//! rigorous bound on each partial sum's error.

use super::*;

/// What the running error bound carries: the f32 partial sum exactly as the twin computes it,
/// and a rigorous bound on its error.
///
/// The bound's recursion E(ŝ) = E(â) + E(b̂) + u·|ŝ| is evaluated in f64 rounded to nearest
/// (u·|ŝ| is exact); its roundings are accounted for when it is read, as the a priori
/// values' are ([`APrioriIn`], docs/design.md §9.5): each level of the summation tree that
/// adds a nonzero bound rounds at most twice, each time losing at most a factor
/// (1 − 2^-53), and [`Running::err_up`] multiplies by 1 + 2·levels·2^-52, rounded upward.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Running {
    pub value: f32,
    /// The levels evaluated to nearest (0 while every addition was exact or added exact
    /// operands, whose bound is then exact).
    pub levels: u32,
    /// The recursion as evaluated ([`Running::err_up`] is the bound).
    pub err: f64,
}

impl Running {
    pub fn term(t: f32) -> Running {
        Running {
            value: t,
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

    /// fl(a ∘ b) where `s` is that result and `b` already carries the sign of the operation.
    #[inline(always)]
    fn combine(a: Running, b: Running, b_value: f32, s: f32) -> Running {
        if !s.is_finite() {
            // Overflow (the weights are finite): no bound, and NaN never enters the sums.
            return Running {
                value: s,
                levels: 0,
                err: f64::INFINITY,
            };
        }
        // u·|s| or 0, selected by a product: whether a sum rounds is unpredictable. (u·|s| is
        // exact: an f32 scaled by 2^-24 stays far above f64's subnormals.)
        let inexact = !f32_sum_is_exact(a.value, b_value, s) as u8 as f64;
        let local = s.abs() as f64 * U * inexact;
        let carried = a.err + b.err;
        // Both bounds zero: the sum is `local`, exact; else at most two roundings more.
        let rounds = (carried != 0.0) as u32;
        Running {
            value: s,
            levels: rounds * (a.levels.max(b.levels) + 1),
            err: carried + local,
        }
    }
}

/// Whether s = fl(a + b) is the exact sum (TwoSum in f32: the rounding error is exactly
/// representable and computed without error, barring overflow, which reports "inexact").
#[inline]
pub(crate) fn f32_sum_is_exact(a: f32, b: f32, s: f32) -> bool {
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    err == 0.0
}

impl ScanValue for Running {
    fn term(w: f32) -> Self {
        Running::term(w)
    }
    #[inline(always)]
    fn plus(self, rhs: Self) -> Self {
        // The same f32 addition, operands in the same order, as the f32 twin.
        let s = self.value + rhs.value;
        Running::combine(self, rhs, rhs.value, s)
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
