//! The paper's Fig. 10 replica: largest relative error of each tree versus its κ, with u·κ,
//! the chain worst case γₙ₋₁·κ, the line where no correct bit is left and, where the run has
//! them, each algorithm's bounds shaded in its colour, in panels: the paper's three algorithms
//! a panel per op and topology, every other algorithm a panel of its own.

use super::common::{algorithm_groups, max_n, paper_groups, paper_names, prop_line, range_band};
use crate::ReportError;
use crate::data::{ReportData, ResultRow};
use crate::figure::{FIG_H, FIG_W, decade_range, not_available};
use crate::fmt::escape;
use crate::legend::Entry;
use crate::panels::{Drawn, Panel, PanelRow, grid, line_entry};
use crate::plots::{Axis, Band, Chart, Dash, RefLine, Series};
use crate::style::{LINE_BOUND, LINE_PROB, LINE_U_KAPPA, SeriesStyle};
use analysis::bounds::{U, gamma};
use analysis::f32_format::rel_of_bits;
use std::fmt::Write;

/// The most topologies (or tree files) that get a row of panels each; with more, the paper's
/// panels hold every tree of an op, and the caption says so.
const MAX_TOPOLOGY_ROWS: usize = 6;

/// What every panel of the figure shares.
struct Frame {
    xr: (f64, f64),
    yr: (f64, f64),
    lines: Vec<RefLine>,
    /// (op, algorithm, κ target, κ of the tree, relative bound, tree label) per run.
    bounds: Vec<TreeBound>,
    bound_source: &'static str,
}

impl Frame {
    fn chart(&self, series: Vec<Series>, bands: Vec<Band>) -> Chart {
        Chart::panel(
            (FIG_W, FIG_H),
            (
                Axis::log("κ of the whole tree").with_range(self.xr.0, self.xr.1),
                Axis::log("largest relative error").with_range(self.yr.0, self.yr.1),
            ),
            series,
            self.lines.clone(),
            bands,
        )
    }

    /// The bound band of (op, algorithm) on the trees `keep` accepts, in `st`'s colour.
    fn band(
        &self,
        (op, algo): (&str, &str),
        keep: &dyn Fn(&str) -> bool,
        st: SeriesStyle,
        label: String,
    ) -> Option<Band> {
        let pts: Vec<(f64, f64, f64)> = self
            .bounds
            .iter()
            .filter(|b| b.op == op && b.algorithm == algo && keep(&b.tree))
            .map(|b| (b.target, b.cond, b.bound))
            .collect();
        let what = if self.bound_source == TREE_BOUND {
            "largest a priori bound"
        } else {
            "a priori bound at the worst sampled node"
        };
        range_band(&pts, (st.color, 0.16), format!("{label}: {what} (range)"))
    }
}

/// A run's largest error can be drawn on a log axis (a finding counts the others).
fn drawable(r: &&ResultRow) -> bool {
    r.max_rel_error > 0.0 && r.max_rel_error.is_finite()
}

/// The paper's Fig. 10: each tree's largest relative error versus its condition number, as
/// small multiples.
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
    let (bounds, bound_source) = tree_bounds(data);
    let yr = decade_range(
        data.rows
            .iter()
            .filter(drawable)
            .map(|r| r.max_rel_error)
            .chain(bounds.iter().map(|b| b.bound))
            .chain([U * xr.1, U * xr.0]),
    )
    .unwrap_or((1e-8, 1.0));
    let frame = Frame {
        xr,
        yr,
        lines: reference_lines(n),
        bounds,
        bound_source,
    };
    let topologies = data.topologies();
    let split = topologies.len() > 1 && topologies.len() <= MAX_TOPOLOGY_ROWS;
    let mut rows = paper_rows(data, &frame, if split { &topologies } else { &[] });
    let others = other_panels(data, &frame);
    let both = rows.iter().any(|r| !r.panels.is_empty()) && !others.is_empty();
    if both && !split {
        rows[0].heading = Some("The paper's three algorithms, one panel per operation".into());
    }
    rows.push(PanelRow {
        heading: both.then(|| "Every other algorithm, one panel each (both operations)".into()),
        wide: false,
        panels: others,
    });
    let shared: Vec<Entry> = frame.lines.iter().map(line_entry).collect();
    let zeros = data.rows.iter().filter(|r| !drawable(r)).count();
    let merged = (!split && topologies.len() > 1).then_some(topologies.len());
    grid(h, "fig-max-rel", title, &shared, rows, |d| {
        caption(d, n, zeros, merged, &frame)
    })?;
    h.push_str("</section>\n");
    Ok(())
}

