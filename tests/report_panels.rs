//! A report of every algorithm of the registry, as a reader meets it: the answer on top is
//! the one the numbers give, every figure is a grid of panels with at most four series and
//! four legend entries each, and no finding names more than three algorithms.

mod common;
use common::html::{parse, sel, text_of};
use common::{accuracy, scratch};

use analysis::Algorithm;
use scraper::{ElementRef, Html};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Every algorithm on the topologies and κ bands of the first try, small trees.
fn sweep_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("panels").join("s");
        let algos = Algorithm::names().join(",");
        let o = accuracy(&[
            "sweep",
            "--nodes",
            "300",
            "--trees",
            "2",
            "--cond",
            "1e2,1e8,1e12",
            "--topology",
            "chain,star,random-recursive",
            "--algos",
            &algos,
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(
            o.status.success(),
            "sweep failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        dir
    })
}

fn doc() -> Html {
    parse(&sweep_dir().join("report.html")).1
}

/// results.csv as records keyed by column name.
fn results() -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(sweep_dir().join("results.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(str::to_string))
                .collect()
        })
        .collect()
}

/// Algorithm names appearing as whole words of `text` (a hyphen joins a name's words).
fn algorithms_named(text: &str) -> Vec<String> {
    let mut named: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| Algorithm::names().contains(w))
        .map(str::to_string)
        .collect();
    named.sort();
    named.dedup();
    named
}

fn panels<'a>(doc: &'a Html, fig: &str) -> Vec<ElementRef<'a>> {
    doc.select(&sel(&format!("#{fig} .panel"))).collect()
}

#[test]
fn every_figure_is_a_grid_of_panels_with_at_most_four_series() {
    let doc = &doc();
    let n = Algorithm::ALL.len();
    // The paper's Fig. 10 keeps its own panel per op and topology; each other algorithm gets
    // one.
    let expected = [
        ("fig-max-rel", 2 * 3 + n - 3),
        ("fig-lost-bits", n),
        ("fig-ulps", n),
        ("fig-nodes-panels", n),
        ("fig-tightness-hist", n),
    ];
    for (fig, count) in expected {
        let ps = panels(doc, fig);
        assert_eq!(ps.len(), count, "{fig}: panels");
        for p in &ps {
            let title = text_of(p.select(&sel("h4")).next().unwrap());
            let series = p.select(&sel(".legend li.series")).count();
            let bands = p.select(&sel(".legend li.band")).count();
            let entries = p.select(&sel(".legend li")).count();
            assert!((1..=4).contains(&series), "{fig} {title}: {series} series");
            // A series and its bound's band, nothing else.
            assert!(bands <= series, "{fig} {title}: {bands} bands");
            assert_eq!(entries, series + bands, "{fig} {title}");
            assert_eq!(p.select(&sel("svg[role=img]")).count(), 1, "{fig} {title}");
            // The legend is the page's: no legend text inside the plot.
            let texts: Vec<String> = p.select(&sel("svg text")).map(text_of).collect();
            assert!(
                !texts.iter().any(|t| t == "rootfix" || t == "leaffix"),
                "{fig} {title}: {texts:?}"
            );
        }
        // Shared axes: the panels of a row (same size) carry the same ticks and descriptions.
        let ticks =
            |p: &ElementRef| -> Vec<String> { p.select(&sel("svg text")).map(text_of).collect() };
        for row in doc.select(&sel(&format!("#{fig} .panels"))) {
            let ps: Vec<ElementRef> = row.select(&sel(".panel")).collect();
            let first = ticks(&ps[0]);
            assert!(ps.iter().all(|p| ticks(p) == first), "{fig}: axes differ");
        }
    }
    // The paper's own panels: sequential, parallel and vectorial on one op each.
    let paper: Vec<String> = Algorithm::paper()
        .iter()
        .map(|a| a.name().to_string())
        .collect();
    // Per topology: chain, star, random-recursive, each a row of two panels.
    for (i, p) in panels(doc, "fig-max-rel")[..6].iter().enumerate() {
        let title = text_of(p.select(&sel("h4")).next().unwrap());
        let topology = ["chain", "star", "random-recursive"][i / 2];
        // The title may go on with a note on correctly rounded runs (" — 12 of 18 runs …").
        let head = title.split(" — ").next().unwrap();
        assert!(head.ends_with(&format!(", {topology}")), "{title}");
        let labels: Vec<String> = p
            .select(&sel(".legend li.series"))
            .map(text_of)
            .map(|l| l.split(" (= ").next().unwrap().to_string())
            .collect();
        assert_eq!(labels, paper);
        // Parallel performs sequential's additions: its markers repeat sequential's, and the
        // legend says so rather than hide them.
        assert!(
            p.select(&sel(".legend li.series"))
                .any(|l| text_of(l) == "parallel (= sequential)"),
            "{title}"
        );
    }
    // Bounds are shaded, a band per series in its colour, each with its legend entry.
    for fig in ["fig-max-rel", "fig-lost-bits", "fig-nodes-panels"] {
        for p in panels(doc, fig) {
            let bands: Vec<String> = p.select(&sel(".legend li.band")).map(text_of).collect();
            assert_eq!(
                bands.len(),
                p.select(&sel(".legend li.series")).count(),
                "{fig}: {bands:?}"
            );
        }
    }
}

