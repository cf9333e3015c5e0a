//! The page of a small sweep: it parses as HTML and holds every figure and table, its log axes
//! are ticked at powers of ten, it shows exactly the numbers of results.csv, and it needs no
//! network, no script and no installed font.

use super::{read_results, sweep_dir};
use crate::common::html::{
    assert_every_char_in_the_font, assert_self_contained, parse, sel, text_of,
};
use scraper::ElementRef;

fn same_value(shown: &str, stored: &str) -> bool {
    match (shown.parse::<f64>(), stored.parse::<f64>()) {
        (Ok(a), Ok(b)) => a == b,
        _ => shown == stored,
    }
}

#[test]
fn report_parses_and_holds_every_figure_and_table() {
    let dir = sweep_dir();
    let path = dir.join("report.html");
    let (text, doc) = parse(&path);
    assert!(doc.errors.is_empty(), "HTML parse errors: {:?}", doc.errors);
    assert!(text.starts_with("<!DOCTYPE html>"));
    assert!(text.len() < 5_000_000, "report is {} bytes", text.len());

    for id in [
        "#answer-sentences li",
        "#answer-rootfix",
        "#answer-leaffix",
        "#findings-list li",
        "#run-params",
        "#fig-max-rel svg",
        "#fig-lost-bits svg",
        "#fig-nodes-panels svg",
        "#fig-tightness-hist svg",
        "#topology-table",
        "#bounds-table-missing",
        "#results-table",
    ] {
        assert!(doc.select(&sel(id)).next().is_some(), "missing {id}");
    }
    // The sweep computes per-node bounds: every figure but the histogram shades them, a band
    // per series in its colour, each with its legend entry.
    for fig in ["#fig-max-rel", "#fig-lost-bits", "#fig-nodes-panels"] {
        for panel in doc.select(&sel(&format!("{fig} .panel"))) {
            assert_eq!(
                panel.select(&sel(".legend li.band")).count(),
                panel.select(&sel(".legend li.series")).count(),
                "{fig}"
            );
        }
    }

    // Every panel has labelled axes, and the legends of a figure's panels name every series
    // of results.csv (the paper's panels by algorithm, one panel per op; the others by op).
    let (header, rows) = read_results(dir);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let mut series: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r[col("algorithm")].clone(), r[col("op")].clone()))
        .collect();
    series.sort();
    series.dedup();
    assert_eq!(series.len(), 8);
    for fig in ["#fig-max-rel", "#fig-lost-bits"] {
        let mut named: Vec<(String, String)> = Vec::new();
        for panel in doc.select(&sel(&format!("{fig} .panel"))) {
            let title = text_of(panel.select(&sel("h4")).next().unwrap());
            for li in panel.select(&sel(".legend li.series")) {
                // A series equal to another, marker for marker, says so: "parallel (= sequential)".
                let label = text_of(li);
                let label = label.split(" (= ").next().unwrap().to_string();
                named.push(match title.split_once(": ") {
                    Some((op, _)) => (label, op.to_string()),
                    None => (title.clone(), label),
                });
            }
            let texts: Vec<String> = panel.select(&sel("svg text")).map(text_of).collect();
            assert!(
                texts.iter().any(|t| t.contains("κ of the whole tree")),
                "{fig}"
            );
            assert!(
                panel.select(&sel("svg circle")).count() + panel.select(&sel("svg path")).count()
                    > 0
            );
        }
        // Fig. 10 draws the paper's algorithms in a row of panels per topology.
        named.sort();
        named.dedup();
        assert_eq!(named, series, "{fig}");
        let shared: Vec<String> = doc
            .select(&sel(&format!("{fig} .legend.shared li")))
            .map(text_of)
            .collect();
        assert!(
            shared
                .iter()
                .any(|t| t.contains("u·κ") || t.contains("log₂ κ")),
            "{fig}: {shared:?}"
        );
    }
    let y_desc = |fig: &str| -> bool {
        doc.select(&sel(&format!("{fig} svg text")))
            .any(|t| text_of(t).contains("relative error"))
    };
    assert!(y_desc("#fig-max-rel") && y_desc("#fig-nodes-panels"));
}

#[test]
fn log_axes_are_ticked_at_powers_of_ten() {
    let (_, doc) = parse(&sweep_dir().join("report.html"));
    let mut pow10 = 0;
    for t in doc.select(&sel("svg text")) {
        let s = text_of(t);
        assert!(
            !s.contains("e-") && !s.contains("999") && !s.contains("000001"),
            "tick {s:?}"
        );
        if s.starts_with("10") && s.chars().skip(2).all(|c| "⁻⁰¹²³⁴⁵⁶⁷⁸⁹".contains(c))
        {
            pow10 += 1;
        }
    }
    assert!(pow10 > 10, "only {pow10} 10ᵏ tick labels");
}

