//! The per-topology bounds table of `accuracy bounds-table` (`bounds-table.json`).

use crate::report::data::ReportData;
use crate::report::fmt::{NA, escape, fixed, round_trip, sci, shell_quote, value_text};
use serde_json::Value;
use std::fmt::Write;

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

/// The table of `accuracy bounds-table`, when the run has one.
pub(super) fn section(h: &mut String, data: &ReportData) {
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