/// u·κ, γₙ₋₁·κ and relative error 1.
fn reference_lines(n: usize) -> Vec<RefLine> {
    let g = gamma(n.saturating_sub(1) as u64);
    vec![
        prop_line("u·κ (u = 2⁻²⁴)".into(), LINE_U_KAPPA, Dash::Dashed, U),
        prop_line(
            format!("γₙ₋₁·κ, worst case of a chain (n = {n})"),
            LINE_BOUND,
            Dash::Solid,
            g,
        ),
        RefLine {
            label: "relative error 1 (24 lost bits): no correct bit left".into(),
            color: LINE_PROB,
            dash: Dash::Dotted,
            points: vec![(1e-30, 1.0), (1e30, 1.0)],
        },
    ]
}

/// The paper's algorithms: a panel per op, in a row per topology when `topologies` are given.
fn paper_rows(data: &ReportData, frame: &Frame, topologies: &[String]) -> Vec<PanelRow> {
    let all = [String::new()];
    let rows: &[String] = if topologies.is_empty() {
        &all
    } else {
        topologies
    };
    rows.iter()
        .map(|topology| {
            let keep = |t: &str| topology.is_empty() || t == topology;
            let panels = paper_groups(data)
                .into_iter()
                .map(|grp| {
                    let series = grp
                        .keys
                        .iter()
                        .map(|((op, algo), st)| series(data, (op, algo), &keep, algo, *st))
                        .collect();
                    let bands = grp
                        .keys
                        .iter()
                        .filter_map(|((op, algo), st)| {
                            frame.band((op, algo), &keep, *st, algo.clone())
                        })
                        .collect();
                    let zeros = exact_zeros(data, &grp.keys, &keep);
                    Panel {
                        chart: frame.chart(series, bands),
                        title: if topology.is_empty() {
                            format!("{}{zeros}", grp.title)
                        } else {
                            format!("{}, {topology}{zeros}", grp.title)
                        },
                    }
                })
                .collect();
            PanelRow {
                heading: (!topology.is_empty()).then(|| {
                    format!("The paper's three algorithms on {topology}, one panel per operation")
                }),
                wide: true,
                panels,
            }
        })
        .collect()
}

/// Every other algorithm: a panel each, both ops, a band per op in the op's colour.
fn other_panels(data: &ReportData, frame: &Frame) -> Vec<Panel> {
    let all = |_: &str| true;
    algorithm_groups(data, &paper_names())
        .into_iter()
        .map(|grp| {
            let series = grp
                .keys
                .iter()
                .map(|((op, algo), st)| series(data, (op, algo), &all, op, *st))
                .collect();
            let bands = grp
                .keys
                .iter()
                .filter_map(|((op, algo), st)| frame.band((op, algo), &all, *st, op.clone()))
                .collect();
            let zeros = exact_zeros(data, &grp.keys, &all);
            Panel {
                chart: frame.chart(series, bands),
                title: format!("{}{zeros}", grp.title),
            }
        })
        .collect()
}

/// The panel title's note on runs that are correctly rounded at every node (0 ulps): their
/// markers sit near the axis floor, at the rounding's own error, and would read as a loss of
/// an ulp; a run whose error is exactly 0 has no place on a log axis at all. " — correctly
/// rounded on every tree (0 ulps)", " — 3 of 8 runs correctly rounded (0 ulps)", with the
/// runs of error 0 counted; or nothing.
fn exact_zeros(
    data: &ReportData,
    keys: &[((String, String), SeriesStyle)],
    keep: &dyn Fn(&str) -> bool,
) -> String {
    let runs: Vec<&ResultRow> = data
        .rows
        .iter()
        .filter(|r| keep(&r.tree_label()))
        .filter(|r| {
            keys.iter()
                .any(|((o, a), _)| *o == r.op && *a == r.algorithm)
        })
        .collect();
    let rounded = runs.iter().filter(|r| r.max_ulps == Some(0.0)).count();
    let zeros = runs.iter().filter(|r| r.max_rel_error == 0.0).count();
    let zero_note = match zeros {
        0 => String::new(),
        z => format!("; {z} with error 0, not drawn"),
    };
    match rounded {
        0 if zeros == 0 => String::new(),
        0 => format!(" — {zeros} of {} runs with error 0, not drawn", runs.len()),
        r if r == runs.len() => {
            format!(
                " — correctly rounded on every tree (0 ulps: the error drawn is the rounding's own){zero_note}"
            )
        }
        r => format!(
            " — {r} of {} runs correctly rounded (0 ulps){zero_note}",
            runs.len()
        ),
    }
}

