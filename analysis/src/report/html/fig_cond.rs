//! The paper's Fig. 10 replica: largest relative error of each tree versus its κ, with u·κ,
//! the chain worst case γₙ₋₁·κ and, where the run has them, the bounds.

use super::common::{max_n, prop_line, series_label};
use crate::bounds::{U, gamma};
use crate::report::ReportError;
use crate::report::data::ReportData;
use crate::report::figure::{FIG_H, FIG_W, decade_range, figure, not_available};
use crate::report::fmt::escape;
use crate::report::plots::{self, Axis, Chart, Dash, Series};
use crate::report::style::{self, LINE_BOUND, LINE_U_KAPPA};
use std::fmt::Write;

/// The paper's Fig. 10: each tree's largest relative error versus its condition number.
pub(super) fn section(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
    h.push_str(
        "<section id=\"fig-cond\">\n<h2>Error versus condition number (the paper's Fig. 10)</h2>\n",
    );
    let title = "Largest relative error of each tree versus its condition number";
    let keys = data.series_keys();
    let styles = style::styles_for(&keys);
    let Some(xr) = decade_range(data.rows.iter().map(|r| r.achieved_cond)) else {
        not_available(
            h,
            "fig-max-rel",
            title,
            "results.csv has no finite condition numbers.",
        );
        h.push_str("</section>\n");
        return Ok(());
    };
    let n = max_n(data);
    let g = gamma(n.saturating_sub(1) as u64);
    let mut series = Vec::new();
    let mut zeros = 0;
    for ((op, algo), st) in keys.iter().zip(&styles) {
        let pts: Vec<(f64, f64)> = data
            .rows
            .iter()
            .filter(|r| &r.op == op && &r.algorithm == algo)
            .filter_map(|r| {
                // A non-finite error has no place on a log axis (a finding counts it).
                if r.max_rel_error > 0.0 && r.max_rel_error.is_finite() {
                    Some((r.achieved_cond, r.max_rel_error))
                } else {
                    zeros += 1;
                    None
                }
            })
            .collect();
        series.push(Series {
            label: series_label(op, algo),
            style: *st,
            points: pts,
            size: 4,
            connect: false,
            opacity: 1.0,
        });
    }
    // Where the run has bounds: the largest bound over each tree's nodes (it bounds the tree's
    // largest error), else the bound at each run's worst sampled node.
    let (tree_bounds, bound_source) = tree_bounds(data);
    let have_bounds = !tree_bounds.is_empty();
    for ((op, algo), st) in keys.iter().zip(&styles) {
        let pts: Vec<(f64, f64)> = tree_bounds
            .iter()
            .filter(|(o, a, _, _)| o == op && a == algo)
            .map(|(_, _, k, b)| (*k, *b))
            .collect();
        if pts.is_empty() {
            continue;
        }
        series.push(Series {
            label: format!("{bound_source}: {}", series_label(op, algo)),
            style: *st,
            points: pts,
            size: 3,
            connect: false,
            opacity: 0.45,
        });
    }
    let yr = decade_range(
        series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain([U * xr.1, U * xr.0]),
    )
    .unwrap_or((1e-8, 1.0));
    let chart = Chart {
        width: FIG_W,
        height: FIG_H,
        x: Axis::log("achieved condition number κ = Σ|w| / |Σw| of the whole tree (dimensionless)")
            .with_range(xr.0, xr.1),
        y: Axis::log("largest relative error over the tree's nodes (dimensionless)")
            .with_range(yr.0, yr.1),
        series,
        lines: vec![
            prop_line("u·κ (u = 2⁻²⁴)".into(), LINE_U_KAPPA, Dash::Dashed, U),
            prop_line(
                format!("γₙ₋₁·κ, worst case of a chain (n = {n})"),
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
        "One marker per tree, algorithm and operation ({} markers drawn). Both axes are logarithmic. The dashed line is u·κ, the error of a single correctly rounded operation on a sum of condition number κ; the red line is the first-order worst-case bound γₙ₋₁·κ = (n−1)u/(1−(n−1)u)·κ of a chain of n = {n} vertices. Bounds hold node by node with the node's own κᵥ, so a tree's largest error can lie above γₙ₋₁·κ when one of its nodes is worse conditioned than the whole tree (see the per-node figures).",
        r.markers
    );
    if zeros > 0 {
        let _ = write!(
            cap,
            " {zeros} runs had no error at all (every node exact) and cannot be drawn on a log axis."
        );
    }
    if !r.lines_outside.is_empty() {
        let _ = write!(
            cap,
            " Outside the plotted range: {}.",
            escape(&r.lines_outside.join("; "))
        );
    }
    if !have_bounds {
        cap.push_str(" Per-node error bounds are not available in this run (results.csv has no max_bound_lost_bits, nodes-sample.csv no bound_rel), so only the a-priori lines are shown.");
    } else if bound_source == TREE_BOUND {
        cap.push_str(" Faint markers: the largest a priori deterministic bound over the tree's nodes, 2^(max_bound_lost_bits − 24) from results.csv; it bounds the tree's largest error, drawn above it at the same κ.");
    } else {
        cap.push_str(" Faint markers: the a priori deterministic bound at each run's worst sampled node (bound_rel in nodes-sample.csv), above that run's marker.");
    }
    figure(h, "fig-max-rel", title, Some(&r.svg), &cap);
    h.push_str("</section>\n");
    Ok(())
}

const TREE_BOUND: &str = "largest bound";
const WORST_NODE_BOUND: &str = "bound at worst node";

/// (op, algorithm, κ of the tree, relative bound) per run, and what the bound is.
#[allow(clippy::type_complexity)]
fn tree_bounds(data: &ReportData) -> (Vec<(String, String, f64, f64)>, &'static str) {
    let from_rows: Vec<(String, String, f64, f64)> = data
        .rows
        .iter()
        .filter_map(|r| {
            let b = r.max_bound_lost_bits?;
            Some((
                r.op.clone(),
                r.algorithm.clone(),
                r.achieved_cond,
                2f64.powf(b - 24.0),
            ))
        })
        .collect();
    if from_rows.is_empty() {
        (worst_node_bounds(data), WORST_NODE_BOUND)
    } else {
        (from_rows, TREE_BOUND)
    }
}

/// (op, algorithm, κ of the tree, bound at the worst node) for records flagged `worst` that
/// carry a bound.
fn worst_node_bounds(data: &ReportData) -> Vec<(String, String, f64, f64)> {
    let Some(nodes) = &data.nodes else {
        return vec![];
    };
    let cond_of: std::collections::HashMap<(usize, &str, &str), f64> = data
        .rows
        .iter()
        .map(|r| {
            (
                (r.tree, r.op.as_str(), r.algorithm.as_str()),
                r.achieved_cond,
            )
        })
        .collect();
    nodes
        .iter()
        .filter(|n| n.is_worst())
        .filter_map(|n| {
            let b = n.bound_rel?;
            let k = cond_of.get(&(n.tree, n.op.as_str(), n.algorithm.as_str()))?;
            Some((n.op.clone(), n.algorithm.clone(), *k, b))
        })
        .collect()
}
