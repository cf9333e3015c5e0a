//! Run parameters and environment, from `sweep.json` and `summary.json`.

use crate::report::data::ReportData;
use crate::report::fmt::{NA, escape, sci, seconds, shell_quote, value_text};
use serde_json::Value;
use std::fmt::Write;

/// Run parameters (sweep.json) and environment (summary.json).
pub(super) fn section(h: &mut String, data: &ReportData) {
    h.push_str("<section id=\"run\">\n<h2>Run parameters and environment</h2>\n");
    if data.summary.is_none() {
        h.push_str("<p class=\"note\">summary.json is missing (the sweep did not finish or was written by an older version): environment details are not available in this run.</p>\n");
    }
    h.push_str("<table class=\"kv\" id=\"run-params\">\n");
    let mut row = |k: &str, v: String| {
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", escape(k), v);
    };
    let text = |v: Option<&Value>| v.map(value_text).map(|s| escape(&s));
    let or_na = |s: Option<String>| s.unwrap_or_else(|| NA.to_string());

    if let Some(cmd) = data.summary_field("command_line").and_then(Value::as_array) {
        let line: Vec<String> = cmd
            .iter()
            .filter_map(Value::as_str)
            .map(shell_quote)
            .collect();
        row(
            "Command line",
            format!("<code>{}</code>", escape(&line.join(" "))),
        );
    } else {
        row("Command line", NA.into());
    }
    let tool = match (
        data.summary_field("tool").and_then(Value::as_str),
        data.summary_field("version").and_then(Value::as_str),
    ) {
        (Some(t), Some(v)) => Some(escape(&format!("{t} {v}"))),
        (None, Some(v)) => Some(escape(v)),
        _ => None,
    };
    row("Tool version", or_na(tool));
    let mut backends: Vec<String> = data.rows.iter().map(|r| r.backend.clone()).collect();
    backends.sort();
    backends.dedup();
    row(
        "Backend",
        or_na(text(data.summary_field("backend")).map(|b| {
            format!(
                "{b} <span class=\"na\">(per row in results.csv: {})</span>",
                escape(&backends.join(", "))
            )
        })),
    );
    let env = data.summary_field("environment");
    let adapter = data
        .summary_field("adapter")
        .or_else(|| env.and_then(|e| e.get("adapter")));
    row(
        "Adapter",
        match adapter {
            Some(a) => escape(&value_text(a)),
            None if backends.iter().all(|b| b == "cpu") && !backends.is_empty() => {
                "none: CPU twins only".into()
            }
            None => NA.into(),
        },
    );
    row("Reference", or_na(text(data.param("reference"))));
    row("Seed", or_na(text(data.param("seed"))));
    row("Topologies", or_na(text(data.param("topologies"))));
    row("Vertices per tree", or_na(text(data.param("nodes"))));
    row(
        "Trees per target",
        or_na(text(data.param("trees_per_target"))),
    );
    row(
        "Target condition numbers",
        or_na(
            data.param("targets")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_f64)
                        .map(sci)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .map(|s| escape(&s)),
        ),
    );
    row("Weights", or_na(text(data.param("weights"))));
    row("Operations", or_na(text(data.param("ops"))));
    row("Algorithms", or_na(text(data.param("algos"))));
    let orders = data
        .param("child_orders")
        .or_else(|| data.param("child_order"));
    row("Child order", or_na(text(orders)));
    row(
        "Trees",
        or_na(data.summary_field("trees").map(|t| {
            let resumed = data
                .summary_field("resumed_trees")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            format!("{} ({resumed} resumed from an earlier run)", value_text(t))
        })),
    );
    row(
        "Time",
        or_na(data.summary_field("timings").map(|t| {
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
        })),
    );
    if let Some(Value::Object(e)) = env {
        for (k, v) in e {
            if k != "adapter" {
                row(&format!("Environment: {k}"), escape(&value_text(v)));
            }
        }
    } else {
        row("Environment", NA.into());
    }
    // Fields added to summary.json later still show up.
    const KNOWN: [&str; 12] = [
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
    ];
    if let Some(Value::Object(s)) = &data.summary {
        for (k, v) in s {
            if !KNOWN.contains(&k.as_str()) {
                row(k, escape(&value_text(v)));
            }
        }
    }
    row(
        "Report",
        format!(
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
        ),
    );
    h.push_str("</table>\n</section>\n");
}
