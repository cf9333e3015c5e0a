//! The paper's Fig. 10 replica: largest relative error of each tree versus its κ, with u·κ,
//! the chain worst case γₙ₋₁·κ and, where the run has them, the bounds (shaded), in panels.

use super::common::{algorithm_groups, max_n, paper_groups, paper_names, prop_line, range_band};
use crate::bounds::{U, gamma};
use crate::report::ReportError;
use crate::report::data::ReportData;
use crate::report::figure::{FIG_H, FIG_W, decade_range, not_available};
use crate::report::fmt::escape;
use crate::report::legend::Entry;
use crate::report::panels::{Panel, PanelRow, grid, line_entry};
use crate::report::plots::{Axis, Band, Chart, Dash, Series};
use crate::report::style::{BAND_GREY, LINE_BOUND, LINE_U_KAPPA, SeriesStyle};
use std::fmt::Write;

/// The paper's Fig. 10: each tree's largest relative error versus its condition number, as
/// small multiples: the paper's three algorithms one panel per op, every other algorithm a
/// panel of its own with both ops.
pub(super) fn section(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
    h.push_str(
        "<section id=\"fig-cond\">\n<h2>Error versus condition number (the paper's Fig. 10)</h2>\n",
    );
    let title = "Largest relative error of each tree versus its condition number";
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
    // A non-finite error or an exact tree has no place on a log axis (a finding counts it).
    let drawable =
        |r: &&crate::report::data::ResultRow| r.max_rel_error > 0.0 && r.max_rel_error.is_finite();
    let zeros = data.rows.iter().filter(|r| !drawable(r)).count();
    let points = |op: &str, algo: &str| -> Vec<(f64, f64)> {
        data.rows
            .iter()
            .filter(|r| r.op == op && r.algorithm == algo)
            .filter(drawable)
            .map(|r| (r.achieved_cond, r.max_rel_error))
            .collect()
    };
    // Where the run has bounds: the largest bound over each tree's nodes (it bounds the tree's
    // largest error), else the bound at each run's worst sampled node.
    let (tree_bounds, bound_source) = tree_bounds(data);
    let have_bounds = !tree_bounds.is_empty();
    let bounds_of = |op: &str, algo: &str| -> Vec<(f64, f64, f64)> {
        tree_bounds
            .iter()
            .filter(|b| b.0 == op && b.1 == algo)
            .map(|b| (b.2, b.3, b.4))
            .collect()
    };
    let yr = decade_range(
        data.rows
            .iter()
            .filter(drawable)
            .map(|r| r.max_rel_error)
            .chain(tree_bounds.iter().map(|b| b.4))
            .chain([U * xr.1, U * xr.0]),
    )
    .unwrap_or((1e-8, 1.0));
    let lines = vec![
        prop_line("u·κ (u = 2⁻²⁴)".into(), LINE_U_KAPPA, Dash::Dashed, U),
        prop_line(
            format!("γₙ₋₁·κ, worst case of a chain (n = {n})"),
            LINE_BOUND,
            Dash::Solid,
            g,
        ),
    ];
    let chart = |series: Vec<Series>, bands: Vec<Band>| {
        Chart::panel(
            (FIG_W, FIG_H),
            (
                Axis::log("κ of the whole tree").with_range(xr.0, xr.1),
                Axis::log("largest relative error").with_range(yr.0, yr.1),
            ),
            series,
            lines.clone(),
            bands,
        )
    };
    let series = |op: &str, algo: &str, label: String, st: SeriesStyle| Series {
        label,
        style: st,
        points: points(op, algo),
        size: 4,
        connect: false,
        opacity: 1.0,
    };
    let band_label = have_bounds.then(|| {
        if bound_source == TREE_BOUND {
            "largest a priori bound (range over the trees of a κ target)".to_string()
        } else {
            "a priori bound at the worst sampled node (range)".to_string()
        }
    });
    // The paper's panels: one grey band over their algorithms' bounds.
    let paper: Vec<Panel> = paper_groups(data)
        .into_iter()
        .map(|grp| {
            let all: Vec<(f64, f64, f64)> = grp
                .keys
                .iter()
                .flat_map(|((op, algo), _)| bounds_of(op, algo))
                .collect();
            let band = range_band(&all, BAND_GREY, 0.22);
            Panel {
                chart: chart(
                    grp.keys
                        .iter()
                        .map(|((op, algo), st)| series(op, algo, algo.clone(), *st))
                        .collect(),
                    band.into_iter().collect(),
                ),
                title: grp.title,
                band_label: band_label.clone(),
            }
        })
        .collect();
    // Every other algorithm: a band per op in the op's colour.
    let others: Vec<Panel> = algorithm_groups(data, &paper_names())
        .into_iter()
        .map(|grp| {
            let bands = grp
                .keys
                .iter()
                .filter_map(|((op, algo), st)| range_band(&bounds_of(op, algo), st.color, 0.16))
                .collect();
            Panel {
                chart: chart(
                    grp.keys
                        .iter()
                        .map(|((op, algo), st)| series(op, algo, op.clone(), *st))
                        .collect(),
                    bands,
                ),
                title: grp.title,
                band_label: band_label
                    .as_ref()
                    .map(|l| format!("{l}, per operation in its colour")),
            }
        })
        .collect();
    let both = !paper.is_empty() && !others.is_empty();
    let rows = vec![
        PanelRow {
            heading: both.then(|| "The paper's three algorithms, one panel per operation".into()),
            wide: true,
            panels: paper,
        },
        PanelRow {
            heading: both.then(|| "Every other algorithm, one panel each (both operations)".into()),
            wide: false,
            panels: others,
        },
    ];
    let shared: Vec<Entry> = lines.iter().map(line_entry).collect();
    grid(h, "fig-max-rel", title, &shared, rows, |d| {
        let mut cap = format!(
            "One marker per tree, algorithm and operation ({} markers drawn); every panel has the same axes, both logarithmic. The dashed line is u·κ, the error of a single correctly rounded operation on a sum of condition number κ; the red line is the first-order worst-case bound γₙ₋₁·κ = (n−1)u/(1−(n−1)u)·κ of a chain of n = {n} vertices. Bounds hold node by node with the node's own κᵥ, so a tree's largest error can lie above γₙ₋₁·κ when one of its nodes is worse conditioned than the whole tree (see the per-node figures).",
            d.markers
        );
        if zeros > 0 {
            let _ = write!(
                cap,
                " {zeros} runs had no error at all (every node exact) and cannot be drawn on a log axis."
            );
        }
        if !d.lines_outside.is_empty() {
            let _ = write!(
                cap,
                " Outside the plotted range: {}.",
                escape(&d.lines_outside.join("; "))
            );
        }
        if !have_bounds {
            cap.push_str(" Per-node error bounds are not available in this run (results.csv has no max_bound_lost_bits, nodes-sample.csv no bound_rel), so only the a-priori lines are shown.");
        } else if bound_source == TREE_BOUND {
            cap.push_str(" Shaded: the largest a priori deterministic bound over a tree's nodes, 2^(max_bound_lost_bits − 24) from results.csv, from its smallest to its largest value over the trees of each κ target; it bounds each tree's largest error.");
        } else {
            cap.push_str(" Shaded: the a priori deterministic bound at each run's worst sampled node (bound_rel in nodes-sample.csv), from its smallest to its largest value over the trees of each κ target.");
        }
        cap
    })?;
    h.push_str("</section>\n");
    Ok(())
}

