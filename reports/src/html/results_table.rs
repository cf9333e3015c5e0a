//! Every row of `results.csv`, exactly as stored.

use crate::data::ReportData;
use crate::fmt::escape;
use std::fmt::Write;

/// Every row of results.csv, exactly as stored.
pub(super) fn section(h: &mut String, data: &ReportData) {
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
