//! The a posteriori running error bound (§9.4): the twin's additions replayed with a
//! rigorous bound on each partial sum's error.

use super::*;

/// What the running error bound carries: the f32 partial sum exactly as the twin computes it,
/// and a rigorous bound on its error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Running {
    pub value: f32,
    pub err: f64,
}

impl Running {
    pub fn term(t: f32) -> Running {
        Running { value: t, err: 0.0 }
    }

    /// fl(a ∘ b) where `s` is that result and `b` already carries the sign of the operation.
    fn combine(a: Running, b: Running, b_value: f32, s: f32) -> Running {
        if !s.is_finite() {
            // Overflow (the weights are finite): no bound, and NaN never enters the sums.
            return Running {
                value: s,
                err: f64::INFINITY,
            };
        }
        // u·|s| or 0, selected by a product: whether a sum rounds is unpredictable.
        let inexact = !f32_sum_is_exact(a.value, b_value, s) as u8 as f64;
        let local = times_u(s.abs() as f64) * inexact;
        Running {
            value: s,
            err: add_up_nonneg(add_up_nonneg(a.err, b.err), local),
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
    #[inline]
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
