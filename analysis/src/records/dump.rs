//! `accuracy run --dump`: every node of one run, one row per op × algorithm × vertex. The
//! numbers are kept as the text they are written as (shortest round-trip, `{:e}`, 3 decimals),
//! so the file reads back to the same bytes.

use super::fields::field_names;
use serde::{Deserialize, Serialize};

/// One node of one op and algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DumpRow {
    pub vertex: usize,
    /// Empty for the root.
    pub parent: Option<u32>,
    pub depth: u32,
    /// The f32 weight, shortest round-trip.
    pub weight: String,
    pub op: String,
    pub algorithm: String,
    /// The computed f32, shortest round-trip.
    pub result: String,
    /// The reference to 30 significant digits.
    pub reference: String,
    /// |x̂ − x| / |x| (`{:e}`), or `flagged` where x = 0 and x̂ ≠ 0.
    pub rel_error: String,
    /// Three decimals.
    pub lost_bits: String,
    /// κ_v (`{:e}`).
    pub cond: String,
    /// The deterministic a priori bound on |x̂ − x|.
    pub bound: String,
    pub sharp_bound: String,
    pub prob_bound: String,
    pub running_bound: String,
    /// Σ|E| up to the vertex's read over |x_v|: κ of the Euler-tour scan.
    pub cond_scan: String,
    /// Extra bits over the baseline, predicted by the bounds (vectorial algorithms only).
    pub pred_extra_bits: String,
    /// Extra bits over the baseline, measured.
    pub meas_extra_bits: String,
    /// |x̂ − x| (`{:e}`).
    pub abs_error: String,
    /// The vertex's label in its input file, if any.
    pub label: String,
    /// 1 when the result is NaN or ±∞ where the exact value's rounding is finite.
    pub nonfinite: u8,
    /// `beyond-range` (the exact value overflows f32), `partial-sum` (a partial sum did), or
    /// empty.
    pub overflow: String,
    /// The exact value correctly rounded to f32, shortest round-trip: it settles ties that the
    /// 30-digit reference cannot.
    pub reference_f32: String,
    /// The distance from the correctly rounded value in ulps, or `inf`.
    pub ulps: String,
}

impl DumpRow {
    /// Every column of the dump, in file order.
    pub fn columns() -> &'static [&'static str] {
        field_names::<DumpRow>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_come_from_the_fields() {
        let c = DumpRow::columns();
        assert_eq!(c.len(), 24);
        assert_eq!(c[0], "vertex");
        assert_eq!(c[23], "ulps");
    }
}
