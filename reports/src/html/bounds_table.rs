//! The per-topology bounds table of `accuracy bounds-table` (`bounds-table.json`, read as
//! [`TableReport`]).

use crate::data::{ReportData, TableReport, TableRow};
use crate::fmt::{NA, escape, fixed, sci, shell_quote};
use std::fmt::Write;

/// A cell of the table, and how it is written.
enum Cell<'a> {
    Text(&'a str),
    Int(usize),
    /// A count that must be 0 (deterministic-bound violations): shown in red otherwise.
    Violations(usize),
    Bits(f64),
    Sci(f64),
    Percent(Option<f64>),
}

impl Cell<'_> {
    fn is_text(&self) -> bool {
        matches!(self, Cell::Text(_))
    }

    fn html(&self) -> String {
        match *self {
            Cell::Text(s) => escape(s),
            Cell::Int(n) => n.to_string(),
            Cell::Violations(n) if n > 0 => format!("<span class=\"bad\">{n}</span>"),
            Cell::Violations(n) => n.to_string(),
            Cell::Bits(b) => fixed(b, 2),
            Cell::Sci(x) => sci(x),
            Cell::Percent(Some(f)) => format!("{:.0} %", 100.0 * f),
            Cell::Percent(None) => NA.to_string(),
        }
    }
}

/// A column: its field in [`TableRow`] (the `title` of its heading), heading, and value.
type Column = (&'static str, &'static str, fn(&TableRow) -> Cell<'_>);

/// The columns of `accuracy bounds-table`'s rows shown in the report (the file has more).
/// `tests::columns_are_fields_of_table_row` checks the field names against serde's.
const COLUMNS: [Column; 16] = [
    ("topology", "topology", |r| Cell::Text(&r.topology)),
    ("target_cond", "target κ", |r| Cell::Sci(r.target_cond)),
    ("achieved_cond_median", "median κ", |r| {
        Cell::Sci(r.achieved_cond_median)
    }),
    ("op", "op", |r| Cell::Text(&r.op)),
    ("algorithm", "algorithm", |r| Cell::Text(&r.algorithm)),
    ("trees", "trees", |r| Cell::Int(r.trees)),
    ("max_lost_bits", "max lost bits", |r| {
        Cell::Bits(r.max_lost_bits)
    }),
    ("p99_lost_bits", "p99 lost bits", |r| {
        Cell::Bits(r.p99_lost_bits)
    }),
    ("max_bound_lost_bits", "bits allowed (a priori)", |r| {
        Cell::Bits(r.max_bound_lost_bits)
    }),
    ("max_sharp_lost_bits", "bits allowed (sharp)", |r| {
        Cell::Bits(r.max_sharp_lost_bits)
    }),
    ("median_tightness", "median tight.", |r| {
        Cell::Sci(r.median_tightness)
    }),
    ("max_tightness", "max tight.", |r| {
        Cell::Sci(r.max_tightness)
    }),
    ("bound_violations", "a priori viol.", |r| {
        Cell::Violations(r.bound_violations)
    }),
    ("running_violations", "running viol.", |r| {
        Cell::Violations(r.running_violations)
    }),
    ("prob_violations", "prob. viol.", |r| {
        Cell::Int(r.prob_violations)
    }),
    ("extra_bits_agreement", "extra bits pred. ±1", |r| {
        Cell::Percent(r.extra_bits_agreement)
    }),
];

/// The table of `accuracy bounds-table`, when the run has one.
pub(super) fn section(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"bounds\">\n<h2>Per-topology bounds table</h2>\n");
    let Some((path, table)) = &data.bounds_table else {
        h.push_str("<p class=\"note\" id=\"bounds-table-missing\">Not available in this run: no bounds-table.json in the sweep directory (write one with <code>accuracy bounds-table</code>, or pass <code>--bounds-table FILE</code> to <code>accuracy report</code>).</p>\n</section>\n");
        return;
    };
    let _ = writeln!(
        h,
        "<p class=\"lead\">From <code>{}</code>.</p>",
        escape(&path.display().to_string())
    );
    about(h, table);
    let _ = writeln!(
        h,
        "<details open><summary>{} rows (topology × target × op × algorithm)</summary>",
        table.rows.len()
    );
    h.push_str("<div class=\"wide\"><table id=\"bounds-table\" class=\"compact\">\n<thead><tr>");
    let num = |text: bool| if text { "" } else { " class=\"num\"" };
    for (key, title, cell) in &COLUMNS {
        // Whether the column is text is the same on every row; an empty table has no row to
        // ask, and then every heading is left-aligned text.
        let text = table.rows.first().is_none_or(|r| cell(r).is_text());
        let _ = write!(h, "<th{} title=\"{key}\">{}</th>", num(text), escape(title));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for r in &table.rows {
        h.push_str("<tr>");
        for (_, _, cell) in &COLUMNS {
            let c = cell(r);
            let _ = write!(h, "<td{}>{}</td>", num(c.is_text()), c.html());
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div></details>\n");
    let more: Vec<&str> = TableRow::columns()
        .iter()
        .copied()
        .filter(|k| !COLUMNS.iter().any(|c| c.0 == *k))
        .collect();
    if !more.is_empty() {
        let _ = writeln!(
            h,
            "<p class=\"lead\">Also in the file: {}.</p>",
            escape(&more.join(", "))
        );
    }
    h.push_str("</section>\n");
}

/// Backend, λ, size, weights and command line of the table's run.
fn about(h: &mut String, t: &TableReport) {
    let line: Vec<String> = t.command_line.iter().map(|a| shell_quote(a)).collect();
    let about = [
        format!("backend {}", escape(&t.backend)),
        format!("probabilistic bounds at λ = {}", t.lambda),
        format!("vertices per tree {}", t.params.nodes),
        format!("weights {}", t.params.weights),
        format!("command <code>{}</code>", escape(&line.join(" "))),
    ];
    let _ = writeln!(h, "<p class=\"lead\">{}.</p>", about.join("; "));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_fields_of_table_row() {
        let fields = TableRow::columns();
        for (key, _, _) in &COLUMNS {
            assert!(fields.contains(key), "{key} is not a field of TableRow");
        }
    }
}
