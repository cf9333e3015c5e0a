//! The top of the report: which algorithm to use, per op — the sentence, the Pareto view of
//! accuracy against cost, then the table the sentence is computed from (largest loss per
//! topology and κ band, each algorithm's time labelled GPU kernel or CPU twin).

use super::pareto;
use crate::ReportError;
use crate::answer::{self, Cell, OpAnswer, Threshold};
use crate::data::ReportData;
use crate::fmt::{NA, escape, fixed, sig3};
use crate::ulps::Shown;
use analysis::f32_format::BITS;
use analysis::format::ns_per_vertex;
use std::fmt::Write;

/// Shade of a cell by its loss: within the threshold, then every 8 bits, then none left.
fn shade(bits: f64, t: Threshold) -> &'static str {
    if bits <= t.bits {
        "q0"
    } else if bits <= 8.0 {
        "q1"
    } else if bits <= 16.0 {
        "q2"
    } else if bits < BITS {
        "q3"
    } else {
        "q4"
    }
}

fn cell(h: &mut String, c: Option<Cell>, t: Threshold) {
    let Some(c) = c else {
        let _ = write!(h, "<td class=\"num\">{NA}</td>");
        return;
    };
    let bits = if c.bits.is_finite() {
        fixed(c.bits, 1)
    } else {
        "∞".into()
    };
    let _ = write!(h, "<td class=\"num {}\">{bits}", shade(c.bits, t));
    if let Some(u) = Shown::of(c.ulps, c.bits) {
        let _ = write!(h, "<span class=\"ulps\">{}</span>", escape(&u.text()));
    }
    h.push_str("</td>");
}

/// The section: per op, one sentence; then per op its Pareto view and its table.
pub(super) fn section(h: &mut String, data: &ReportData) -> Result<(), ReportError> {
    h.push_str("<section id=\"answer\">\n<h2>Which algorithm to use</h2>\n");
    let answers = answer::answers(data);
    if answers.is_empty() {
        h.push_str("<p class=\"note\">results.csv holds no results yet: nothing to recommend.</p>\n</section>\n");
        return Ok(());
    }
    h.push_str("<ul class=\"answer\" id=\"answer-sentences\">\n");
    for a in &answers {
        let _ = write!(
            h,
            "<li><span class=\"choice\">{}</span>\n<ul class=\"why\">",
            with_code(&a.sentence)
        );
        for d in &a.details {
            let _ = write!(h, "<li>{}</li>", with_code(d));
        }
        h.push_str("</ul></li>\n");
    }
    h.push_str("</ul>\n");
    if let Some(hint) = answer::bench_hint(data, &answers) {
        let _ = writeln!(
            h,
            "<p class=\"note\" id=\"answer-bench\">{}</p>",
            with_code(&hint)
        );
    }
    pareto::figure(h, &answers)?;
    let ulps = data.header.iter().any(|c| c == "max_ulps");
    let t = Threshold::of(data);
    let _ = writeln!(
        h,
        "<p class=\"lead\">Each cell: the most bits any node lost over the trees of that topology and κ band (the sweep's target κ){}. Shaded by loss: within the threshold (≤ {}), ≤ 8, ≤ 16, &lt; 24, and 24 or more (no correct bit left). Time: each algorithm's values per vertex (without the reference, errors and bounds), labelled by where they were measured — a GPU kernel or the algorithm's CPU twin, whose times say nothing of a GPU's — and against the fastest of the same kind.</p>",
        if ulps {
            ", and below it the largest distance from the correctly rounded result in f32 ulps (counted up to 2²³, a binade; beyond, at least 2^(b − 1) for b lost bits)"
        } else {
            ""
        },
        escape(&t.text())
    );
    for a in &answers {
        table(h, a);
    }
    h.push_str("</section>\n");
    Ok(())
}