#[test]
fn the_answer_is_the_one_the_numbers_give() {
    let doc = &doc();
    let rows = results();
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(sweep_dir().join("summary.json")).unwrap())
            .unwrap();
    let kernels = summary["timings"]["kernels"].as_array().unwrap();
    let sentences: Vec<String> = doc
        .select(&sel("#answer-sentences > li > .choice"))
        .map(text_of)
        .collect();
    assert_eq!(sentences.len(), 2);
    for (op, sentence) in ["rootfix", "leaffix"].iter().zip(&sentences) {
        let worst = |a: &str| {
            rows.iter()
                .filter(|r| r["op"] == *op && r["algorithm"] == a)
                .map(|r| r["max_lost_bits"].parse::<f64>().unwrap())
                .fold(0.0f64, f64::max)
        };
        let per_vertex = |a: &str| {
            let k = kernels
                .iter()
                .find(|k| k["op"] == *op && k["algorithm"] == a)
                .unwrap();
            k["compute_s"].as_f64().unwrap() / k["vertices"].as_f64().unwrap()
        };
        let names = Algorithm::names();
        let fastest = names
            .iter()
            .min_by(|a, b| per_vertex(a).total_cmp(&per_vertex(b)))
            .unwrap();
        let meeting: Vec<&&str> = names.iter().filter(|a| worst(a) <= 1.0).collect();
        // vectorial-exact is correctly rounded: something always meets the target here.
        assert!(
            meeting.iter().any(|a| **a == "vectorial-exact"),
            "{meeting:?}"
        );
        let pick = meeting
            .iter()
            .min_by(|a, b| per_vertex(a).total_cmp(&per_vertex(b)))
            .unwrap();
        assert!(
            sentence.starts_with(&format!(
                "{op}: use {pick} — at most 1 bit lost at every node"
            )),
            "{sentence}"
        );
        if ***pick != **fastest {
            let ratio = per_vertex(pick) / per_vertex(fastest);
            let shown = if ratio < 10.0 {
                format!("{ratio:.1}×")
            } else {
                format!("{ratio:.0}×")
            };
            assert!(
                sentence.contains(&format!("{shown} the time of {fastest} as ")),
                "{sentence} (expected {shown} against {fastest})"
            );
        }
        assert!(algorithms_named(sentence).len() <= 3, "{sentence}");

        // The table: one column per algorithm, one line per topology × κ band, each cell the
        // largest loss of results.csv over that line's trees.
        let table = doc.select(&sel(&format!("#answer-{op}"))).next().unwrap();
        let heads: Vec<String> = table.select(&sel("thead th")).map(text_of).collect();
        assert_eq!(&heads[2..heads.len() - 1], names.as_slice());
        assert!(heads.last().unwrap().starts_with("cheapest within"));
        let lines: Vec<ElementRef> = table.select(&sel("tbody tr")).collect();
        assert_eq!(lines.len(), 9);
        let mut topology = String::new();
        for tr in lines {
            let cells: Vec<String> = tr.select(&sel("td")).map(text_of).collect();
            if !cells[0].is_empty() {
                topology = cells[0].clone();
            }
            let target: f64 = cells[1].parse().unwrap();
            for (a, cell) in names.iter().zip(&cells[2..]) {
                let m = rows
                    .iter()
                    .filter(|r| {
                        r["op"] == *op
                            && r["algorithm"] == *a
                            && r["topology"] == topology
                            && r["target_cond"].parse::<f64>().unwrap() == target
                    })
                    .map(|r| r["max_lost_bits"].parse::<f64>().unwrap())
                    .fold(0.0f64, f64::max);
                assert!(
                    cell.starts_with(&format!("{m:.1}")),
                    "{op} {topology} {target} {a}: {cell} against {m}"
                );
            }
        }
    }
}

#[test]
fn findings_name_at_most_three_algorithms_and_a_table_compares_all() {
    let doc = &doc();
    let findings: Vec<String> = doc.select(&sel("#findings-list li")).map(text_of).collect();
    assert!(findings.len() > 5);
    for f in &findings {
        for sentence in f.split(". ") {
            let named = algorithms_named(sentence);
            assert!(named.len() <= 3, "{named:?} in: {sentence}");
        }
    }
    let table: Vec<String> = doc
        .select(&sel("#comparison-table tbody tr td:first-child"))
        .map(text_of)
        .collect();
    assert_eq!(table, Algorithm::names());
}
