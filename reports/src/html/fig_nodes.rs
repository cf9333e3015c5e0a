//! Per-node errors from `nodes-sample.csv`.

use super::common::{algorithm_groups, max_n, prop_line, range_band};
use crate::ReportError;
use crate::data::{NodeRecord, ReportData};
use crate::figure::{FIG_H, FIG_W, decade_range, not_available};
use crate::legend::Entry;
use crate::panels::{Drawn, Panel, PanelRow, grid, line_entry};
use crate::plots::{Axis, Chart, Dash, RefLine, Series};
use crate::style::{LINE_BOUND, LINE_U_KAPPA};
use analysis::bounds::{U, gamma};
use std::fmt::Write;

/// The most per-node records drawn per op (before merging markers on one pixel), over all
/// panels: it keeps a report under ~5 MB. The bound is drawn as a band of per-bin ranges, so
/// it costs a few points whatever the sample.
pub const MAX_NODE_POINTS: usize = 6000;

/// Bins per decade of κᵥ of the bound's band.
const BAND_BINS_PER_DECADE: f64 = 4.0;

/// A deterministic subset of at most `max` records: every run's worst node, then an even
/// stride over the rest.
fn thin(records: Vec<&NodeRecord>, max: usize) -> Vec<&NodeRecord> {
    if records.len() <= max {
        return records;
    }
    let (worst, rest): (Vec<&NodeRecord>, Vec<&NodeRecord>) =
        records.into_iter().partition(|r| r.is_worst());
    let room = max.saturating_sub(worst.len());
    let mut out = worst;
    // `room` records evenly spread over the rest (a fractional stride).
    let n = rest.len();
    out.extend((0..room.min(n)).map(|i| rest[i * n / room.min(n)]));
    out
}

/// Each sampled node's relative error versus its own κᵥ, one panel per algorithm with both
/// ops, and the bound's range per bin of κᵥ shaded.
pub(super) fn section(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
    h.push_str("<section id=\"fig-nodes\">\n<h2>Per-node errors</h2>\n");
    let title = "Relative error of each sampled node versus its own condition number κᵥ";
    let Some(nodes) = &data.nodes else {
        not_available(
            h,
            "fig-nodes-none",
            title,
            "the sweep wrote no nodes-sample.csv (it predates per-node samples).",
        );
        h.push_str("</section>\n");
        return Ok(());
    };
    let n = max_n(data);
    let g = gamma(n.saturating_sub(1) as u64);
    // Thinned per op, as one scatter per op was: the same markers, now spread over panels.
    let mut shown: Vec<&NodeRecord> = Vec::new();
    let mut total = 0;
    for op in data.ops() {
        let all: Vec<&NodeRecord> = nodes.iter().filter(|r| r.op == op).collect();
        total += all.len();
        shown.extend(thin(all, MAX_NODE_POINTS));
    }
    if total == 0 {
        not_available(
            h,
            "fig-nodes-panels",
            title,
            "nodes-sample.csv has no records.",
        );
        h.push_str("</section>\n");
        return Ok(());
    }
    let exact = shown.iter().filter(|r| r.rel_error == 0.0).count();
    let inf_cond = shown.iter().filter(|r| !r.cond.is_finite()).count();
    let drawable: Vec<&NodeRecord> = shown
        .iter()
        .copied()
        .filter(|r| r.rel_error > 0.0 && r.cond.is_finite() && r.cond > 0.0)
        .collect();
    let with_bound = |r: &&&NodeRecord| r.bound_rel.is_some_and(|b| b > 0.0 && b.is_finite());
    let bound_points = drawable.iter().filter(with_bound).count();
    let Some(xr) = decade_range(drawable.iter().map(|r| r.cond)) else {
        not_available(
            h,
            "fig-nodes-panels",
            title,
            "no sampled node has a non-zero error and a finite condition number.",
        );
        h.push_str("</section>\n");
        return Ok(());
    };
    let yr = decade_range(
        drawable
            .iter()
            .map(|r| r.rel_error)
            .chain(
                drawable
                    .iter()
                    .filter(with_bound)
                    .filter_map(|r| r.bound_rel),
            )
            .chain([U * xr.0, U * xr.1]),
    )
    .unwrap_or((1e-8, 1.0));
    let lines = vec![
        prop_line("u·κᵥ".into(), LINE_U_KAPPA, Dash::Dashed, U),
        prop_line(format!("γₙ₋₁·κᵥ (n = {n})"), LINE_BOUND, Dash::Solid, g),
    ];
    let panels = panels(data, &drawable, (xr, yr), &lines);
    let shared: Vec<Entry> = lines.iter().map(line_entry).collect();
    let rows = PanelRow::one(panels);
    let counts = Counts {
        shown: shown.len(),
        total,
        exact,
        inf_cond,
        bound_points,
    };
    grid(h, "fig-nodes-panels", title, &shared, rows, |d| {
        caption(d, &counts)
    })?;
    h.push_str("</section>\n");
    Ok(())
}

