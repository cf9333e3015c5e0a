//! The tables of `bench.html`: the kernels side by side (when there are more than one chart
//! holds), every row, and the baselines as effective bandwidth.

use super::series::groups;
use super::{BenchData, is_baseline, small_multiples};
use crate::format::f64_shortest;
use crate::records::bench::BenchRecord;
use crate::report::fmt::{NA, escape, sig3};
use std::fmt::Write;

/// Nanoseconds per vertex of a time in seconds, to 3 significant digits.
fn ns_per_vertex(s: f64, n: usize) -> String {
    sig3(s * 1e9 / n.max(1) as f64)
}

/// With more kernels than one chart holds, every kernel side by side in one small table: its
/// compute time per vertex on the largest tree of each topology, per op. The panels show one
/// kernel each; this is where they are compared.
pub(super) fn kernels(h: &mut String, data: &BenchData) {
    let groups = groups(data);
    if !small_multiples::wanted(&groups) {
        return;
    }
    let columns: Vec<(String, String, usize)> = data
        .ops()
        .into_iter()
        .flat_map(|op| {
            data.topologies().into_iter().filter_map(move |t| {
                let n = data
                    .kernels()
                    .filter(|r| r.topology == t && r.op == op)
                    .map(|r| r.n)
                    .max()?;
                Some((op.clone(), t, n))
            })
        })
        .collect();
    h.push_str("<section id=\"bench-kernels\">\n<h2>Kernels side by side</h2>\n<div class=\"wide\"><table id=\"bench-kernels-table\" class=\"compact\">\n<thead><tr><th>kernel</th>");
    for (op, t, n) in &columns {
        let _ = write!(
            h,
            "<th class=\"num\">{}, {} (n = {n})</th>",
            escape(op),
            escape(t)
        );
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for g in &groups {
        let _ = write!(h, "<tr><td>{}</td>", escape(&g.label));
        for (op, t, n) in &columns {
            let cell = data
                .kernels()
                .find(|r| g.has(r) && r.op == *op && r.topology == *t && r.n == *n)
                .map_or_else(|| NA.to_string(), |r| ns_per_vertex(r.compute_s, r.n));
            let _ = write!(h, "<td class=\"num\">{cell}</td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n<p class=\"lead\">Compute ns / vertex (median time × 10⁹ ÷ n, 3 significant digits) on the largest tree of each topology; lower is faster.</p>\n</section>\n");
}

/// Every row of bench.csv: times as stored (seconds, shortest exact form) and per vertex.
pub(super) fn rows(h: &mut String, data: &BenchData) {
    h.push_str("<section id=\"bench-rows\">\n<h2>All rows</h2>\n");
    let _ = writeln!(
        h,
        "<details open><summary>{} rows of bench.csv</summary>",
        data.rows.len()
    );
    h.push_str("<div class=\"wide\"><table id=\"bench-table\" class=\"compact\">\n<thead><tr>");
    let cols: [(&str, &str); 16] = [
        ("topology", "topology"),
        ("n", "n"),
        ("height", "height"),
        ("op", "op"),
        ("algorithm", "algorithm"),
        ("backend", "backend"),
        ("compute_s", "compute median (s)"),
        ("compute_min_s", "compute min (s)"),
        ("compute_max_s", "compute max (s)"),
        ("transfer_s", "transfers median (s)"),
        ("transfer_min_s", "transfers min (s)"),
        ("transfer_max_s", "transfers max (s)"),
        ("compute_ns_per_vertex", "compute ns / vertex"),
        ("total_ns_per_vertex", "with transfers ns / vertex"),
        ("bytes_moved", "bytes moved"),
        ("reps", "reps"),
    ];
    for (i, (key, title)) in cols.iter().enumerate() {
        let class = if (1..3).contains(&i) || i >= 6 {
            " class=\"num\""
        } else {
            ""
        };
        let _ = write!(h, "<th{class} title=\"{key}\">{}</th>", escape(title));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for r in &data.rows {
        let num = |s: String| format!("<td class=\"num\">{s}</td>");
        let text = |s: &str| format!("<td>{}</td>", escape(s));
        let cells = [
            text(&r.topology),
            num(r.n.to_string()),
            num(r.height.to_string()),
            text(&r.op),
            text(&r.algorithm),
            text(&r.backend),
            num(f64_shortest(r.compute_s)),
            num(f64_shortest(r.compute_min_s)),
            num(f64_shortest(r.compute_max_s)),
            num(f64_shortest(r.transfer_s)),
            num(f64_shortest(r.transfer_min_s)),
            num(f64_shortest(r.transfer_max_s)),
            num(ns_per_vertex(r.compute_s, r.n)),
            num(ns_per_vertex(r.compute_s + r.transfer_s, r.n)),
            num(r.bytes_moved.to_string()),
            num(r.reps.to_string()),
        ];
        let _ = writeln!(h, "<tr>{}</tr>", cells.concat());
    }
    h.push_str("</tbody></table></div></details>\n<p class=\"lead\">ns / vertex: median time × 10⁹ ÷ n, to 3 significant digits; \"with transfers\" adds the median transfer time.</p>\n</section>\n");
}

/// The time a baseline row measured: it times one thing (the copy kernel, or the bus transfer)
/// and leaves the other time 0, so the sum is that time whichever field holds it.
fn baseline_s(r: &BenchRecord) -> (f64, f64) {
    (
        r.compute_s + r.transfer_s,
        r.compute_min_s + r.transfer_min_s,
    )
}

/// Copy kernel, upload and download as effective bandwidth = bytes moved ÷ time.
pub(super) fn baselines(h: &mut String, data: &BenchData) {
    h.push_str("<section id=\"baselines\">\n<h2>Baselines: effective bandwidth</h2>\n");
    let rows: Vec<&BenchRecord> = data.rows.iter().filter(|r| is_baseline(r)).collect();
    if rows.is_empty() {
        h.push_str("<p class=\"note\" id=\"baselines-missing\">Not available in this run: bench.csv has no copy, upload or download rows.</p>\n</section>\n");
        return;
    }
    h.push_str("<table id=\"bench-baselines\">\n<thead><tr><th>baseline</th><th>backend</th><th class=\"num\" title=\"bytes_moved\">bytes moved</th><th class=\"num\" title=\"median time\">time (s)</th><th class=\"num\" title=\"bytes_moved / median time\">bandwidth (GB/s)</th><th class=\"num\" title=\"bytes_moved / fastest time\">best (GB/s)</th></tr></thead>\n<tbody>\n");
    for r in rows {
        let (t, best) = baseline_s(r);
        let gbs = |s: f64| {
            if s > 0.0 {
                sig3(r.bytes_moved as f64 / s / 1e9)
            } else {
                NA.to_string()
            }
        };
        let what = match r.algorithm.as_str() {
            "copy" => "copy kernel (device to device; bytes read + written)",
            "upload" => "upload (host to device)",
            _ => "download (device to host)",
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(what),
            escape(&r.backend),
            r.bytes_moved,
            f64_shortest(t),
            gbs(t),
            gbs(best)
        );
    }
    h.push_str("</tbody></table>\n<p class=\"lead\">Bandwidth = bytes moved ÷ time (1 GB = 10⁹ bytes): what the kernels' memory traffic could reach on this device, for comparison with the ns per vertex above.</p>\n</section>\n");
}
