//! How tight the bound is: a histogram of measured error ÷ deterministic bound, one panel per
//! algorithm.

use super::common::algorithm_groups;
use crate::ReportError;
use crate::data::ReportData;
use crate::figure::{FIG_H, FIG_W, not_available};
use crate::panels::{Panel, PanelRow, grid, line_entry};
use crate::plots::{Axis, Chart, Dash, RefLine, Series};
use crate::style::{self, LINE_PROB, SeriesStyle};
use std::fmt::Write;

/// Bins per decade of the histogram.
const BINS_PER_DECADE: f64 = 4.0;

/// Histogram of measured error ÷ deterministic bound.
pub(super) fn section(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
    h.push_str("<section id=\"fig-tightness\">\n<h2>How tight is the bound?</h2>\n");
    let title = "Tightness: measured error ÷ deterministic bound";
    let keys = data.series_keys();
    let styles = style::styles_for(&keys);
    let (per_key, source) = values(data, &keys);
    if source.is_empty() {
        not_available(
            h,
            "fig-tightness-hist",
            title,
            "results.csv has no max_tightness column and nodes-sample.csv no bound_rel values (sweeps written before the bounds were computed lack them).",
        );
        h.push_str("</section>\n");
        return Ok(());
    }
    let positive = || {
        per_key
            .iter()
            .flatten()
            .copied()
            .filter(|t| *t > 0.0 && t.is_finite())
    };
    let lo = positive().fold(f64::INFINITY, f64::min);
    let hi = positive().fold(0.0f64, f64::max);
    // Up to 10 at least, so the region of violations (> 1) is visible.
    let (a, b) = (lo.log10().floor(), hi.log10().ceil().max(1.0));
    let nbins = ((b - a) * BINS_PER_DECADE).round().max(1.0) as usize;
    let zero_total: usize = per_key.iter().flatten().filter(|t| **t <= 0.0).count();
    let (hists, ymax) = histograms(&keys, &styles, &per_key, (a, nbins));
    let ytop = (ymax * 1.1).max(1.0);
    let line = RefLine {
        label: "tightness 1: error equals the bound".into(),
        color: LINE_PROB,
        dash: Dash::Dashed,
        points: vec![(1.0, 0.0), (1.0, ytop)],
    };
    // One panel per algorithm with both ops, on shared axes.
    let panels: Vec<Panel> = algorithm_groups(data, &[])
        .into_iter()
        .filter_map(|grp| {
            let series: Vec<Series> = grp
                .keys
                .iter()
                .filter_map(|(k, st)| {
                    let i = keys.iter().position(|x| x == k)?;
                    // The panel's look: its second op in the open variant.
                    hists[i].clone().map(|h| Series { style: *st, ..h })
                })
                .collect();
            (!series.is_empty()).then(|| Panel {
                chart: Chart::panel(
                    (FIG_W, FIG_H),
                    (
                        Axis::log("error ÷ deterministic bound")
                            .with_range(10f64.powf(a), 10f64.powf(b)),
                        Axis::linear("share in the bin (%)").with_range(0.0, ytop),
                    ),
                    series,
                    vec![line.clone()],
                    Vec::new(),
                ),
                title: grp.title,
            })
        })
        .collect();
    let rows = PanelRow::one(panels);
    grid(
        h,
        "fig-tightness-hist",
        title,
        &[line_entry(&line)],
        rows,
        |_| {
            let mut cap = format!(
                "Histogram with {} bins per decade, {source}; each series sums to 100 %, every panel on the same axes. Values right of 1 would be bound violations.",
                BINS_PER_DECADE
            );
            if zero_total > 0 {
                let _ = write!(
                    cap,
                    " {zero_total} values were 0 (exact results) and are not binned."
                );
            }
            cap
        },
    )?;
    h.push_str("</section>\n");
    Ok(())
}

/// The tightness values of each (op, algorithm) of `keys`, and where they come from: per node
/// where the sample carries bounds, else per run from results.csv; no source: none.
fn values(data: &ReportData, keys: &[(String, String)]) -> (Vec<Vec<f64>>, &'static str) {
    let mut per_key: Vec<Vec<f64>> = vec![vec![]; keys.len()];
    let mut source = "";
    if let Some(nodes) = &data.nodes {
        for r in nodes {
            if let (Some(b), Some(i)) = (
                r.bound_rel,
                keys.iter()
                    .position(|(o, a)| *o == r.op && *a == r.algorithm),
            ) {
                if b > 0.0 {
                    per_key[i].push(r.rel_error / b);
                }
            }
        }
        if per_key.iter().any(|v| !v.is_empty()) {
            source = "per sampled node (rel_error ÷ bound_rel of nodes-sample.csv)";
        }
    }
    if source.is_empty() {
        for r in &data.rows {
            if let (Some(t), Some(i)) = (
                r.max_tightness,
                keys.iter()
                    .position(|(o, a)| *o == r.op && *a == r.algorithm),
            ) {
                per_key[i].push(t);
            }
        }
        if per_key.iter().any(|v| !v.is_empty()) {
            source = "per run: the largest measured error ÷ bound over the tree's nodes (max_tightness of results.csv)";
        }
    }
    (per_key, source)
}

/// Per key, its histogram (share of its values per bin, in %) as a connected series, and the
/// largest share.
fn histograms(
    keys: &[(String, String)],
    styles: &[SeriesStyle],
    per_key: &[Vec<f64>],
    (a, nbins): (f64, usize),
) -> (Vec<Option<Series>>, f64) {
    let mut hists: Vec<Option<Series>> = Vec::new();
    let mut ymax = 0.0f64;
    for (((op, _), st), vals) in keys.iter().zip(styles).zip(per_key) {
        if vals.is_empty() {
            hists.push(None);
            continue;
        }
        let mut counts = vec![0usize; nbins];
        for t in vals.iter().filter(|t| **t > 0.0 && t.is_finite()) {
            let i =
                (((t.log10() - a) * BINS_PER_DECADE).floor() as isize).clamp(0, nbins as isize - 1);
            counts[i as usize] += 1;
        }
        let pts: Vec<(f64, f64)> = counts
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let centre = a + (i as f64 + 0.5) / BINS_PER_DECADE;
                (10f64.powf(centre), 100.0 * c as f64 / vals.len() as f64)
            })
            .collect();
        ymax = ymax.max(pts.iter().map(|p| p.1).fold(0.0, f64::max));
        hists.push(Some(Series {
            label: op.clone(),
            style: *st,
            points: pts,
            size: 4,
            connect: true,
            opacity: 1.0,
        }));
    }
    (hists, ymax)
}
