//! `score --dump`: one row per op × vertex with its error and flags.

use super::Score;
use super::any_order::OrderBound;
use super::value_text;
use analysis::ErrorClass;
use serde::Serialize;
use std::io::Write;

/// One row of the dump (columns in this order).
#[derive(Debug, Serialize)]
pub struct ScoreRow<'a> {
    pub vertex: usize,
    pub label: &'a str,
    pub op: &'static str,
    /// The result judged, printed to round-trip.
    pub result: String,
    /// The correctly rounded result (in the storage format, whatever the column's name).
    pub reference_f32: String,
    pub abs_error: f64,
    /// `inf` where the exact value is 0 and the result is not (`flagged` = 1).
    pub rel_error: f64,
    pub lost_bits: f64,
    /// Distance in f32 ulps from `reference_f32` (`inf`: infinitely far).
    pub ulps: String,
    pub cond: f64,
    /// 1: the exact value is 0 and the result is not.
    pub flagged: u8,
    /// 1: a NaN or ±∞ where a finite result exists.
    pub nonfinite: u8,
    /// 1: the exact value lies beyond f32's range (the result is its rounding, ±∞).
    pub beyond_range: u8,
    pub any_order_bound: f64,
    /// 1: the error exceeds the any-order bound.
    pub over_any_order: u8,
    pub balanced_bound: f64,
    pub over_balanced: u8,
}

/// Writes the dump of every op of `score` as CSV to `out`.
pub fn write(
    score: &Score,
    label: &dyn Fn(usize) -> Option<String>,
    out: impl Write,
) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_writer(out);
    let any = OrderBound::ALL
        .iter()
        .position(|&b| b == OrderBound::AnyOrder)
        .expect("listed");
    let balanced = OrderBound::ALL
        .iter()
        .position(|&b| b == OrderBound::Balanced)
        .expect("listed");
    for s in &score.ops {
        let nodes = &s.nodes;
        let text = |x: f64| value_text(s.arithmetic.storage, x);
        for v in 0..score.n {
            let name = label(v).unwrap_or_default();
            let class = nodes.class[v];
            let over = |b: f64| u8::from(class != ErrorClass::Overflow && nodes.abs_error[v] > b);
            w.serialize(ScoreRow {
                vertex: v,
                label: &name,
                op: s.op.name(),
                result: text(nodes.values[v]),
                reference_f32: text(nodes.reference[v]),
                abs_error: nodes.abs_error[v],
                rel_error: nodes.rel_error[v],
                lost_bits: nodes.lost_bits[v],
                ulps: super::print::ulps_text(nodes.ulps[v]),
                cond: nodes.cond[v],
                flagged: u8::from(class == ErrorClass::Flagged),
                nonfinite: u8::from(class == ErrorClass::NonFinite),
                beyond_range: u8::from(class == ErrorClass::Overflow),
                any_order_bound: nodes.order_bounds[any][v],
                over_any_order: over(nodes.order_bounds[any][v]),
                balanced_bound: nodes.order_bounds[balanced][v],
                over_balanced: over(nodes.order_bounds[balanced][v]),
            })?;
        }
    }
    w.flush()?;
    Ok(())
}
