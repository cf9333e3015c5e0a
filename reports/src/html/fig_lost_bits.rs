//! Lost bits of each tree versus its κ, one panel per algorithm.

use super::common::{algorithm_groups, max_n, range_band};
use crate::ReportError;
use crate::data::ReportData;
use crate::figure::{FIG_H, FIG_W, decade_range, not_available};
use crate::legend::Entry;
use crate::panels::{Panel, PanelRow, grid, line_entry};
use crate::plots::{Axis, Chart, Dash, RefLine, Series};
use crate::style::{LINE_BOUND, LINE_PROB, LINE_U_KAPPA};
use analysis::bounds::{U, gamma};
use analysis::f32_format::{BITS, bits_of_rel};

/// Bits lost by each tree versus its condition number, with the bits the bound allows, as
/// small multiples: one panel per algorithm with both ops, on shared axes.
pub(super) fn section(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
    let title = "Bits lost versus condition number";
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
    let have_bounds = data.rows.iter().any(|r| r.max_bound_lost_bits.is_some());
    let top = data
        .rows
        .iter()
        .flat_map(|r| [Some(r.max_lost_bits), r.max_bound_lost_bits])
        .flatten()
        .filter(|b| b.is_finite())
        .fold(0.0f64, f64::max)
        .max(xr.1.log2().min(BITS))
        .max(BITS)
        .ceil()
        + 1.0;
    let line = |label: String, color, dash, c: f64| RefLine {
        label,
        color,
        dash,
        points: [xr.0, xr.1]
            .iter()
            .map(|&k| (k, bits_of_rel(c * k)))
            .collect(),
    };
    let lines = vec![
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
        RefLine {
            label: "24 bits: no correct bit left".into(),
            color: LINE_PROB,
            dash: Dash::Dotted,
            points: vec![(xr.0, BITS), (xr.1, BITS)],
        },
    ];
    let panels = panels(data, (xr, top), &lines);
    let shared: Vec<Entry> = lines.iter().map(line_entry).collect();
    let rows = PanelRow::one(panels);
    grid(h, "fig-lost-bits", title, &shared, rows, |d| {
        let mut cap = format!(
            "Lost bits = log₂(relative error) + 24, floored at 0 (a correctly rounded f32 loses 0 bits); one marker per tree, algorithm and operation ({} drawn), every panel on the same axes. A result that lost 24 bits or more (the dotted line) has no correct significant bit left.",
            d.markers
        );
        if have_bounds {
            cap.push_str(" Shaded: the most bits the a priori deterministic bound allows any node of a tree to lose (max_bound_lost_bits), from its smallest to its largest value over the trees of each κ target.");
        } else {
            cap.push_str(" Bits allowed by the bounds are not available in this run (no max_bound_lost_bits column).");
        }
        cap
    })?;
    Ok(())
}

/// One panel per algorithm with both ops: its losses, and the bits its bound allows shaded.
fn panels(data: &ReportData, (xr, top): ((f64, f64), f64), lines: &[RefLine]) -> Vec<Panel> {
    algorithm_groups(data, &[])
        .into_iter()
        .map(|grp| {
            let rows = |op: &str, algo: &str| {
                data.rows
                    .iter()
                    .filter(move |r| r.op == op && r.algorithm == algo)
                    .collect::<Vec<_>>()
            };
            let series = grp
                .keys
                .iter()
                .map(|((op, algo), st)| Series {
                    label: op.clone(),
                    style: *st,
                    // An infinite loss cannot be drawn (a finding counts it).
                    points: rows(op, algo)
                        .iter()
                        .filter(|r| r.max_lost_bits.is_finite())
                        .map(|r| (r.achieved_cond, r.max_lost_bits))
                        .collect(),
                    size: 4,
                    connect: false,
                    opacity: 1.0,
                })
                .collect();
            // Bits allowed are ≥ 0 on a linear axis: the band's lower edge may be 0, which
            // range_band drops, so it is lifted to a hair above.
            let bands = grp
                .keys
                .iter()
                .filter_map(|((op, algo), st)| {
                    let pts: Vec<(f64, f64, f64)> = rows(op, algo)
                        .iter()
                        .filter_map(|r| {
                            r.max_bound_lost_bits
                                .map(|b| (r.target_cond, r.achieved_cond, b.max(1e-9)))
                        })
                        .collect();
                    range_band(
                        &pts,
                        (st.color, 0.16),
                        format!("{op}: bits the bound allows (range)"),
                    )
                })
                .collect();
            Panel {
                chart: Chart::panel(
                    (FIG_W, FIG_H),
                    (
                        Axis::log("κ of the whole tree").with_range(xr.0, xr.1),
                        Axis::linear("largest loss (bits)").with_range(0.0, top),
                    ),
                    series,
                    lines.to_vec(),
                    bands,
                ),
                title: grp.title,
            }
        })
        .collect()
}