/// The markers of (op, algorithm) on the trees `keep` accepts.
fn series(
    data: &ReportData,
    (op, algo): (&str, &str),
    keep: &dyn Fn(&str) -> bool,
    label: &str,
    style: SeriesStyle,
) -> Series {
    Series {
        label: label.to_string(),
        style,
        points: data
            .rows
            .iter()
            .filter(|r| r.op == op && r.algorithm == algo && keep(&r.tree_label()))
            .filter(drawable)
            .map(|r| (r.achieved_cond, r.max_rel_error))
            .collect(),
        size: 4,
        connect: false,
        opacity: 1.0,
    }
}

fn caption(d: &Drawn, n: usize, zeros: usize, merged: Option<usize>, frame: &Frame) -> String {
    let mut cap = format!(
        "One marker per tree, algorithm and operation ({} markers drawn); every panel has the same axes, both logarithmic. The dashed line is u·κ, the error of a single correctly rounded operation on a sum of condition number κ; the red line is the first-order worst-case bound γₙ₋₁·κ = (n−1)u/(1−(n−1)u)·κ of a chain of n = {n} vertices; the dotted line is a relative error of 1, 24 lost bits, where no correct bit is left. Bounds hold node by node with the node's own κᵥ, so a tree's largest error can lie above γₙ₋₁·κ when one of its nodes is worse conditioned than the whole tree (see the per-node figures). A series equal to another, marker for marker, says so in its legend (\"= sequential\").",
        d.markers
    );
    if let Some(k) = merged {
        let _ = write!(
            cap,
            " The {k} topologies (or tree files) share each panel: more than {MAX_TOPOLOGY_ROWS} would not fit a row each; the per-topology table below separates them."
        );
    }
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
    cap.push_str(match (frame.bounds.is_empty(), frame.bound_source) {
        (true, _) => " Per-node error bounds are not available in this run (results.csv has no max_bound_lost_bits, nodes-sample.csv no bound_rel), so only the a-priori lines are shown.",
        (false, TREE_BOUND) => " Shaded, in each algorithm's colour (in the other algorithms' panels, each operation's): the largest a priori deterministic bound over a tree's nodes, 2^(max_bound_lost_bits − 24) from results.csv, from its smallest to its largest value over the trees of each κ target; it bounds each tree's largest error.",
        (false, _) => " Shaded, in each algorithm's colour (in the other algorithms' panels, each operation's): the a priori deterministic bound at each run's worst sampled node (bound_rel in nodes-sample.csv), from its smallest to its largest value over the trees of each κ target.",
    });
    cap
}

const TREE_BOUND: &str = "largest bound";
const WORST_NODE_BOUND: &str = "bound at worst node";

/// One run's bound, for the bands.
struct TreeBound {
    op: String,
    algorithm: String,
    target: f64,
    cond: f64,
    bound: f64,
    tree: String,
}

/// Per run, where the run has bounds: the largest bound over each tree's nodes (it bounds the
/// tree's largest error), else the bound at each run's worst sampled node.
fn tree_bounds(data: &ReportData) -> (Vec<TreeBound>, &'static str) {
    let from_rows: Vec<TreeBound> = data
        .rows
        .iter()
        .filter_map(|r| {
            let b = r.max_bound_lost_bits?;
            Some(TreeBound {
                op: r.op.clone(),
                algorithm: r.algorithm.clone(),
                target: r.target_cond,
                cond: r.achieved_cond,
                bound: rel_of_bits(b),
                tree: r.tree_label().into_owned(),
            })
        })
        .collect();
    if from_rows.is_empty() {
        (worst_node_bounds(data), WORST_NODE_BOUND)
    } else {
        (from_rows, TREE_BOUND)
    }
}

/// The bound at the worst node of records flagged `worst` that carry a bound.
fn worst_node_bounds(data: &ReportData) -> Vec<TreeBound> {
    let Some(nodes) = &data.nodes else {
        return vec![];
    };
    let row_of: std::collections::HashMap<(usize, &str, &str), &ResultRow> = data
        .rows
        .iter()
        .map(|r| ((r.tree, r.op.as_str(), r.algorithm.as_str()), r))
        .collect();
    nodes
        .iter()
        .filter(|n| n.is_worst())
        .filter_map(|n| {
            let b = n.bound_rel?;
            let r = row_of.get(&(n.tree, n.op.as_str(), n.algorithm.as_str()))?;
            Some(TreeBound {
                op: n.op.clone(),
                algorithm: n.algorithm.clone(),
                target: r.target_cond,
                cond: r.achieved_cond,
                bound: b,
                tree: r.tree_label().into_owned(),
            })
        })
        .collect()
}