/// How many sampled nodes the figure drew and left out.
struct Counts {
    shown: usize,
    total: usize,
    exact: usize,
    inf_cond: usize,
    bound_points: usize,
}

/// One panel per algorithm with both ops, the bound's range per bin of κᵥ shaded.
fn panels(
    data: &ReportData,
    drawable: &[&NodeRecord],
    (xr, yr): ((f64, f64), (f64, f64)),
    lines: &[RefLine],
) -> Vec<Panel> {
    let with_bound = |r: &&&NodeRecord| r.bound_rel.is_some_and(|b| b > 0.0 && b.is_finite());
    algorithm_groups(data, &[])
        .into_iter()
        .map(|grp| {
            let mine = |op: &str, algo: &str| {
                drawable
                    .iter()
                    .copied()
                    .filter(|r| r.op == op && r.algorithm == algo)
                    .collect::<Vec<&NodeRecord>>()
            };
            let series = grp
                .keys
                .iter()
                .map(|((op, algo), st)| Series {
                    label: op.clone(),
                    style: *st,
                    points: mine(op, algo)
                        .iter()
                        .map(|r| (r.cond, r.rel_error))
                        .collect(),
                    size: 3,
                    connect: false,
                    opacity: 0.6,
                })
                .collect();
            let bands = grp
                .keys
                .iter()
                .filter_map(|((op, algo), st)| {
                    let pts: Vec<(f64, f64, f64)> = mine(op, algo)
                        .iter()
                        .filter(with_bound)
                        .filter_map(|r| {
                            let bin = (r.cond.log10() * BAND_BINS_PER_DECADE).floor();
                            Some((bin, r.cond, r.bound_rel?))
                        })
                        .collect();
                    range_band(
                        &pts,
                        (st.color, 0.16),
                        format!("{op}: a priori bound (range)"),
                    )
                })
                .collect();
            Panel {
                chart: Chart::panel(
                    (FIG_W, FIG_H),
                    (
                        Axis::log("κᵥ of the node's own sum").with_range(xr.0, xr.1),
                        Axis::log("relative error of the node").with_range(yr.0, yr.1),
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

fn caption(d: &Drawn, c: &Counts) -> String {
    let mut cap = format!(
        "{} of the {} sampled nodes shown{} ({} markers after merging markers that fall on the same pixel), every panel on the same axes: κᵥ = Σ|terms| / |Σ terms| of the node's own sum. nodes-sample.csv holds, for every tree × algorithm × op, an even sample of the vertices plus the worst node.",
        c.shown,
        c.total,
        if c.shown < c.total {
            " (per operation, every run's worst node, then an even stride)"
        } else {
            ""
        },
        d.markers
    );
    if c.exact + c.inf_cond > 0 {
        let _ = write!(
            cap,
            " Not drawable on log axes: {} exact nodes (error 0), {} nodes whose exact value is 0 (κᵥ = ∞).",
            c.exact, c.inf_cond
        );
    }
    if c.bound_points == 0 {
        cap.push_str(" Per-node bounds are not available in this run (bound_rel is empty); the red line is the a-priori worst case γₙ₋₁·κᵥ.");
    } else {
        let _ = write!(
            cap,
            " Shaded: the a priori deterministic bound of the {} nodes shown that have one, from its smallest to its largest value in each quarter decade of κᵥ.",
            c.bound_points
        );
    }
    cap
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(tree: usize, worst: bool) -> NodeRecord {
        NodeRecord {
            tree,
            algorithm: analysis::Algorithm::with_role(analysis::algorithms::PaperRole::Algorithm2)
                .to_string(),
            op: "rootfix".into(),
            vertex: 0,
            cond: 10.0,
            rel_error: 1e-7,
            lost_bits: 0.0,
            bound_rel: None,
            worst: u8::from(worst),
        }
    }

    #[test]
    fn thinning_keeps_every_worst_node_and_the_budget() {
        let recs: Vec<NodeRecord> = (0..1000).map(|i| rec(i, i % 50 == 0)).collect();
        let kept = thin(recs.iter().collect(), 300);
        assert_eq!(kept.len(), 300);
        assert_eq!(kept.iter().filter(|r| r.is_worst()).count(), 20);
        assert_eq!(thin(recs.iter().collect(), 5000).len(), 1000);
    }
}
