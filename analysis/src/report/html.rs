//! The HTML page: inline CSS, the embedded font, the figures and the tables.

use super::ReportError;
use super::data::{NodeRecord, ReportData, ReportRow};
use super::findings::{self, U, gamma};
use super::fmt::{fixed, round_trip, sci};
use super::font;
use super::plots::{self, Axis, Chart, Dash, RefLine, Series};
use super::style::{self, LINE_BOUND, LINE_PROB, LINE_U_KAPPA, SeriesStyle};
use serde_json::Value;
use std::fmt::Write;

/// Figure width and height in CSS pixels.
const FIG_W: u32 = 1060;
const FIG_H: u32 = 540;
/// The most per-node records drawn in one scatter (before merging markers on one pixel), and
/// the most of them that also show their bound: together they keep a report under ~5 MB.
pub const MAX_NODE_POINTS: usize = 6000;
pub const MAX_BOUND_POINTS: usize = 2000;
const NA: &str = "<span class=\"na\" title=\"not available in this run\">—</span>";

/// HTML-escapes text for element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

const CSS: &str = r#"
:root{--ink:#222;--muted:#555;--rule:#d8d8d8;--band:#f5f5f3;--accent:#0b5394}
*{box-sizing:border-box}
html{font-family:'Report Sans',sans-serif;color:var(--ink);background:#fff;font-size:16px;line-height:1.45}
body{margin:0}
main{max-width:1180px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:1.9rem;margin:0 0 4px}
h2{font-size:1.35rem;margin:36px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--rule)}
h3{font-size:1.1rem;margin:22px 0 6px}
p,li{max-width:72em}
.lead{color:var(--muted);margin:0 0 8px}
code,.mono{font-family:'Report Sans',sans-serif;background:var(--band);padding:0 3px;border-radius:3px}
ul.findings li{margin:5px 0}
figure{margin:14px 0 22px;padding:10px;border:1px solid var(--rule);border-radius:6px;background:#fff}
figure svg{display:block;margin:0 auto}
figure svg text{font-family:'Report Sans',sans-serif}
figcaption{color:var(--muted);font-size:.95rem;margin-top:8px}
.note{background:#fff8e1;border-left:4px solid #e0a800;padding:8px 12px;margin:10px 0;color:#3b3b3b}
table{border-collapse:collapse;margin:8px 0 16px;font-variant-numeric:tabular-nums;font-size:.92rem}
th,td{border-bottom:1px solid var(--rule);padding:4px 9px;text-align:left;vertical-align:top}
th{background:var(--band);font-weight:bold}
td.num,th.num{text-align:right;white-space:nowrap}
#topology-table td{white-space:nowrap}
#results-table,table.compact{font-size:.8rem}
table.compact th{white-space:normal;vertical-align:bottom}
table.compact th,table.compact td{padding:3px 5px}
table.compact td{white-space:nowrap}
#results-table td{white-space:nowrap}
#topology-table td,#topology-table th{padding:4px 7px}
#topology-table th{white-space:normal;vertical-align:bottom}
table.kv th{width:15em}
.na{color:#999}
.bad{color:#b00020;font-weight:bold}
details summary{cursor:pointer;font-weight:bold;margin:8px 0}
.wide{overflow-x:auto}
footer{margin-top:40px;color:var(--muted);font-size:.85rem;border-top:1px solid var(--rule);padding-top:10px}
"#;

/// The whole report.
pub fn render(data: &ReportData) -> Result<String, ReportError> {
    let mut h = String::with_capacity(1 << 20);
    let title = format!("Accuracy report — {}", data.dir.display());
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>\n{}{}</style>\n</head>\n<body>\n<main>\n",
        escape(&title),
        font::css_font_faces(),
        CSS
    );
    let _ = write!(
        h,
        "<h1>How many bits did f32 treefix lose?</h1>\n<p class=\"lead\">Accuracy report of the sweep in <code>{}</code>: {} results ({} trees × algorithm × op), rendered from its files by <code>accuracy report</code>.</p>\n",
        escape(&data.dir.display().to_string()),
        data.rows.len(),
        {
            let mut t: Vec<usize> = data.rows.iter().map(|r| r.tree).collect();
            t.sort_unstable();
            t.dedup();
            t.len()
        }
    );
    h.push_str("<nav><p class=\"lead\">Contents: <a href=\"#findings\">findings</a> · <a href=\"#run\">run</a> · <a href=\"#fig-max-rel\">error vs κ</a> · <a href=\"#fig-lost-bits\">lost bits</a> · <a href=\"#fig-nodes\">per node</a> · <a href=\"#fig-tightness\">tightness</a> · <a href=\"#topology\">per topology</a> · <a href=\"#bounds\">bounds table</a> · <a href=\"#results\">all results</a></p></nav>\n");

    // Findings.
    h.push_str("<section id=\"findings\">\n<h2>Findings</h2>\n<ul class=\"findings\" id=\"findings-list\">\n");
    for f in findings::findings(data) {
        let _ = writeln!(h, "<li>{}</li>", escape(&f));
    }
    h.push_str("</ul>\n</section>\n");

    run_section(&mut h, data);
    fig_max_rel(&mut h, data)?;
    fig_lost_bits(&mut h, data)?;
    fig_nodes(&mut h, data)?;
    fig_tightness(&mut h, data)?;
    topology_table(&mut h, data);
    bounds_table(&mut h, data);
    results_table(&mut h, data);

    let _ = write!(
        h,
        "<footer>Generated by treefix-accuracy {} (analysis crate). Plots: plotters (SVG). Text: DejaVu Sans, embedded (free licence: Bitstream Vera / public-domain changes; see analysis/assets/fonts/LICENSE-DejaVu.txt). No scripts, no network.</footer>\n</main>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    Ok(h)
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "—".into(),
        Value::Array(a) => a.iter().map(value_text).collect::<Vec<_>>().join(", "),
        Value::Object(_) => v.to_string(),
    }
}

fn seconds(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.2}")
    } else {
        format!("{s:.1}")
    }
}

fn shell_quote(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

fn run_section(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"run\">\n<h2>Run parameters and environment</h2>\n");
    if data.summary.is_none() {
        h.push_str("<p class=\"note\">summary.json is missing (the sweep did not finish or was written by an older version): environment details are not available in this run.</p>\n");
    }
    h.push_str("<table class=\"kv\" id=\"run-params\">\n");
    let mut row = |k: &str, v: String| {
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", escape(k), v);
    };
    let text = |v: Option<&Value>| v.map(value_text).map(|s| escape(&s));
    let or_na = |s: Option<String>| s.unwrap_or_else(|| NA.to_string());

    if let Some(cmd) = data.summary_field("command_line").and_then(Value::as_array) {
        let line: Vec<String> = cmd
            .iter()
            .filter_map(Value::as_str)
            .map(shell_quote)
            .collect();
        row(
            "Command line",
            format!("<code>{}</code>", escape(&line.join(" "))),
        );
    } else {
        row("Command line", NA.into());
    }
    let tool = match (
        data.summary_field("tool").and_then(Value::as_str),
        data.summary_field("version").and_then(Value::as_str),
    ) {
        (Some(t), Some(v)) => Some(escape(&format!("{t} {v}"))),
        (None, Some(v)) => Some(escape(v)),
        _ => None,
    };
    row("Tool version", or_na(tool));
    let mut backends: Vec<String> = data.rows.iter().map(|r| r.backend.clone()).collect();
    backends.sort();
    backends.dedup();
    row(
        "Backend",
        or_na(text(data.summary_field("backend")).map(|b| {
            format!(
                "{b} <span class=\"na\">(per row in results.csv: {})</span>",
                escape(&backends.join(", "))
            )
        })),
    );
    let env = data.summary_field("environment");
    let adapter = data
        .summary_field("adapter")
        .or_else(|| env.and_then(|e| e.get("adapter")));
    row(
        "Adapter",
        match adapter {
            Some(a) => escape(&value_text(a)),
            None if backends.iter().all(|b| b == "cpu") && !backends.is_empty() => {
                "none: CPU twins only".into()
            }
            None => NA.into(),
        },
    );
    row("Reference", or_na(text(data.param("reference"))));
    row("Seed", or_na(text(data.param("seed"))));
    row("Topologies", or_na(text(data.param("topologies"))));
    row("Vertices per tree", or_na(text(data.param("nodes"))));
    row(
        "Trees per target",
        or_na(text(data.param("trees_per_target"))),
    );
    row(
        "Target condition numbers",
        or_na(
            data.param("targets")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_f64)
                        .map(sci)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .map(|s| escape(&s)),
        ),
    );
    row("Weights", or_na(text(data.param("weights"))));
    row("Operations", or_na(text(data.param("ops"))));
    row("Algorithms", or_na(text(data.param("algos"))));
    row("Child order", or_na(text(data.param("child_order"))));
    row(
        "Trees",
        or_na(data.summary_field("trees").map(|t| {
            let resumed = data
                .summary_field("resumed_trees")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            format!("{} ({resumed} resumed from an earlier run)", value_text(t))
        })),
    );
    row(
        "Time",
        or_na(data.summary_field("timings").map(|t| {
            let g = |k: &str| t.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
            format!(
                "{} s wall; generation {} s, evaluation {} s summed over {} threads",
                seconds(g("wall_s")),
                seconds(g("generate_s")),
                seconds(g("evaluate_s")),
                data.summary_field("threads")
                    .map(value_text)
                    .unwrap_or_else(|| "?".into())
            )
        })),
    );
    if let Some(Value::Object(e)) = env {
        for (k, v) in e {
            if k != "adapter" {
                row(&format!("Environment: {k}"), escape(&value_text(v)));
            }
        }
    } else {
        row("Environment", NA.into());
    }
    // Fields added to summary.json later still show up.
    const KNOWN: [&str; 12] = [
        "tool",
        "version",
        "command_line",
        "params",
        "backend",
        "adapter",
        "trees",
        "resumed_trees",
        "timings",
        "threads",
        "worst",
        "environment",
    ];
    if let Some(Value::Object(s)) = &data.summary {
        for (k, v) in s {
            if !KNOWN.contains(&k.as_str()) {
                row(k, escape(&value_text(v)));
            }
        }
    }
    row(
        "Report",
        format!(
            "rendered by treefix-accuracy {} from results.csv{}{}",
            env!("CARGO_PKG_VERSION"),
            if data.nodes.is_some() {
                ", nodes-sample.csv"
            } else {
                ""
            },
            if data.summary.is_some() {
                ", summary.json"
            } else {
                ""
            }
        ),
    );
    h.push_str("</table>\n</section>\n");
}

fn series_label(op: &str, algo: &str) -> String {
    format!("{algo} · {op}")
}

/// The vertex count used for the γₙ₋₁ line: the largest tree of the sweep.
fn max_n(data: &ReportData) -> usize {
    data.rows.iter().map(|r| r.n).max().unwrap_or(0)
}

/// Reference lines y = c·κ over a wide κ range (clipped by the plot).
fn prop_line(label: String, color: plotters::style::RGBColor, dash: Dash, c: f64) -> RefLine {
    RefLine {
        label,
        color,
        dash,
        points: vec![(1e-30, c * 1e-30), (1e30, c * 1e30)],
    }
}

fn figure(h: &mut String, id: &str, title: &str, svg: Option<&str>, caption: &str) {
    let _ = write!(
        h,
        "<figure id=\"{id}\">\n<h3>{}</h3>\n{}\n<figcaption>{caption}</figcaption>\n</figure>\n",
        escape(title),
        svg.unwrap_or("")
    );
}

fn decade_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return None;
    }
    let (a, b) = plots::log_page_range(lo.log10(), hi.log10());
    Some((10f64.powf(a), 10f64.powf(b)))
}

