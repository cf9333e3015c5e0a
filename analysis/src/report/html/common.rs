//! What the accuracy figures share: series labels, the γₙ₋₁ tree size, reference lines.

use crate::report::data::ReportData;
use crate::report::plots::{Dash, RefLine};

/// The legend label of an (op, algorithm) series.
pub(super) fn series_label(op: &str, algo: &str) -> String {
    format!("{algo} · {op}")
}

/// The vertex count used for the γₙ₋₁ line: the largest tree of the sweep.
pub(super) fn max_n(data: &ReportData) -> usize {
    data.rows.iter().map(|r| r.n).max().unwrap_or(0)
}

/// Reference lines y = c·κ over a wide κ range (clipped by the plot).
pub(super) fn prop_line(
    label: String,
    color: plotters::style::RGBColor,
    dash: Dash,
    c: f64,
) -> RefLine {
    RefLine {
        label,
        color,
        dash,
        points: vec![(1e-30, c * 1e-30), (1e30, c * 1e30)],
    }
}
