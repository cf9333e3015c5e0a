//! The per-topology table: lost bits, bits the bound allows, violations, tightness.

use crate::data::{BOUND_COLUMNS, ReportData, ResultRow};
use crate::fmt::{NA, escape, fixed, sci};
use analysis::stats::median;
use std::fmt::Write;

/// Per-topology summary of results.csv, with the bound columns where the run has them.
pub fn topology_rows(data: &ReportData) -> Vec<TopologyRow> {
    let mut out = Vec::new();
    for topo in data.topologies() {
        for (op, algo) in data.series_keys() {
            let rows: Vec<&ResultRow> = data
                .rows
                .iter()
                .filter(|r| r.tree_label() == topo && r.op == op && r.algorithm == algo)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let mut bits: Vec<f64> = rows.iter().map(|r| r.max_lost_bits).collect();
            let opt_sum = |f: &dyn Fn(&ResultRow) -> Option<usize>| -> Option<usize> {
                let v: Vec<usize> = rows.iter().filter_map(|r| f(r)).collect();
                (!v.is_empty()).then(|| v.iter().sum())
            };
            let mut med_t: Vec<f64> = rows.iter().filter_map(|r| r.median_tightness).collect();
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
                max_lost_bits: bits.iter().copied().max_by(f64::total_cmp).unwrap_or(0.0),
                median_lost_bits: median(&mut bits).unwrap_or(0.0),
                bound_violations: opt_sum(&|r| r.deterministic_violations()),
                prob_violations: opt_sum(&|r| r.prob_violations),
                median_tightness: median(&mut med_t),
                max_tightness: (!max_t.is_empty())
                    .then(|| max_t.iter().copied().fold(0.0, f64::max)),
                max_bound_lost_bits: {
                    let b: Vec<f64> = rows.iter().filter_map(|r| r.max_bound_lost_bits).collect();
                    (!b.is_empty()).then(|| b.iter().copied().fold(0.0, f64::max))
                },
                gpu_mismatches: opt_sum(&|r| r.gpu_mismatches),
                max_flagged_abs_error: {
                    let e: Vec<f64> = rows
                        .iter()
                        .filter_map(|r| r.max_flagged_abs_error)
                        .collect();
                    (!e.is_empty()).then(|| e.iter().copied().fold(0.0, f64::max))
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
    pub bound_violations: Option<usize>,
    pub prob_violations: Option<usize>,
    /// Median over runs of the per-run median tightness.
    pub median_tightness: Option<f64>,
    pub max_tightness: Option<f64>,
    /// The most bits the a priori bound allows any node of these runs to lose.
    pub max_bound_lost_bits: Option<f64>,
    /// Nodes where a GPU result differed from its CPU twin, summed over runs.
    pub gpu_mismatches: Option<usize>,
    /// Largest absolute error among flagged nodes (exact value 0).
    pub max_flagged_abs_error: Option<f64>,
}

fn opt_cell<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map(f).unwrap_or_else(|| NA.to_string())
}

/// The per-topology table.
pub(super) fn section(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"topology\">\n<h2>Per topology</h2>\n");
    if !data.has_bounds() {
        let _ = writeln!(
            h,
            "<p class=\"note\">Bound columns ({}) are not available in this run: they show as —.</p>",
            BOUND_COLUMNS.join(", ")
        );
    }
    // Columns a run may lack entirely are shown only where it has them.
    let rows = topology_rows(data);
    let gpu = rows.iter().any(|r| r.gpu_mismatches.is_some());
    let flagged = rows.iter().any(|r| r.max_flagged_abs_error.is_some());
    let files = data.rows.iter().any(|r| r.source.is_some());
    let _ = write!(
        h,
        "<div class=\"wide\"><table id=\"topology-table\">\n<thead><tr><th>{}</th>",
        if files {
            "topology or file"
        } else {
            "topology"
        }
    );
    h.push_str("<th>op</th><th>algorithm</th><th class=\"num\">runs</th><th class=\"num\">n</th><th class=\"num\">height</th><th class=\"num\">κ range</th><th class=\"num\">max lost bits</th><th class=\"num\">median lost bits</th><th class=\"num\" title=\"the most bits the a priori deterministic bound allows any node to lose\">max bits allowed</th><th class=\"num\" title=\"nodes above a deterministic bound (a priori, sharp or running), summed over runs\">bound viol.</th><th class=\"num\" title=\"nodes above the probabilistic bound, summed over runs\">prob. viol.</th><th class=\"num\" title=\"median over runs of the median measured error ÷ bound\">median tight.</th><th class=\"num\" title=\"largest measured error ÷ bound\">max tight.</th>");
    if gpu {
        h.push_str("<th class=\"num\" title=\"nodes where a GPU result differs from its CPU twin, summed over runs\">GPU mism.</th>");
    }
    if flagged {
        h.push_str("<th class=\"num\" title=\"largest absolute error among the nodes whose exact value is 0\">max flagged |error|</th>");
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for r in rows {
        let ns: Vec<String> = r.n.iter().map(|n| n.to_string()).collect();
        let viol = opt_cell(r.bound_violations, |v| {
            if v > 0 {
                format!("<span class=\"bad\">{v}</span>")
            } else {
                v.to_string()
            }
        });
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{} – {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
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
        if gpu {
            let cell = opt_cell(r.gpu_mismatches, |v| {
                if v > 0 {
                    format!("<span class=\"bad\">{v}</span>")
                } else {
                    v.to_string()
                }
            });
            let _ = write!(h, "<td class=\"num\">{cell}</td>");
        }
        if flagged {
            let _ = write!(
                h,
                "<td class=\"num\">{}</td>",
                opt_cell(r.max_flagged_abs_error, sci)
            );
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n<p class=\"lead\">Lost bits are the largest over a tree's nodes; \"max\" and \"median\" run over the trees. Tightness = measured error ÷ deterministic bound.</p>\n</section>\n");
}
