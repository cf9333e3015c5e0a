//! Exact sums of f32 values with MPFR, used to measure the condition number a generator achieved.

use rug::Float;

/// Bits that hold any sum of up to 2^40 f32 values exactly: f32 spans 2^-149..2^128 (277 bits).
pub const EXACT_PREC: u32 = 320;

/// A running exact sum of f32 (or f64 products of two f32) values.
#[derive(Debug, Clone)]
pub struct ExactSum(Float);

impl Default for ExactSum {
    fn default() -> Self {
        Self::new()
    }
}

impl ExactSum {
    pub fn new() -> Self {
        ExactSum(Float::new(EXACT_PREC))
    }
    /// Adds an f64 value exactly (every f32 and every product of two f32 is an f64).
    pub fn add(&mut self, x: f64) {
        self.0 += x;
    }
    /// Adds the exact product of two f32.
    pub fn add_product(&mut self, x: f32, y: f32) {
        self.0 += x as f64 * y as f64;
    }
    pub fn value(&self) -> &Float {
        &self.0
    }
    pub fn to_f64(&self) -> f64 {
        self.0.to_f64()
    }
}

/// Condition number of the sum of `values`: Σ|z| / |Σz|, both computed exactly, rounded to f64
/// at the end. Infinite when the exact sum is zero.
pub fn condition_number(values: &[f32]) -> f64 {
    let mut sum = ExactSum::new();
    let mut abs = ExactSum::new();
    for &z in values {
        sum.add(z as f64);
        abs.add(z.abs() as f64);
    }
    if sum.value().is_zero() {
        return f64::INFINITY;
    }
    let ratio = Float::with_val(64, abs.value() / sum.value());
    ratio.abs().to_f64()
}
