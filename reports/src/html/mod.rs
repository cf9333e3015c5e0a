//! `report.html`: the page, one function per section, each in its own file.

mod answer;
mod bounds_table;
mod common;
mod fig_cond;
mod fig_lost_bits;
mod fig_nodes;
mod fig_tightness;
mod fig_ulps;
mod pareto;
mod results_table;
mod run;
mod topology;

pub use fig_nodes::MAX_NODE_POINTS;
pub use topology::{TopologyRow, topology_rows};

use super::ReportError;
use super::comparison;
use super::data::ReportData;
use super::findings;
use super::fmt::{NA, escape, fixed, sci};
use super::page;
use std::fmt::Write;

/// The whole report.
pub fn render(data: &ReportData) -> Result<String, ReportError> {
    let mut h = String::with_capacity(1 << 20);
    let title = format!("Accuracy report — {}", data.dir.display());
    page::head(&mut h, &title);
    intro(&mut h, data);
    answer::section(&mut h, data)?;
    findings_section(&mut h, data);
    run::section(&mut h, data);
    fig_cond::section(&mut h, data)?;
    fig_lost_bits::section(&mut h, data)?;
    fig_ulps::section(&mut h, data)?;
    fig_nodes::section(&mut h, data)?;
    fig_tightness::section(&mut h, data)?;
    topology::section(&mut h, data);
    bounds_table::section(&mut h, data);
    results_table::section(&mut h, data);
    page::footer(&mut h);
    Ok(h)
}

/// The heading, what was swept, and the table of contents.
fn intro(h: &mut String, data: &ReportData) {
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
    h.push_str("<nav><p class=\"lead\">Contents: <a href=\"#answer\">which algorithm</a> · <a href=\"#pareto\">loss versus time</a> · <a href=\"#findings\">findings</a> · <a href=\"#run\">run</a> · <a href=\"#fig-max-rel\">error vs κ</a> · <a href=\"#fig-lost-bits\">lost bits</a> · <a href=\"#fig-ulps\">ulps</a> · <a href=\"#fig-nodes\">per node</a> · <a href=\"#fig-tightness\">tightness</a> · <a href=\"#topology\">per topology</a> · <a href=\"#bounds\">bounds table</a> · <a href=\"#results\">all results</a></p></nav>\n");
}

/// The findings in words (computed by [`findings::findings`]).
fn findings_section(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"findings\">\n<h2>Findings</h2>\n<ul class=\"findings\" id=\"findings-list\">\n");
    for f in findings::findings(data) {
        let _ = writeln!(h, "<li>{}</li>", escape(&f));
    }
    h.push_str("</ul>\n");
    comparison_table(h, data);
    h.push_str("</section>\n");
}

/// Every algorithm side by side, when there are more than a sentence may name.
fn comparison_table(h: &mut String, data: &ReportData) {
    let comparisons = comparison::comparisons(data);
    if comparisons.iter().all(|c| c.entries.len() <= 3) {
        return;
    }
    h.push_str("<div class=\"wide\"><table class=\"compact\" id=\"comparison-table\">\n<thead><tr><th>algorithm</th>");
    for c in &comparisons {
        let high = c
            .threshold
            .map_or(String::new(), |t| format!(", κ ≥ {}", sci(t)));
        let _ = write!(
            h,
            "<th class=\"num\">{op}: mean of per-tree max lost bits</th><th class=\"num\">{op}: the same{high}</th><th class=\"num\">{op}: growth per decade of κ (bits)</th>",
            op = escape(&c.op),
            high = escape(&high)
        );
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    let mut algorithms: Vec<&str> = Vec::new();
    for c in &comparisons {
        for e in &c.entries {
            if !algorithms.contains(&e.algorithm.as_str()) {
                algorithms.push(&e.algorithm);
            }
        }
    }
    let num = |x: Option<f64>| x.map_or_else(|| NA.to_string(), |v| fixed(v, 1));
    for a in algorithms {
        let _ = write!(h, "<tr><td>{}</td>", escape(a));
        for c in &comparisons {
            let e = c.entries.iter().find(|e| e.algorithm == a);
            let _ = write!(
                h,
                "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                num(e.and_then(|e| e.mean_bits)),
                num(e.and_then(|e| e.mean_bits_high.map(|m| m.0))),
                num(e.and_then(|e| e.growth))
            );
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table></div>\n");
}
