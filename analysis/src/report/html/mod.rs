//! `report.html`: the page, one function per section, each in its own file.

mod bounds_table;
mod common;
mod fig_cond;
mod fig_lost_bits;
mod fig_nodes;
mod fig_tightness;
mod results_table;
mod run;
mod topology;

pub use fig_nodes::{MAX_BOUND_POINTS, MAX_NODE_POINTS};
pub use topology::{TopologyRow, topology_rows};

use super::ReportError;
use super::data::ReportData;
use super::findings;
use super::fmt::escape;
use super::page;
use std::fmt::Write;

/// The whole report.
pub fn render(data: &ReportData) -> Result<String, ReportError> {
    let mut h = String::with_capacity(1 << 20);
    let title = format!("Accuracy report — {}", data.dir.display());
    page::head(&mut h, &title);
    intro(&mut h, data);
    findings_section(&mut h, data);
    run::section(&mut h, data);
    fig_cond::section(&mut h, data)?;
    fig_lost_bits::section(&mut h, data)?;
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
    h.push_str("<nav><p class=\"lead\">Contents: <a href=\"#findings\">findings</a> · <a href=\"#run\">run</a> · <a href=\"#fig-max-rel\">error vs κ</a> · <a href=\"#fig-lost-bits\">lost bits</a> · <a href=\"#fig-nodes\">per node</a> · <a href=\"#fig-tightness\">tightness</a> · <a href=\"#topology\">per topology</a> · <a href=\"#bounds\">bounds table</a> · <a href=\"#results\">all results</a></p></nav>\n");
}

/// The findings in words (computed by [`findings::findings`]).
fn findings_section(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"findings\">\n<h2>Findings</h2>\n<ul class=\"findings\" id=\"findings-list\">\n");
    for f in findings::findings(data) {
        let _ = writeln!(h, "<li>{}</li>", escape(&f));
    }
    h.push_str("</ul>\n</section>\n");
}