const TREE_BOUND: &str = "largest bound";
const WORST_NODE_BOUND: &str = "bound at worst node";

/// (op, algorithm, κ target, κ of the tree, relative bound) per run, and what the bound is.
#[allow(clippy::type_complexity)]
fn tree_bounds(data: &ReportData) -> (Vec<(String, String, f64, f64, f64)>, &'static str) {
    let from_rows: Vec<(String, String, f64, f64, f64)> = data
        .rows
        .iter()
        .filter_map(|r| {
            let b = r.max_bound_lost_bits?;
            Some((
                r.op.clone(),
                r.algorithm.clone(),
                r.target_cond,
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

/// (op, algorithm, κ target, κ of the tree, bound at the worst node) for records flagged
/// `worst` that carry a bound.
fn worst_node_bounds(data: &ReportData) -> Vec<(String, String, f64, f64, f64)> {
    let Some(nodes) = &data.nodes else {
        return vec![];
    };
    let cond_of: std::collections::HashMap<(usize, &str, &str), (f64, f64)> = data
        .rows
        .iter()
        .map(|r| {
            (
                (r.tree, r.op.as_str(), r.algorithm.as_str()),
                (r.target_cond, r.achieved_cond),
            )
        })
        .collect();
    nodes
        .iter()
        .filter(|n| n.is_worst())
        .filter_map(|n| {
            let b = n.bound_rel?;
            let (t, k) = cond_of.get(&(n.tree, n.op.as_str(), n.algorithm.as_str()))?;
            Some((n.op.clone(), n.algorithm.clone(), *t, *k, b))
        })
        .collect()
}
