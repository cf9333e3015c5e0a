//! The top of the report: which algorithm to use, per op — the sentence, then the table it is
//! computed from (largest loss per topology and κ band, each algorithm's relative time).

use crate::report::answer::{self, Cell, OpAnswer, TARGET_BITS};
use crate::report::data::ReportData;
use crate::report::fmt::{NA, escape, fixed, sci};
use std::fmt::Write;

/// Shade of a cell by its loss: the accuracy target, then every 8 bits, then none left.
fn shade(bits: f64) -> &'static str {
    if bits <= TARGET_BITS {
        "q0"
    } else if bits <= 8.0 {
        "q1"
    } else if bits <= 16.0 {
        "q2"
    } else if bits < 24.0 {
        "q3"
    } else {
        "q4"
    }
}

fn cell(h: &mut String, c: Option<Cell>) {
    let Some(c) = c else {
        let _ = write!(h, "<td class=\"num\">{NA}</td>");
        return;
    };
    let bits = if c.bits.is_finite() {
        fixed(c.bits, 1)
    } else {
        "∞".into()
    };
    let _ = write!(h, "<td class=\"num {}\">{bits}", shade(c.bits));
    if let Some(u) = c.ulps {
        let _ = write!(h, "<span class=\"ulps\">{} ulp</span>", sci(u));
    }
    h.push_str("</td>");
}

/// The section: one sentence and one table per op.
pub(super) fn section(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"answer\">\n<h2>Which algorithm to use</h2>\n");
    let answers = answer::answers(data);
    if answers.is_empty() {
        h.push_str("<p class=\"note\">results.csv holds no results yet: nothing to recommend.</p>\n</section>\n");
        return;
    }
    h.push_str("<ul class=\"answer\" id=\"answer-sentences\">\n");
    for a in &answers {
        let _ = writeln!(h, "<li>{}</li>", escape(&a.sentence));
    }
    h.push_str("</ul>\n");
    let ulps = data.header.iter().any(|c| c == "max_ulps");
    let _ = writeln!(
        h,
        "<p class=\"lead\">Each cell: the most bits any node lost over the trees of that topology and κ band (the sweep's target κ){}. Shaded by loss: ≤ {} bit, ≤ 8, ≤ 16, &lt; 24, and 24 or more (no correct bit left). Time: each algorithm's values (its kernel or CPU twin, without the reference, errors and bounds) per vertex, against the fastest, from the source each table names.</p>",
        if ulps {
            ", and below it the largest distance in f32 ulps from the correctly rounded result"
        } else {
            ""
        },
        fixed(TARGET_BITS, 0)
    );
    for a in &answers {
        table(h, a);
    }
    h.push_str("</section>\n");
}

fn table(h: &mut String, a: &OpAnswer) {
    let _ = write!(
        h,
        "<div class=\"wide\"><table class=\"answer\" id=\"answer-{}\">\n<caption>{}; {}</caption>\n<thead><tr><th>topology</th><th class=\"num\">κ band</th>",
        escape(&a.op),
        escape(&a.op),
        escape(&a.cost_source)
    );
    for (i, name) in a.algorithms.iter().enumerate() {
        let pick = if a.meets(i) { " meets" } else { "" };
        let _ = write!(h, "<th class=\"num{pick}\">{}</th>", escape(name));
    }
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
            sci(l.target)
        );
        for c in &l.cells {
            cell(h, *c);
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n<tfoot>\n<tr><th colspan=\"2\">largest over the table</th>");
    for w in &a.worst {
        cell(h, *w);
    }
    let _ = write!(
        h,
        "</tr>\n<tr><th colspan=\"2\">≤ {} bit everywhere</th>",
        fixed(TARGET_BITS, 0)
    );
    for i in 0..a.algorithms.len() {
        let _ = write!(
            h,
            "<td class=\"num\">{}</td>",
            if a.meets(i) { "yes" } else { "no" }
        );
    }
    h.push_str("</tr>\n<tr><th colspan=\"2\">time, against the fastest</th>");
    for c in &a.costs {
        match c {
            Some(c) => {
                let _ = write!(h, "<td class=\"num\">{}</td>", answer::times(c.relative));
            }
            None => {
                let _ = write!(h, "<td class=\"num\">{NA}</td>");
            }
        }
    }
    h.push_str("</tr>\n<tr><th colspan=\"2\">time per vertex</th>");
    for (c, b) in a.costs.iter().zip(&a.backends) {
        match c {
            Some(c) => {
                let _ = write!(
                    h,
                    "<td class=\"num\">{} ns <span class=\"ulps\">{}</span></td>",
                    crate::report::fmt::sig3(c.per_vertex_s * 1e9),
                    escape(b)
                );
            }
            None => {
                let _ = write!(h, "<td class=\"num\">{NA}</td>");
            }
        }
    }
    h.push_str("</tr>\n</tfoot>\n</table></div>\n");
}
