//! Run parameters and environment, from `sweep.json` and `summary.json`.

use crate::answer::Threshold;
use crate::data::{ANSWER_FIELD, ReportData};
use crate::fmt::{NA, escape, sci, shell_quote, value_text};
use analysis::format::seconds;
use serde_json::Value;
use std::fmt::Write;

/// Run parameters (sweep.json) and environment (summary.json).
pub(super) fn section(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"run\">\n<h2>Run parameters and environment</h2>\n");
    if data.summary.is_none() {
        h.push_str("<p class=\"note\">summary.json is missing (the sweep did not finish or was written by an older version): environment details are not available in this run.</p>\n");
    }
    h.push_str("<table class=\"kv\" id=\"run-params\">\n");
    let rows = who_and_where(data)
        .into_iter()
        .chain(parameters(data))
        .chain(summary(data));
    for (k, v) in rows {
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", escape(&k), v);
    }
    h.push_str("</table>\n</section>\n");
}

/// (name, HTML value) rows.
type Rows = Vec<(String, String)>;

fn text(v: Option<&Value>) -> Option<String> {
    v.map(value_text).map(|s| escape(&s))
}

fn or_na(s: Option<String>) -> String {
    s.unwrap_or_else(|| NA.to_string())
}

/// The command, the tool, the backend and the adapter.
fn who_and_where(data: &ReportData) -> Rows {
    let mut rows: Rows = Vec::new();
    let command = data
        .summary_field("command_line")
        .and_then(Value::as_array)
        .map(|cmd| {
            let line: Vec<String> = cmd
                .iter()
                .filter_map(Value::as_str)
                .map(shell_quote)
                .collect();
            format!("<code>{}</code>", escape(&line.join(" ")))
        });
    rows.push(("Command line".into(), or_na(command)));
    let tool = match (
        data.summary_field("tool").and_then(Value::as_str),
        data.summary_field("version").and_then(Value::as_str),
    ) {
        (Some(t), Some(v)) => Some(escape(&format!("{t} {v}"))),
        (None, Some(v)) => Some(escape(v)),
        _ => None,
    };
    rows.push(("Tool version".into(), or_na(tool)));
    let mut backends: Vec<String> = data.rows.iter().map(|r| r.backend.clone()).collect();
    backends.sort();
    backends.dedup();
    let backend = text(data.summary_field("backend")).map(|b| {
        format!(
            "{b} <span class=\"na\">(per row in results.csv: {})</span>",
            escape(&backends.join(", "))
        )
    });
    rows.push(("Backend".into(), or_na(backend)));
    let adapter = data.summary_field("adapter").or_else(|| {
        data.summary_field("environment")
            .and_then(|e| e.get("adapter"))
    });
    let adapter = match adapter {
        Some(a) => escape(&value_text(a)),
        None if backends.iter().all(|b| b == "cpu") && !backends.is_empty() => {
            "none: CPU twins only".into()
        }
        None => NA.into(),
    };
    rows.push(("Adapter".into(), adapter));
    rows
}

/// What was swept (sweep.json).
fn parameters(data: &ReportData) -> Rows {
    let p = |k: &str| or_na(text(data.param(k)));
    let targets = data.param("targets").and_then(Value::as_array).map(|a| {
        let t: Vec<String> = a.iter().filter_map(Value::as_f64).map(sci).collect();
        escape(&t.join(", "))
    });
    let orders = data
        .param("child_orders")
        .or_else(|| data.param("child_order"));
    vec![
        ("Reference".into(), p("reference")),
        ("Seed".into(), p("seed")),
        ("Topologies".into(), p("topologies")),
        ("Vertices per tree".into(), p("nodes")),
        ("Trees per target".into(), p("trees_per_target")),
        ("Target condition numbers".into(), or_na(targets)),
        ("Weights".into(), p("weights")),
        ("Operations".into(), p("ops")),
        ("Algorithms".into(), p("algos")),
        ("Child order".into(), or_na(text(orders))),
    ]
}

/// summary.json's trees, times, environment and any field added later; the answer's
/// threshold; the files the page was rendered from.
fn summary(data: &ReportData) -> Rows {
    let mut rows: Rows = Vec::new();
    let trees = data.summary_field("trees").map(|t| {
        let resumed = data
            .summary_field("resumed_trees")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        format!("{} ({resumed} resumed from an earlier run)", value_text(t))
    });
    rows.push(("Trees".into(), or_na(trees)));
    let time = data.summary_field("timings").map(|t| {
        let g = |k: &str| t.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
        format!(
            "{} s wall; generation {} s, evaluation {} s summed over {} threads",
            seconds(g("wall_s")),
            seconds(g("generate_s")),
            seconds(g("evaluate_s")),
            data.summary_field("threads")
                .map(value_text)
                .unwrap_or_else(|| "?".into())
        )
    });
    rows.push(("Time".into(), or_na(time)));
    match data.summary_field("environment") {
        Some(Value::Object(e)) => rows.extend(
            e.iter()
                .filter(|(k, _)| *k != "adapter")
                .map(|(k, v)| (format!("Environment: {k}"), escape(&value_text(v)))),
        ),
        _ => rows.push(("Environment".into(), NA.into())),
    }
    // Fields added to summary.json later still show up.
    const KNOWN: [&str; 13] = [
        "tool",
        "version",
        "command_line",
        "params",
        "backend",
        "adapter",
        "trees",
        "resumed_trees",
        "timings",
        "threads",
        "worst",
        "environment",
        ANSWER_FIELD,
    ];
    if let Some(Value::Object(s)) = &data.summary {
        rows.extend(
            s.iter()
                .filter(|(k, _)| !KNOWN.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), escape(&value_text(v)))),
        );
    }
    let t = Threshold::of(data);
    rows.push((
        "Answer's threshold".into(),
        escape(&format!(
            "{}{}",
            t.text(),
            if t.given {
                " (--max-lost-bits)"
            } else {
                " (the default)"
            }
        )),
    ));
    let files = format!(
        "rendered by treefix-accuracy {} from results.csv{}{}",
        env!("CARGO_PKG_VERSION"),
        if data.nodes.is_some() {
            ", nodes-sample.csv"
        } else {
            ""
        },
        if data.summary.is_some() {
            ", summary.json"
        } else {
            ""
        }
    );
    rows.push(("Report".into(), files));
    rows
}