#[test]
fn numbers_shown_equal_results_csv() {
    let dir = sweep_dir();
    let (_, doc) = parse(&dir.join("report.html"));
    let (header, rows) = read_results(dir);
    let table = doc.select(&sel("#results-table")).next().unwrap();
    let th: Vec<String> = table.select(&sel("thead th")).map(text_of).collect();
    assert_eq!(th, header, "the table shows results.csv's columns");
    let trs: Vec<ElementRef> = table.select(&sel("tbody tr")).collect();
    assert_eq!(trs.len(), rows.len());
    for (tr, row) in trs.iter().zip(&rows) {
        let cells: Vec<String> = tr.select(&sel("td")).map(text_of).collect();
        assert_eq!(cells.len(), row.len());
        for ((c, v), h) in cells.iter().zip(row).zip(&header) {
            assert!(same_value(c, v), "{h}: shown {c:?}, stored {v:?}");
        }
    }

    // The per-topology table: recomputed from the CSV.
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let num = |r: &Vec<String>, c: &str| r[col(c)].parse::<f64>().unwrap();
    let topo = doc.select(&sel("#topology-table")).next().unwrap();
    let mut checked = 0;
    for tr in topo.select(&sel("tbody tr")) {
        let cells: Vec<String> = tr.select(&sel("td")).map(text_of).collect();
        let mine: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| {
                r[col("topology")] == cells[0]
                    && r[col("op")] == cells[1]
                    && r[col("algorithm")] == cells[2]
            })
            .collect();
        let mut bits: Vec<f64> = mine.iter().map(|r| num(r, "max_lost_bits")).collect();
        bits.sort_by(f64::total_cmp);
        let allowed = mine
            .iter()
            .map(|r| num(r, "max_bound_lost_bits"))
            .fold(0.0, f64::max);
        let det: f64 = mine
            .iter()
            .map(|r| {
                num(r, "bound_violations")
                    + num(r, "sharp_violations")
                    + num(r, "running_violations")
            })
            .sum();
        let prob: f64 = mine.iter().map(|r| num(r, "prob_violations")).sum();
        assert_eq!(cells[3], mine.len().to_string());
        assert_eq!(cells[7], format!("{:.2}", bits.last().unwrap()));
        assert_eq!(cells[8], format!("{:.2}", bits[(bits.len() - 1) / 2]));
        assert_eq!(cells[9], format!("{allowed:.2}"));
        assert_eq!(cells[10], det.to_string());
        assert_eq!(cells[11], prob.to_string());
        checked += 1;
    }
    assert_eq!(checked, 2 * 8);

    // The headline finding quotes the worst row.
    let worst = rows
        .iter()
        .map(|r| r[col("max_lost_bits")].parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    let first = doc
        .select(&sel("#findings-list li"))
        .next()
        .map(text_of)
        .unwrap();
    assert!(
        first.contains(&format!("{worst:.1} bits")),
        "{first} does not quote {worst:.1}"
    );
}

#[test]
fn self_contained_no_script_no_network_embedded_font() {
    let (text, doc) = parse(&sweep_dir().join("report.html"));
    assert_self_contained(&text);
    assert!(assert_every_char_in_the_font(&doc) > 500);
}

/// Each row of the answer tables ends with its choice: an algorithm of the table whose cell
/// in that row is within the threshold, or, marked, the most accurate of the row.
#[test]
fn every_answer_row_names_its_choice() {
    let (_, doc) = parse(&sweep_dir().join("report.html"));
    for op in ["rootfix", "leaffix"] {
        let table = doc.select(&sel(&format!("#answer-{op}"))).next().unwrap();
        let heads: Vec<String> = table.select(&sel("thead th")).map(text_of).collect();
        assert!(
            heads.last().unwrap().starts_with("cheapest within"),
            "{heads:?}"
        );
        let names = &heads[2..heads.len() - 1];
        // "cheapest within B bit(s)": the threshold B.
        let limit: f64 = heads.last().unwrap()["cheapest within ".len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let rows: Vec<ElementRef> = table.select(&sel("tbody tr")).collect();
        assert!(!rows.is_empty());
        for row in rows {
            let cells: Vec<String> = row.select(&sel("td")).map(text_of).collect();
            let choice = cells.last().unwrap();
            let name = choice
                .strip_prefix("none; most accurate: ")
                .unwrap_or(choice);
            let i = names.iter().position(|n| n == name);
            assert!(i.is_some(), "{op}: {choice} is no algorithm of {names:?}");
            // Each algorithm's cell: its bits, the cell's first text (its ulps follow in a span).
            let tds: Vec<ElementRef> = row.select(&sel("td")).collect();
            let bits_of = |k: usize| -> f64 {
                let first = tds[2 + k].text().next().unwrap_or("");
                first.trim().parse().unwrap_or(f64::INFINITY)
            };
            let bits = bits_of(i.unwrap());
            let every: Vec<f64> = (0..names.len()).map(bits_of).collect();
            if choice.starts_with("none") {
                assert!(every.iter().all(|&b| b > limit), "{op}: {cells:?}");
                assert_eq!(
                    bits,
                    every.iter().cloned().fold(f64::INFINITY, f64::min),
                    "{cells:?}"
                );
            } else {
                assert!(bits <= limit, "{op}: {choice} loses {bits} > {limit}");
            }
        }
    }
}