fn table(h: &mut String, a: &OpAnswer) {
    let _ = write!(
        h,
        "<div class=\"wide\"><table class=\"answer\" id=\"answer-{}\">\n<caption>{}; {}</caption>\n<thead><tr><th>topology</th><th class=\"num\">κ band</th>",
        escape(&a.op),
        escape(&a.op),
        escape(&a.costs.source)
    );
    for (i, name) in a.algorithms.iter().enumerate() {
        let pick = if a.meets(i) { " meets" } else { "" };
        let _ = write!(h, "<th class=\"num{pick}\">{}</th>", escape(name));
    }
    let _ = write!(
        h,
        "<th class=\"choice\">cheapest within {}</th>",
        escape(&a.threshold.text())
    );
    h.push_str("</tr></thead>\n<tbody>\n");
    let mut previous = "";
    for l in &a.lines {
        let first = l.topology != previous;
        previous = &l.topology;
        let _ = write!(
            h,
            "<tr{}><td>{}</td><td class=\"num\">{}</td>",
            if first { " class=\"first\"" } else { "" },
            if first {
                escape(&l.topology)
            } else {
                String::new()
            },
            crate::fmt::sci(l.target)
        );
        for c in &l.cells {
            cell(h, *c, a.threshold);
        }
        choice(h, a, &l.cells);
        h.push_str("</tr>\n");
    }
    footer(h, a);
}

/// The row's choice, as the answer's per-band advice makes it: the cheapest algorithm within
/// the threshold by the op's compared times, else (marked) the most accurate.
fn choice(h: &mut String, a: &OpAnswer, cells: &[Option<Cell>]) {
    let text = match answer::bands::choose(a, cells) {
        (Some(i), true) => escape(&a.algorithms[i]),
        (Some(i), false) => format!("none; most accurate: {}", escape(&a.algorithms[i])),
        (None, _) => "—".into(),
    };
    let _ = write!(h, "<td class=\"choice\">{text}</td>");
}

/// The table's foot: the worst cell, whether within the threshold, and the times.
fn footer(h: &mut String, a: &OpAnswer) {
    h.push_str("</tbody>\n<tfoot>\n<tr><th colspan=\"2\">largest over the table</th>");
    for w in &a.worst {
        cell(h, *w, a.threshold);
    }
    let _ = write!(
        h,
        "</tr>\n<tr><th colspan=\"2\">≤ {} everywhere</th>",
        escape(&a.threshold.text())
    );
    for i in 0..a.algorithms.len() {
        let _ = write!(
            h,
            "<td class=\"num\">{}</td>",
            if a.meets(i) { "yes" } else { "no" }
        );
    }
    let _ = write!(
        h,
        "</tr>\n<tr><th colspan=\"2\">time, against the fastest {}</th>",
        if a.costs.gpu {
            "GPU kernel"
        } else {
            "CPU twin"
        }
    );
    for i in 0..a.algorithms.len() {
        match (a.costs.relative(i), &a.costs.costs[i]) {
            (Some(r), _) => {
                let _ = write!(h, "<td class=\"num\">{}</td>", answer::times(r));
            }
            (None, Some(_)) => {
                let _ = write!(
                    h,
                    "<td class=\"num\"><span class=\"na\" title=\"a CPU twin's time is not compared with GPU kernels\">no kernel time</span></td>"
                );
            }
            (None, None) => {
                let _ = write!(h, "<td class=\"num\">{NA}</td>");
            }
        }
    }
    h.push_str("</tr>\n<tr><th colspan=\"2\">time per vertex</th>");
    for c in &a.costs.costs {
        match c {
            Some(c) => {
                let _ = write!(
                    h,
                    "<td class=\"num time\">{} ns <span class=\"place\" title=\"{}\">{}</span></td>",
                    sig3(ns_per_vertex(c.time.per_vertex_s, 1)),
                    escape(&place_title(c)),
                    c.time.place.label()
                );
            }
            None => {
                let _ = write!(h, "<td class=\"num\">{NA}</td>");
            }
        }
    }
    h.push_str("</tr>\n</tfoot>\n</table></div>\n");
}

/// The tooltip of a time: where it ran, and from which file.
fn place_title(c: &answer::Cost) -> String {
    let from = if c.time.from_bench {
        "bench.csv"
    } else {
        "this run"
    };
    match &c.time.place {
        answer::Place::GpuKernel(adapter) => format!("{adapter}, from {from}"),
        answer::Place::CpuTwin => format!("cpu, from {from}"),
    }
}

/// `text` escaped, its `code spans` (commands and flags) set as code.
fn with_code(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return escape(text);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", escape(p))
            } else {
                escape(p)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::with_code;

    #[test]
    fn code_spans_become_code() {
        assert_eq!(
            with_code("add it with `--algos a,b` & go"),
            "add it with <code>--algos a,b</code> &amp; go"
        );
        assert_eq!(with_code("one ` tick"), "one ` tick");
    }
}
