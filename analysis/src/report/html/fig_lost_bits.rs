//! Lost bits of each tree versus its κ.

use super::common::{max_n, series_label};
use crate::bounds::{U, gamma};
use crate::report::ReportError;
use crate::report::data::ReportData;
use crate::report::figure::{FIG_H, FIG_W, decade_range, figure, not_available};
use crate::report::plots::{self, Axis, Chart, Dash, RefLine, Series};
use crate::report::style::{self, LINE_BOUND, LINE_U_KAPPA};

/// Bits lost by each tree versus its condition number, with the bits the bound allows.
pub(super) fn section(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
    let title = "Bits lost versus condition number";
    let keys = data.series_keys();
    let styles = style::styles_for(&keys);
    let Some(xr) = decade_range(data.rows.iter().map(|r| r.achieved_cond)) else {
        not_available(
            h,
            "fig-lost-bits",
            title,
            "results.csv has no finite condition numbers.",
        );
        return Ok(());
    };
    let n = max_n(data);
    let g = gamma(n.saturating_sub(1) as u64);
    let series: Vec<Series> = keys
        .iter()
        .zip(&styles)
        .map(|((op, algo), st)| Series {
            label: series_label(op, algo),
            style: *st,
            points: data
                .rows
                .iter()
                .filter(|r| &r.op == op && &r.algorithm == algo)
                // An infinite loss cannot be drawn (a finding counts it).
                .filter(|r| r.max_lost_bits.is_finite())
                .map(|r| (r.achieved_cond, r.max_lost_bits))
                .collect(),
            size: 4,
            connect: false,
            opacity: 1.0,
        })
        .collect();
    let mut series = series;
    for ((op, algo), st) in keys.iter().zip(&styles) {
        let pts: Vec<(f64, f64)> = data
            .rows
            .iter()
            .filter(|r| &r.op == op && &r.algorithm == algo)
            .filter_map(|r| r.max_bound_lost_bits.map(|b| (r.achieved_cond, b)))
            .collect();
        if !pts.is_empty() {
            series.push(Series {
                label: format!("bits allowed by the bound: {}", series_label(op, algo)),
                style: *st,
                points: pts,
                size: 3,
                connect: false,
                opacity: 0.45,
            });
        }
    }
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|b| b.is_finite())
        .fold(0.0f64, f64::max)
        .max(xr.1.log2().min(24.0))
        .ceil()
        + 1.0;
    let line = |label: String, color, dash, c: f64| RefLine {
        label,
        color,
        dash,
        points: [xr.0, xr.1]
            .iter()
            .map(|&k| (k, (c * k).log2() + 24.0))
            .collect(),
    };
    let chart = Chart {
        width: FIG_W,
        height: FIG_H,
        x: Axis::log("achieved condition number κ of the whole tree (dimensionless)")
            .with_range(xr.0, xr.1),
        y: Axis::linear("largest loss over the tree's nodes (bits)").with_range(0.0, top),
        series,
        lines: vec![
            line(
                "log₂ κ: the loss of an error u·κ".into(),
                LINE_U_KAPPA,
                Dash::Dashed,
                U,
            ),
            line(
                format!("log₂(γₙ₋₁·κ) + 24, chain worst case (n = {n})"),
                LINE_BOUND,
                Dash::Solid,
                g,
            ),
        ],
        bars: Vec::new(),
        bands: Vec::new(),
        legend: true,
    };
    let r = plots::render(&chart, title)?;
    let mut cap = format!(
        "Lost bits = log₂(relative error) + 24, floored at 0 (a correctly rounded f32 loses 0 bits); one marker per tree, algorithm and operation ({} drawn). A result that lost 24 bits or more has no correct significant bit left.",
        r.markers
    );
    if data.rows.iter().any(|r| r.max_bound_lost_bits.is_some()) {
        cap.push_str(" Faint markers: the most bits the a priori deterministic bound allows any node of the tree to lose (max_bound_lost_bits).");
    } else {
        cap.push_str(" Bits allowed by the bounds are not available in this run (no max_bound_lost_bits column).");
    }
    figure(h, "fig-lost-bits", title, Some(&r.svg), &cap);
    Ok(())
}
