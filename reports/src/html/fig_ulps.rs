//! The distance of each tree's worst result from the correctly rounded one, in f32 ulps on a
//! log₂ axis, one panel per algorithm: 0 (correctly rounded) on its own row, counts below a
//! binade as counted, beyond as the lost bits imply ([`crate::ulps`]), so the figure
//! does not saturate where results.csv's count does.

use super::common::algorithm_groups;
use crate::ReportError;
use crate::data::{ReportData, ResultRow};
use crate::figure::{FIG_H, FIG_W, decade_range, not_available};
use crate::legend::Entry;
use crate::panels::{Panel, PanelRow, grid, line_entry};
use crate::plots::{Axis, Chart, Dash, RefLine, Series};
use crate::style::{LINE_PROB, LINE_U_KAPPA};
use crate::ulps::{SATURATED, Shown};
use std::fmt::Write;

const TITLE: &str = "Distance from the correctly rounded result (f32 ulps, log₂ scale)";

/// (κ of the tree, log₂-axis value) of a run: 0 ulps at 0, else the distance shown.
fn point(r: &ResultRow) -> Option<(f64, f64)> {
    let shown = Shown::of(r.max_ulps, r.max_lost_bits)?;
    let y = match shown {
        Shown::Count(u) => u,
        Shown::AtLeast(k) => 2f64.powf(k.max(23.0)),
        Shown::Infinite => return None,
    };
    Some((r.achieved_cond, y))
}

/// The figure, or a note where results.csv has no `max_ulps`.
pub(super) fn section(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
    let Some(xr) = decade_range(data.rows.iter().map(|r| r.achieved_cond)) else {
        return Ok(());
    };
    if !data.rows.iter().any(|r| r.max_ulps.is_some()) {
        not_available(
            h,
            "fig-ulps",
            TITLE,
            "results.csv has no max_ulps column (sweeps written before it lack it).",
        );
        return Ok(());
    }
    let top = data
        .rows
        .iter()
        .filter_map(point)
        .map(|p| p.1.log2())
        .fold(24.0f64, f64::max);
    let lines = vec![
        level(
            "1 ulp: faithfully rounded",
            LINE_U_KAPPA,
            Dash::Dashed,
            1.0,
            xr,
        ),
        level(
            "2²³ ulps: a binade away; above, at least 2^(lost bits − 1)",
            LINE_PROB,
            Dash::Dotted,
            SATURATED,
            xr,
        ),
    ];
    let mut infinite = 0;
    let panels: Vec<Panel> = algorithm_groups(data, &[])
        .into_iter()
        .map(|grp| {
            let series = grp
                .keys
                .iter()
                .map(|((op, algo), st)| {
                    let mine = data
                        .rows
                        .iter()
                        .filter(|r| r.op == *op && r.algorithm == *algo);
                    let points: Vec<(f64, f64)> = mine.clone().filter_map(point).collect();
                    infinite += mine
                        .filter(|r| point(r).is_none() && r.max_ulps.is_some())
                        .count();
                    Series {
                        label: op.clone(),
                        style: *st,
                        points,
                        size: 4,
                        connect: false,
                        opacity: 1.0,
                    }
                })
                .collect();
            Panel {
                chart: Chart::panel(
                    (FIG_W, FIG_H),
                    (
                        Axis::log("κ of the whole tree").with_range(xr.0, xr.1),
                        Axis::log2("largest distance (ulps)")
                            .with_range(0.0, 2f64.powf(top.ceil())),
                    ),
                    series,
                    lines.clone(),
                    Vec::new(),
                ),
                title: grp.title,
            }
        })
        .collect();
    let shared: Vec<Entry> = lines.iter().map(line_entry).collect();
    grid(h, "fig-ulps", TITLE, &shared, PanelRow::one(panels), |d| {
        let mut cap = format!(
            "One marker per tree, algorithm and operation ({} drawn): the largest distance of a node's result from the exact value rounded to nearest f32, in ulps, on a log₂ axis whose bottom row is 0 (correctly rounded at every node). Below 2²³ the distance is results.csv's max_ulps, the count of f32 values between the two. That count grows by only 2²³ per binade beyond, and stops near 2³² across a change of sign, so from 2²³ on a marker stands at 2^(b − 1) for a tree that lost b bits: the least distance, in ulps of the exact value, its relative error implies.",
            d.markers
        );
        if infinite > 0 {
            let _ = write!(
                cap,
                " {infinite} runs had a NaN or ±∞ result, an infinite distance, and are not drawn."
            );
        }
        cap
    })?;
    Ok(())
}

/// A horizontal line at `ulps` across the κ range.
fn level(
    label: &str,
    color: plotters::style::RGBColor,
    dash: Dash,
    ulps: f64,
    xr: (f64, f64),
) -> RefLine {
    RefLine {
        label: label.to_string(),
        color,
        dash,
        points: vec![(xr.0, ulps), (xr.1, ulps)],
    }
}
