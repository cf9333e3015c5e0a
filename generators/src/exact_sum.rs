//! Exact sums of f32 values with MPFR, used to measure the condition number a generator achieved.

use rug::Float;

/// Bits that hold any sum of up to 2^40 f32 values exactly: f32 spans 2^-149..2^128 (277 bits).
pub const EXACT_PREC: u32 = 320;

/// Condition number of the sum of `values`: Σ|z| / |Σz|, both computed exactly, rounded to f64
/// at the end. Infinite when the exact sum is zero.
pub fn condition_number(values: &[f32]) -> f64 {
    let mut sum = Float::new(EXACT_PREC);
    let mut abs = Float::new(EXACT_PREC);
    for &z in values {
        sum += z;
        abs += z.abs();
    }
    if sum.is_zero() {
        return f64::INFINITY;
    }
    Float::with_val(64, &abs / &sum).abs().to_f64()
}
