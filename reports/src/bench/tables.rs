//! The tables of `bench.html`, each a section around a [`table`](super::table) model printed
//! as HTML: the kernels side by side (when there are more than one chart holds), every row,
//! and the baselines as effective bandwidth.

use super::BenchData;
use super::table::{self, html};
use crate::fmt::escape;
use std::fmt::Write;

/// With more kernels than one chart holds, every kernel side by side in one small table; the
/// panels show one kernel each, this is where they are compared.
pub(super) fn kernels(h: &mut String, data: &BenchData) {
    let Some(t) = table::side_by_side(data) else {
        return;
    };
    let _ = write!(
        h,
        "<section id=\"bench-kernels\">\n<h2>{}</h2>\n<div class=\"wide\">",
        escape(&t.caption)
    );
    html(h, "bench-kernels-table", Some("compact"), &t);
    h.push_str("</div>\n<p class=\"lead\">Compute ns / vertex (median time × 10⁹ ÷ n, 3 significant digits) on the largest tree of each topology; lower is faster.</p>\n</section>\n");
}

/// Every row of bench.csv: times as stored (seconds, shortest exact form) and per vertex.
pub(super) fn rows(h: &mut String, data: &BenchData) {
    let t = table::all_rows(&data.rows);
    let _ = writeln!(
        h,
        "<section id=\"bench-rows\">\n<h2>{}</h2>\n<details open><summary>{} rows of bench.csv</summary>",
        escape(&t.caption),
        data.rows.len()
    );
    h.push_str("<div class=\"wide\">");
    html(h, "bench-table", Some("compact"), &t);
    h.push_str("</div></details>\n<p class=\"lead\">ns / vertex: median time × 10⁹ ÷ n, to 3 significant digits; \"with transfers\" adds the median transfer time.</p>\n</section>\n");
}

/// Copy kernel, upload and download as effective bandwidth = bytes moved ÷ time.
pub(super) fn baselines(h: &mut String, data: &BenchData) {
    let t = table::baselines(data);
    let _ = writeln!(
        h,
        "<section id=\"baselines\">\n<h2>{}</h2>",
        escape(&t.caption)
    );
    if t.rows.is_empty() {
        h.push_str("<p class=\"note\" id=\"baselines-missing\">Not available in this run: bench.csv has no copy, upload or download rows.</p>\n</section>\n");
        return;
    }
    html(h, "bench-baselines", None, &t);
    h.push_str("\n<p class=\"lead\">Bandwidth = bytes moved ÷ time (1 GB = 10⁹ bytes): what the kernels' memory traffic could reach on this device, for comparison with the ns per vertex above.</p>\n</section>\n");
}