fn not_available(h: &mut String, id: &str, title: &str, why: &str) {
    let _ = write!(
        h,
        "<figure id=\"{id}\">\n<h3>{}</h3>\n<p class=\"note\">Not available in this run: {}</p>\n</figure>\n",
        escape(title),
        escape(why)
    );
}

fn fig_max_rel(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
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
    let g = gamma(n.saturating_sub(1) as f64);
    let mut series = Vec::new();
    let mut zeros = 0;
    for ((op, algo), st) in keys.iter().zip(&styles) {
        let pts: Vec<(f64, f64)> = data
            .rows
            .iter()
            .filter(|r| &r.op == op && &r.algorithm == algo)
            .filter_map(|r| {
                if r.max_rel_error > 0.0 {
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
        .filter(|n| n.worst == Some(1))
        .filter_map(|n| {
            let b = n.bound_rel?;
            let k = cond_of.get(&(n.tree, n.op.as_str(), n.algorithm.as_str()))?;
            Some((n.op.clone(), n.algorithm.clone(), *k, b))
        })
        .collect()
}

fn fig_lost_bits(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
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
    let g = gamma(n.saturating_sub(1) as f64);
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

/// A deterministic subset of at most `max` records: every run's worst node, then an even
/// stride over the rest.
fn thin(records: Vec<&NodeRecord>, max: usize) -> Vec<&NodeRecord> {
    if records.len() <= max {
        return records;
    }
    let (worst, rest): (Vec<&NodeRecord>, Vec<&NodeRecord>) =
        records.into_iter().partition(|r| r.worst == Some(1));
    let room = max.saturating_sub(worst.len());
    let mut out = worst;
    // `room` records evenly spread over the rest (a fractional stride).
    let n = rest.len();
    out.extend((0..room.min(n)).map(|i| rest[i * n / room.min(n)]));
    out
}

fn fig_nodes(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
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
    let g = gamma(n.saturating_sub(1) as f64);
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

fn fig_tightness(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
    h.push_str("<section id=\"fig-tightness\">\n<h2>How tight is the bound?</h2>\n");
    let title = "Tightness: measured error ÷ deterministic bound";
    let keys = data.series_keys();
    let styles = style::styles_for(&keys);
    // Per node where the sample carries bounds, else per run from results.csv.
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
    if source.is_empty() {
        not_available(
            h,
            "fig-tightness-hist",
            title,
            "results.csv has no max_tightness column and nodes-sample.csv no bound_rel values (the bounds issue adds them).",
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
    const BINS_PER_DECADE: f64 = 4.0;
    let nbins = ((b - a) * BINS_PER_DECADE).round().max(1.0) as usize;
    let zero_total: usize = per_key.iter().flatten().filter(|t| **t <= 0.0).count();
    let mut series = Vec::new();
    let mut ymax = 0.0f64;
    for (((op, algo), st), vals) in keys.iter().zip(&styles).zip(&per_key) {
        if vals.is_empty() {
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
        series.push(Series {
            label: series_label(op, algo),
            style: *st,
            points: pts,
            size: 4,
            connect: true,
            opacity: 1.0,
        });
    }
    let ytop = (ymax * 1.1).max(1.0);
    let chart = Chart {
        width: FIG_W,
        height: FIG_H,
        x: Axis::log("tightness = measured relative error ÷ deterministic bound (dimensionless)")
            .with_range(10f64.powf(a), 10f64.powf(b)),
        y: Axis::linear("share of the series' values in the bin (%)").with_range(0.0, ytop),
        series,
        lines: vec![RefLine {
            label: "tightness 1: error equals the bound".into(),
            color: LINE_PROB,
            dash: Dash::Dashed,
            points: vec![(1.0, 0.0), (1.0, ytop)],
        }],
    };
    let r = plots::render(&chart, title)?;
    let mut cap = format!(
        "Histogram with {} bins per decade, {source}; each series sums to 100 %. Values right of 1 would be bound violations.",
        BINS_PER_DECADE
    );
    if zero_total > 0 {
        let _ = write!(
            cap,
            " {zero_total} values were 0 (exact results) and are not binned."
        );
    }
    figure(h, "fig-tightness-hist", title, Some(&r.svg), &cap);
    h.push_str("</section>\n");
    Ok(())
}

/// Per-topology summary of results.csv, with the bound columns where the run has them.
pub fn topology_rows(data: &ReportData) -> Vec<TopologyRow> {
    let mut out = Vec::new();
    for topo in data.topologies() {
        for (op, algo) in data.series_keys() {
            let rows: Vec<&ReportRow> = data
                .rows
                .iter()
                .filter(|r| r.topology == topo && r.op == op && r.algorithm == algo)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let bits: Vec<f64> = rows.iter().map(|r| r.max_lost_bits).collect();
            let mut sorted = bits.clone();
            sorted.sort_by(f64::total_cmp);
            let opt_sum = |f: &dyn Fn(&ReportRow) -> Option<u64>| -> Option<u64> {
                let v: Vec<u64> = rows.iter().filter_map(|r| f(r)).collect();
                (!v.is_empty()).then(|| v.iter().sum())
            };
            let mut med_t: Vec<f64> = rows.iter().filter_map(|r| r.median_tightness).collect();
            med_t.sort_by(f64::total_cmp);
            let max_t: Vec<f64> = rows.iter().filter_map(|r| r.max_tightness).collect();
            let mut ns: Vec<usize> = rows.iter().map(|r| r.n).collect();
            ns.sort_unstable();
            ns.dedup();
            out.push(TopologyRow {
                topology: topo.clone(),
                op: op.clone(),
                algorithm: algo.clone(),
                runs: rows.len(),
                n: ns,
                height: (
                    rows.iter().map(|r| r.height).min().unwrap_or(0),
                    rows.iter().map(|r| r.height).max().unwrap_or(0),
                ),
                cond: (
                    rows.iter()
                        .map(|r| r.achieved_cond)
                        .fold(f64::INFINITY, f64::min),
                    rows.iter().map(|r| r.achieved_cond).fold(0.0, f64::max),
                ),
                max_lost_bits: sorted.last().copied().unwrap_or(0.0),
                median_lost_bits: sorted[(sorted.len() - 1) / 2],
                bound_violations: opt_sum(&|r| r.deterministic_violations()),
                prob_violations: opt_sum(&|r| r.prob_violations),
                median_tightness: (!med_t.is_empty()).then(|| med_t[(med_t.len() - 1) / 2]),
                max_tightness: (!max_t.is_empty())
                    .then(|| max_t.iter().copied().fold(0.0, f64::max)),
                max_bound_lost_bits: {
                    let b: Vec<f64> = rows.iter().filter_map(|r| r.max_bound_lost_bits).collect();
                    (!b.is_empty()).then(|| b.iter().copied().fold(0.0, f64::max))
                },
            });
        }
    }
    out
}

/// One row of the per-topology table.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyRow {
    pub topology: String,
    pub op: String,
    pub algorithm: String,
    pub runs: usize,
    pub n: Vec<usize>,
    pub height: (u32, u32),
    pub cond: (f64, f64),
    pub max_lost_bits: f64,
    /// Median over the runs of each run's largest loss.
    pub median_lost_bits: f64,
    pub bound_violations: Option<u64>,
    pub prob_violations: Option<u64>,
    /// Median over runs of the per-run median tightness.
    pub median_tightness: Option<f64>,
    pub max_tightness: Option<f64>,
    /// The most bits the a priori bound allows any node of these runs to lose.
    pub max_bound_lost_bits: Option<f64>,
}

fn opt_cell<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map(f).unwrap_or_else(|| NA.to_string())
}

fn topology_table(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"topology\">\n<h2>Per topology</h2>\n");
    if !data.has_bounds() {
        h.push_str("<p class=\"note\">Bound columns (max_bound_lost_bits, bound_violations, sharp_violations, running_violations, prob_violations, median_tightness, max_tightness) are not available in this run: they show as —.</p>\n");
    }
    h.push_str("<div class=\"wide\"><table id=\"topology-table\">\n<thead><tr><th>topology</th><th>op</th><th>algorithm</th><th class=\"num\">runs</th><th class=\"num\">n</th><th class=\"num\">height</th><th class=\"num\">κ range</th><th class=\"num\">max lost bits</th><th class=\"num\">median lost bits</th><th class=\"num\" title=\"the most bits the a priori deterministic bound allows any node to lose\">max bits allowed</th><th class=\"num\" title=\"nodes above a deterministic bound (a priori, sharp or running), summed over runs\">bound viol.</th><th class=\"num\" title=\"nodes above the probabilistic bound, summed over runs\">prob. viol.</th><th class=\"num\" title=\"median over runs of the median measured error ÷ bound\">median tight.</th><th class=\"num\" title=\"largest measured error ÷ bound\">max tight.</th></tr></thead>\n<tbody>\n");
    for r in topology_rows(data) {
        let ns: Vec<String> = r.n.iter().map(|n| n.to_string()).collect();
        let viol = opt_cell(r.bound_violations, |v| {
            if v > 0 {
                format!("<span class=\"bad\">{v}</span>")
            } else {
                v.to_string()
            }
        });
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{} – {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&r.topology),
            escape(&r.op),
            escape(&r.algorithm),
            r.runs,
            ns.join(", "),
            if r.height.0 == r.height.1 {
                r.height.0.to_string()
            } else {
                format!("{} – {}", r.height.0, r.height.1)
            },
            sci(r.cond.0),
            sci(r.cond.1),
            fixed(r.max_lost_bits, 2),
            fixed(r.median_lost_bits, 2),
            opt_cell(r.max_bound_lost_bits, |b| fixed(b, 2)),
            viol,
            opt_cell(r.prob_violations, |v| v.to_string()),
            opt_cell(r.median_tightness, sci),
            opt_cell(r.max_tightness, sci),
        );
    }
    h.push_str("</tbody></table></div>\n<p class=\"lead\">Lost bits are the largest over a tree's nodes; \"max\" and \"median\" run over the trees. Tightness = measured error ÷ deterministic bound.</p>\n</section>\n");
}

/// How a cell of the curated bounds table is written.
#[derive(Clone, Copy)]
enum Cell {
    Text,
    Int,
    Bits,
    Sci,
    Percent,
}

/// The columns of `accuracy bounds-table`'s rows shown in the report (the file has more).
const BOUNDS_TABLE_COLUMNS: [(&str, &str, Cell); 16] = [
    ("topology", "topology", Cell::Text),
    ("target_cond", "target κ", Cell::Sci),
    ("achieved_cond_median", "median κ", Cell::Sci),
    ("op", "op", Cell::Text),
    ("algorithm", "algorithm", Cell::Text),
    ("trees", "trees", Cell::Int),
    ("max_lost_bits", "max lost bits", Cell::Bits),
    ("p99_lost_bits", "p99 lost bits", Cell::Bits),
    ("max_bound_lost_bits", "bits allowed (a priori)", Cell::Bits),
    ("max_sharp_lost_bits", "bits allowed (sharp)", Cell::Bits),
    ("median_tightness", "median tight.", Cell::Sci),
    ("max_tightness", "max tight.", Cell::Sci),
    ("bound_violations", "a priori viol.", Cell::Int),
    ("running_violations", "running viol.", Cell::Int),
    ("prob_violations", "prob. viol.", Cell::Int),
    ("extra_bits_agreement", "extra bits pred. ±1", Cell::Percent),
];

fn is_bounds_table_schema(rows: &[Value]) -> bool {
    let first = rows.first().and_then(Value::as_object);
    first.is_some_and(|r| {
        [
            "topology",
            "op",
            "algorithm",
            "max_lost_bits",
            "max_bound_lost_bits",
        ]
        .iter()
        .all(|k| r.contains_key(*k))
    })
}

fn curated_bounds_table(h: &mut String, v: &Value, rows: &[Value]) {
    let mut about = Vec::new();
    if let Some(b) = v.get("backend").and_then(Value::as_str) {
        about.push(format!("backend {b}"));
    }
    if let Some(l) = v.get("lambda").and_then(Value::as_f64) {
        about.push(format!("probabilistic bounds at λ = {l}"));
    }
    if let Some(p) = v.get("params") {
        for (k, name) in [("nodes", "vertices per tree"), ("weights", "weights")] {
            if let Some(x) = p.get(k) {
                about.push(format!("{name} {}", value_text(x)));
            }
        }
    }
    if let Some(c) = v.get("command_line").and_then(Value::as_array) {
        let line: Vec<String> = c
            .iter()
            .filter_map(Value::as_str)
            .map(shell_quote)
            .collect();
        about.push(format!("command <code>{}</code>", escape(&line.join(" "))));
    }
    if !about.is_empty() {
        let _ = writeln!(h, "<p class=\"lead\">{}.</p>", about.join("; "));
    }
    let _ = writeln!(
        h,
        "<details open><summary>{} rows (topology × target × op × algorithm)</summary>",
        rows.len()
    );
    h.push_str("<div class=\"wide\"><table id=\"bounds-table\" class=\"compact\">\n<thead><tr>");
    let cols: Vec<&(&str, &str, Cell)> = BOUNDS_TABLE_COLUMNS
        .iter()
        .filter(|(k, _, _)| rows.iter().any(|r| r.get(*k).is_some()))
        .collect();
    for (k, title, kind) in &cols {
        let class = if matches!(kind, Cell::Text) {
            ""
        } else {
            " class=\"num\""
        };
        let _ = write!(h, "<th{class} title=\"{k}\">{}</th>", escape(title));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for r in rows {
        h.push_str("<tr>");
        for (k, _, kind) in &cols {
            let x = r.get(*k).unwrap_or(&Value::Null);
            let text = match (kind, x) {
                (_, Value::Null) => NA.to_string(),
                (Cell::Bits, Value::Number(n)) => n.as_f64().map_or(n.to_string(), |f| fixed(f, 2)),
                (Cell::Sci, Value::Number(n)) => n.as_f64().map_or(n.to_string(), sci),
                (Cell::Percent, Value::Number(n)) => n
                    .as_f64()
                    .map_or(n.to_string(), |f| format!("{:.0} %", 100.0 * f)),
                (Cell::Int, Value::Number(n)) => {
                    if n.as_u64().is_some_and(|c| c > 0)
                        && k.ends_with("violations")
                        && *k != "prob_violations"
                    {
                        format!("<span class=\"bad\">{n}</span>")
                    } else {
                        n.to_string()
                    }
                }
                _ => escape(&value_text(x)),
            };
            let class = if matches!(kind, Cell::Text) {
                ""
            } else {
                " class=\"num\""
            };
            let _ = write!(h, "<td{class}>{text}</td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div></details>\n");
    let shown: Vec<&str> = cols.iter().map(|c| c.0).collect();
    let mut more: Vec<String> = Vec::new();
    for r in rows {
        if let Some(o) = r.as_object() {
            for k in o.keys() {
                if !shown.contains(&k.as_str()) && !more.contains(k) {
                    more.push(k.clone());
                }
            }
        }
    }
    if !more.is_empty() {
        let _ = writeln!(
            h,
            "<p class=\"lead\">Also in the file: {}.</p>",
            escape(&more.join(", "))
        );
    }
}

fn bounds_table(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"bounds\">\n<h2>Per-topology bounds table</h2>\n");
    let Some((path, v)) = &data.bounds_table else {
        h.push_str("<p class=\"note\" id=\"bounds-table-missing\">Not available in this run: no bounds-table.json in the sweep directory (write one with <code>accuracy bounds-table</code>, or pass <code>--bounds-table FILE</code> to <code>accuracy report</code>).</p>\n</section>\n");
        return;
    };
    let _ = writeln!(
        h,
        "<p class=\"lead\">From <code>{}</code>.</p>",
        escape(&path.display().to_string())
    );
    // An array of objects, or an object holding one under "rows" (rows may also be arrays
    // named by "columns").
    let rows = v
        .as_array()
        .or_else(|| v.get("rows").and_then(Value::as_array));
    let named: Option<Vec<String>> = v.get("columns").and_then(Value::as_array).map(|c| {
        c.iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect()
    });
    let as_objects: Option<Vec<Value>> = match (rows, &named) {
        (Some(rows), Some(cols)) if rows.iter().all(Value::is_array) => Some(
            rows.iter()
                .map(|r| {
                    Value::Object(
                        cols.iter()
                            .cloned()
                            .zip(r.as_array().unwrap().iter().cloned())
                            .collect(),
                    )
                })
                .collect(),
        ),
        _ => None,
    };
    let rows = as_objects.as_ref().or(rows);
    if let Some(rows) = rows.filter(|r| is_bounds_table_schema(r)) {
        curated_bounds_table(h, v, rows);
        h.push_str("</section>\n");
        return;
    }
    match rows {
        Some(rows) if rows.iter().all(Value::is_object) && !rows.is_empty() => {
            // Declared columns first, then the identifying ones, then the rest.
            let mut cols: Vec<String> = named.clone().unwrap_or_default();
            for k in ["topology", "op", "algorithm", "n"] {
                if !cols.iter().any(|c| c == k) && rows.iter().any(|r| r.get(k).is_some()) {
                    cols.push(k.to_string());
                }
            }
            for r in rows {
                for k in r.as_object().unwrap().keys() {
                    if !cols.contains(k) {
                        cols.push(k.clone());
                    }
                }
            }
            h.push_str("<div class=\"wide\"><table id=\"bounds-table\">\n<thead><tr>");
            for c in &cols {
                let _ = write!(h, "<th>{}</th>", escape(c));
            }
            h.push_str("</tr></thead>\n<tbody>\n");
            for r in rows {
                h.push_str("<tr>");
                for c in &cols {
                    match r.get(c) {
                        Some(Value::Number(n)) => {
                            let _ = write!(
                                h,
                                "<td class=\"num\">{}</td>",
                                n.as_f64().map(round_trip).unwrap_or_else(|| n.to_string())
                            );
                        }
                        Some(x) => {
                            let _ = write!(h, "<td>{}</td>", escape(&value_text(x)));
                        }
                        None => {
                            let _ = write!(h, "<td>{NA}</td>");
                        }
                    }
                }
                h.push_str("</tr>\n");
            }
            h.push_str("</tbody></table></div>\n");
        }
        _ => {
            let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
            let _ = writeln!(h, "<pre id=\"bounds-table\">{}</pre>", escape(&pretty));
        }
    }
    h.push_str("</section>\n");
}

fn results_table(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"results\">\n<h2>All results</h2>\n");
    let _ = writeln!(
        h,
        "<details><summary>{} rows of results.csv (one per tree × algorithm × op), exactly as stored</summary>",
        data.raw.len()
    );
    h.push_str("<div class=\"wide\"><table id=\"results-table\">\n<thead><tr>");
    for c in &data.header {
        let _ = write!(h, "<th>{}</th>", escape(c));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for r in &data.raw {
        h.push_str("<tr>");
        for c in r {
            let _ = write!(h, "<td>{}</td>", escape(c));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div></details>\n</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(tree: usize, worst: bool) -> NodeRecord {
        NodeRecord {
            tree,
            algorithm: "vectorial".into(),
            op: "rootfix".into(),
            vertex: None,
            cond: 10.0,
            rel_error: 1e-7,
            lost_bits: None,
            bound_rel: None,
            worst: Some(u8::from(worst)),
        }
    }

    #[test]
    fn thinning_keeps_every_worst_node_and_the_budget() {
        let recs: Vec<NodeRecord> = (0..1000).map(|i| rec(i, i % 50 == 0)).collect();
        let kept = thin(recs.iter().collect(), 300);
        assert_eq!(kept.len(), 300);
        assert_eq!(kept.iter().filter(|r| r.worst == Some(1)).count(), 20);
        assert_eq!(thin(recs.iter().collect(), 5000).len(), 1000);
    }

    #[test]
    fn escapes() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
