//! Per-node errors from `nodes-sample.csv`.

use super::common::{max_n, prop_line, series_label};
use crate::bounds::{U, gamma};
use crate::report::ReportError;
use crate::report::data::{NodeRecord, ReportData};
use crate::report::figure::{FIG_H, FIG_W, decade_range, figure, not_available};
use crate::report::plots::{self, Axis, Chart, Dash, Series};
use crate::report::style::{self, LINE_BOUND, LINE_U_KAPPA, SeriesStyle};
use std::fmt::Write;

/// The most per-node records drawn in one scatter (before merging markers on one pixel), and
/// the most of them that also show their bound: together they keep a report under ~5 MB.
pub const MAX_NODE_POINTS: usize = 6000;
pub const MAX_BOUND_POINTS: usize = 2000;

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

/// One scatter per op: each sampled node's relative error versus its own κᵥ, with its bound.
pub(super) fn section(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
    h.push_str("<section id=\"fig-nodes\">\n<h2>Per-node errors</h2>\n");
    let Some(nodes) = &data.nodes else {
        not_available(
            h,
            "fig-nodes-none",
            "Relative error of each node versus the node's own condition number",
            "the sweep wrote no nodes-sample.csv (it predates per-node samples).",
        );
        h.push_str("</section>\n");
        return Ok(());
    };
    let keys = data.series_keys();
    let styles = style::styles_for(&keys);
    let n = max_n(data);
    let g = gamma(n.saturating_sub(1) as u64);
    for op in data.ops() {
        let title =
            format!("{op}: relative error of each sampled node versus its own condition number κᵥ");
        let id = format!(
            "fig-nodes-{}",
            op.replace(|c: char| !c.is_ascii_alphanumeric(), "-")
        );
        let all: Vec<&NodeRecord> = nodes.iter().filter(|r| r.op == op).collect();
        let total = all.len();
        if total == 0 {
            not_available(
                h,
                &id,
                &title,
                "nodes-sample.csv has no records of this operation.",
            );
            continue;
        }
        let shown = thin(all, MAX_NODE_POINTS);
        let exact = shown.iter().filter(|r| r.rel_error == 0.0).count();
        let inf_cond = shown.iter().filter(|r| !r.cond.is_finite()).count();
        let drawable = || {
            shown
                .iter()
                .filter(|r| r.rel_error > 0.0 && r.cond.is_finite() && r.cond > 0.0)
        };
        let mut series = Vec::new();
        let mut bound_points = 0;
        for ((o, algo), st) in keys.iter().zip(&styles) {
            if *o != op {
                continue;
            }
            let pts: Vec<(f64, f64)> = drawable()
                .filter(|r| &r.algorithm == algo)
                .map(|r| (r.cond, r.rel_error))
                .collect();
            series.push(Series {
                label: series_label(o, algo),
                style: *st,
                points: pts,
                size: 3,
                connect: false,
                opacity: 0.6,
            });
        }
        let with_bound = thin(
            shown
                .iter()
                .copied()
                .filter(|r| r.bound_rel.is_some_and(|b| b > 0.0) && r.cond.is_finite())
                .collect(),
            MAX_BOUND_POINTS,
        );
        for ((o, algo), st) in keys.iter().zip(&styles) {
            if *o != op {
                continue;
            }
            let pts: Vec<(f64, f64)> = with_bound
                .iter()
                .filter(|r| &r.algorithm == algo)
                .filter_map(|r| r.bound_rel.filter(|b| *b > 0.0).map(|b| (r.cond, b)))
                .collect();
            if pts.is_empty() {
                continue;
            }
            bound_points += pts.len();
            series.push(Series {
                label: format!("bound: {}", series_label(o, algo)),
                style: SeriesStyle {
                    color: st.color,
                    shape: style::Shape::Plus,
                },
                points: pts,
                size: 2,
                connect: false,
                opacity: 0.8,
            });
        }
        let xr = decade_range(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
        let Some(xr) = xr else {
            not_available(
                h,
                &id,
                &title,
                "no sampled node of this operation has a non-zero error and a finite condition number.",
            );
            continue;
        };
        let yr = decade_range(
            series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .chain([U * xr.0, U * xr.1]),
        )
        .unwrap_or((1e-8, 1.0));
        let chart = Chart {
            width: FIG_W,
            height: FIG_H,
            x: Axis::log(
                "condition number of the node's own sum κᵥ = Σ|terms| / |Σ terms| (dimensionless)",
            )
            .with_range(xr.0, xr.1),
            y: Axis::log("relative error of the node (dimensionless)").with_range(yr.0, yr.1),
            series,
            lines: vec![
                prop_line("u·κᵥ".into(), LINE_U_KAPPA, Dash::Dashed, U),
                prop_line(format!("γₙ₋₁·κᵥ (n = {n})"), LINE_BOUND, Dash::Solid, g),
            ],
            bars: Vec::new(),
            bands: Vec::new(),
            legend: true,
        };
        let r = plots::render(&chart, &title)?;
        let mut cap = format!(
            "{} of the {} sampled nodes shown{} ({} markers after merging markers that fall on the same pixel). nodes-sample.csv holds, for every tree × algorithm × op, an even sample of the vertices plus the worst node.",
            shown.len(),
            total,
            if shown.len() < total {
                " (every run's worst node, then an even stride)"
            } else {
                ""
            },
            r.markers
        );
        if exact + inf_cond > 0 {
            let _ = write!(
                cap,
                " Not drawable on log axes: {exact} exact nodes (error 0), {inf_cond} nodes whose exact value is 0 (κᵥ = ∞)."
            );
        }
        if bound_points == 0 {
            cap.push_str(" Per-node bounds are not available in this run (bound_rel is empty); the red line is the a-priori worst case γₙ₋₁·κᵥ.");
        } else {
            let _ = write!(
                cap,
                " Small + markers: the a priori deterministic bound of the node, for {bound_points} of the nodes shown (every run's worst node, then an even stride)."
            );
        }
        figure(h, &id, &title, Some(&r.svg), &cap);
    }
    h.push_str("</section>\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(tree: usize, worst: bool) -> NodeRecord {
        NodeRecord {
            tree,
            algorithm: crate::Algorithm::with_role(crate::algorithms::PaperRole::Algorithm2)
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
