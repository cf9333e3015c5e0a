//! The HTML report: a report from a small sweep parses as HTML, holds every figure and
//! table, shows exactly the numbers of results.csv, needs no network, no script and no installed
//! font; `accuracy report DIR` re-renders it from the files alone. The bench report's tests are
//! in report_bench.rs.

mod common;
use common::html::{assert_every_char_in_the_font, assert_self_contained, parse, sel, text_of};
use common::{accuracy, scratch};

use scraper::ElementRef;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One small sweep shared by the tests: 2 topologies × 2 targets × 2 trees × 150 vertices,
/// gensum weights.
fn sweep_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("sweep").join("s");
        let o = accuracy(&[
            "sweep",
            "--nodes",
            "150",
            "--trees",
            "2",
            "--cond",
            "1e2,1e6",
            "--topology",
            "chain,random-recursive",
            "--algos",
            "sequential,parallel,vectorial,vectorial-seqscan",
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

/// results.csv as (header, records).
fn read_results(dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(dir.join("results.csv")).unwrap();
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

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

#[test]
fn report_command_rerenders_from_files_alone() {
    let src = sweep_dir();
    let dir = scratch("rerender");
    for f in [
        "results.csv",
        "summary.json",
        "sweep.json",
        "nodes-sample.csv",
        "report.html",
    ] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let before = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let csv_before = std::fs::read(dir.join("results.csv")).unwrap();
    std::fs::remove_file(dir.join("report.html")).unwrap();
    let o = accuracy(&["report", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("report.html"));
    // Identical but for the directory name it prints.
    let after = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let (a, b) = (src.display().to_string(), dir.display().to_string());
    assert!(
        after.replace(&b, &a) == before,
        "re-rendered report differs"
    );
    assert_eq!(std::fs::read(dir.join("results.csv")).unwrap(), csv_before);

    // A directory of an older sweep (results.csv only) still renders, with notes.
    std::fs::remove_file(dir.join("nodes-sample.csv")).unwrap();
    std::fs::remove_file(dir.join("summary.json")).unwrap();
    let out = dir.join("old.html");
    let o = accuracy(&[
        "report",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, doc) = parse(&out);
    assert!(doc.select(&sel("#fig-max-rel svg")).next().is_some());
    assert!(text_of(doc.select(&sel("#fig-nodes")).next().unwrap()).contains("Not available"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn report_without_results_is_a_one_line_error() {
    let dir = scratch("empty");
    let o = accuracy(&["report", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(e.contains("results.csv") && e.contains("not found"), "{e}");
    assert!(!e.contains("panicked"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bounds_table_of_accuracy_bounds_table_is_shown() {
    let dir = scratch("bounds-table");
    let bt = dir.join("bt");
    let o = accuracy(&[
        "bounds-table",
        "--nodes",
        "100",
        "--trees",
        "1",
        "--cond",
        "1e3",
        "--topology",
        "chain,star",
        "--out",
        bt.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(bt.join("bounds-table.json")).unwrap())
            .unwrap();
    let out = dir.join("with-bounds-table.html");
    let o = accuracy(&[
        "report",
        sweep_dir().to_str().unwrap(),
        "--bounds-table",
        bt.join("bounds-table.json").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, doc) = parse(&out);
    assert!(doc.select(&sel("#bounds-table-missing")).next().is_none());
    let table = doc.select(&sel("table#bounds-table")).next().unwrap();
    let keys: Vec<String> = table
        .select(&sel("thead th"))
        .map(|th| th.value().attr("title").unwrap().to_string())
        .collect();
    let rows = json["rows"].as_array().unwrap();
    let trs: Vec<ElementRef> = table.select(&sel("tbody tr")).collect();
    assert_eq!(trs.len(), rows.len());
    for (tr, row) in trs.iter().zip(rows) {
        let cells: Vec<String> = tr.select(&sel("td")).map(text_of).collect();
        for (k, c) in keys.iter().zip(&cells) {
            match k.as_str() {
                "topology" | "op" | "algorithm" => assert_eq!(c, row[k].as_str().unwrap()),
                "max_lost_bits" | "max_bound_lost_bits" => {
                    assert_eq!(*c, format!("{:.2}", row[k].as_f64().unwrap()))
                }
                "trees" | "bound_violations" | "prob_violations" => {
                    assert_eq!(*c, row[k].as_u64().unwrap().to_string())
                }
                _ => {}
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_without_bounds_says_not_available() {
    // results.csv and nodes-sample.csv as a sweep without bounds wrote them (before the bound
    // columns and the later optional columns existed).
    let src = sweep_dir();
    let dir = scratch("no-bounds");
    let drop: Vec<&str> = analysis::report::BOUND_COLUMNS
        .into_iter()
        .chain(analysis::records::results::SOURCE_COLUMNS)
        .collect();
    let (header, rows) = read_results(src);
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !drop.contains(&header[i].as_str()))
        .collect();
    let mut w = csv::Writer::from_path(dir.join("results.csv")).unwrap();
    w.write_record(keep.iter().map(|&i| &header[i])).unwrap();
    for r in &rows {
        w.write_record(keep.iter().map(|&i| &r[i])).unwrap();
    }
    w.flush().unwrap();
    let mut r = csv::Reader::from_path(src.join("nodes-sample.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let bi = h.iter().position(|x| x == "bound_rel").unwrap();
    let mut w = csv::Writer::from_path(dir.join("nodes-sample.csv")).unwrap();
    w.write_record(&h).unwrap();
    for rec in r.records() {
        let mut rec: Vec<String> = rec.unwrap().iter().map(String::from).collect();
        rec[bi].clear();
        w.write_record(&rec).unwrap();
    }
    w.flush().unwrap();
    std::fs::copy(src.join("sweep.json"), dir.join("sweep.json")).unwrap();
    let o = accuracy(&["report", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, doc) = parse(&dir.join("report.html"));
    let tight = doc.select(&sel("#fig-tightness-hist")).next().unwrap();
    assert!(text_of(tight).contains("Not available in this run"));
    assert!(tight.select(&sel("svg")).next().is_none());
    assert_eq!(doc.select(&sel(".legend li.band")).count(), 0);
    for tr in doc.select(&sel("#topology-table tbody tr")) {
        let cells: Vec<String> = tr.select(&sel("td")).map(text_of).collect();
        assert!(cells[9..].iter().all(|c| c == "—"), "{cells:?}");
    }
    let findings: String = doc.select(&sel("#findings-list")).map(text_of).collect();
    assert!(findings.contains("bounds are not available"), "{findings}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn resumed_sweep_rebuilds_the_same_nodes_sample() {
    let dir = scratch("resume").join("s");
    let args = |d: &Path| -> Vec<String> {
        [
            "sweep",
            "--weights",
            "normal",
            "--nodes",
            "60",
            "--trees",
            "3",
            "--cond",
            "1e3",
            "--quiet",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([d.display().to_string()])
        .collect()
    };
    let run = |d: &Path| {
        let a = args(d);
        let o = accuracy(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(&dir);
    let sample = std::fs::read_to_string(dir.join("nodes-sample.csv")).unwrap();
    assert!(
        sample.starts_with("tree,algorithm,op,vertex,cond,rel_error,lost_bits,bound_rel,worst\n")
    );
    // Every tree × algorithm × op has exactly one worst node.
    let worst = sample.lines().filter(|l| l.ends_with(",1")).count();
    assert_eq!(worst, 3 * analysis::Algorithm::main_job().len() * 2);
    // Interrupt after the first tree: drop the other trees' rows, keep a stale sample.
    let results = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let kept: Vec<&str> = results
        .lines()
        .filter(|l| l.starts_with("tree,") || l.starts_with("0,"))
        .collect();
    std::fs::write(dir.join("results.csv"), kept.join("\n") + "\n").unwrap();
    run(&dir);
    assert!(std::fs::read_to_string(dir.join("nodes-sample.csv")).unwrap() == sample);
    assert!(std::fs::read_to_string(dir.join("results.csv")).unwrap() == results);
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

/// A sweep directory checked in with the tests: `accuracy sweep --nodes 40 --trees 1 --cond
/// 1e2,1e6 --topology chain,star --algos sequential,parallel,vectorial --seed 5` and
/// `accuracy bounds-table --nodes 40 --trees 1 --cond 1e3 --topology chain,star` of commit
/// 79b15a8 (results.csv in its 25-column form, without the GPU and source columns).
fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report-sweep")
}

/// The report of `dir` with its path replaced by `DIR` and the embedded fonts (checked by
/// `self_contained_no_script_no_network_embedded_font`) by `FONTS`.
fn golden_text(dir: &Path) -> String {
    let html = analysis::report::render_dir(dir, Default::default()).unwrap();
    let fonts = analysis::report::font::css_font_faces();
    assert!(html.contains(&fonts));
    html.replace(&fonts, "FONTS\n")
        .replace(&dir.display().to_string(), "DIR")
}

/// The report of a fixed sweep directory is byte for byte the checked-in page, which was
/// rendered by the code before the report was split into one file per section. After an
/// intended change of the page, regenerate it with
/// `TREEFIX_BLESS=1 cargo test --test report golden` and review the diff.
#[test]
fn golden_report_of_a_fixed_sweep_is_unchanged() {
    let dir = fixture_dir();
    let text = golden_text(&dir);
    let golden = dir.with_extension("html");
    if std::env::var_os("TREEFIX_BLESS").is_some() {
        std::fs::write(&golden, &text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap();
    if text != expected {
        let at = text
            .bytes()
            .zip(expected.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(text.len().min(expected.len()));
        let around = |s: &str| {
            let boundary = |mut i: usize| {
                while !s.is_char_boundary(i) {
                    i -= 1;
                }
                i
            };
            s[boundary(at.saturating_sub(150))..boundary((at + 150).min(s.len()))].to_string()
        };
        panic!(
            "the report differs from {} at byte {at} (lengths {} and {}):\nnow:      {:?}\nexpected: {:?}",
            golden.display(),
            text.len(),
            expected.len(),
            around(&text),
            around(&expected)
        );
    }
}

/// bounds-table.json is read as the type `accuracy bounds-table` writes: a file of another
/// shape is a one-line error naming the file and what is missing, not a page of guesses.
#[test]
fn a_bounds_table_of_another_shape_is_a_one_line_error() {
    let dir = scratch("bad-bounds-table");
    for f in ["results.csv", "sweep.json"] {
        std::fs::copy(fixture_dir().join(f), dir.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("bounds-table.json"),
        r#"{"rows": [{"topology": "chain"}]}"#,
    )
    .unwrap();
    let o = accuracy(&["report", dir.to_str().unwrap()]);
    // An input error, as every unreadable or malformed file is.
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(
        e.contains("bounds-table.json") && e.contains("missing field"),
        "{e}"
    );
    assert!(!e.contains("panicked"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The fixture's results.csv with the columns added after it: tree 0 read from a file, GPU
/// mismatches on one run, the largest absolute error of flagged nodes on another.
#[test]
fn gpu_mismatches_flagged_errors_and_tree_files_are_shown() {
    use analysis::records::results::ResultRow;
    let src = fixture_dir();
    let dir = scratch("new-columns");
    let mut rows: Vec<ResultRow> = csv::Reader::from_path(src.join("results.csv"))
        .unwrap()
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap();
    for (i, r) in rows.iter_mut().enumerate() {
        r.gpu_mismatches = (r.algorithm != "sequential").then_some(0);
        if r.tree == 0 {
            r.source = Some("road-net.tree".into());
            r.source_sha256 = Some("0f".repeat(32));
        }
        if i == 5 {
            r.flagged_nodes = 2;
            r.max_flagged_abs_error = Some(3.5e-6);
        }
    }
    let bad = rows
        .iter()
        .position(|r| r.algorithm == "vectorial" && r.tree == 1)
        .unwrap();
    rows[bad].gpu_mismatches = Some(7);
    let mut w = csv::Writer::from_path(dir.join("results.csv")).unwrap();
    for r in &rows {
        w.serialize(r).unwrap();
    }
    w.flush().unwrap();
    std::fs::copy(src.join("sweep.json"), dir.join("sweep.json")).unwrap();
    analysis::report::write_report(&dir, Default::default(), None).unwrap();
    let (_, doc) = parse(&dir.join("report.html"));
    assert!(doc.errors.is_empty(), "{:?}", doc.errors);

    let findings: Vec<String> = doc.select(&sel("#findings-list li")).map(text_of).collect();
    let gpu_runs = rows.iter().filter(|r| r.gpu_mismatches.is_some()).count();
    let expected = format!(
        "The GPU result differed from its CPU twin at 7 nodes in 1 of {gpu_runs} runs ({} {})",
        rows[bad].algorithm, rows[bad].op
    );
    assert!(
        findings.iter().any(|f| f.starts_with(&expected)),
        "{expected:?} not in {findings:#?}"
    );
    let flagged: usize = rows.iter().map(|r| r.flagged_nodes).sum();
    assert!(
        findings.iter().any(
            |f| f.starts_with(&format!("{flagged} nodes had an exact value of 0"))
                && f.ends_with("The largest absolute error among them was 3.5e-6.")
        ),
        "{findings:#?}"
    );

    // The per-topology table: file names instead of the family, and the two new columns.
    let table = doc.select(&sel("#topology-table")).next().unwrap();
    let th: Vec<String> = table.select(&sel("thead th")).map(text_of).collect();
    assert_eq!(th[0], "topology or file");
    let (gi, fi) = (th.len() - 2, th.len() - 1);
    assert_eq!(
        (th[gi].as_str(), th[fi].as_str()),
        ("GPU mism.", "max flagged |error|")
    );
    let mut seen_file = false;
    for tr in table.select(&sel("tbody tr")) {
        let cells: Vec<String> = tr.select(&sel("td")).map(text_of).collect();
        let mine: Vec<&ResultRow> = rows
            .iter()
            .filter(|r| r.tree_label() == cells[0] && r.op == cells[1] && r.algorithm == cells[2])
            .collect();
        assert!(!mine.is_empty(), "{cells:?}");
        seen_file |= cells[0] == "road-net.tree";
        let mism: Option<usize> = mine
            .iter()
            .filter_map(|r| r.gpu_mismatches)
            .reduce(|a, b| a + b);
        assert_eq!(cells[gi], mism.map_or("—".into(), |m| m.to_string()));
        let err = mine
            .iter()
            .filter_map(|r| r.max_flagged_abs_error)
            .reduce(f64::max);
        assert_eq!(cells[fi] == "—", err.is_none(), "{cells:?}");
    }
    assert!(seen_file);
    // The chain trees not read from a file keep their family name.
    assert!(
        table
            .select(&sel("tbody td"))
            .any(|td| text_of(td) == "chain")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `report --bench FILE`: the answer's times come from bench.csv's GPU kernels (here rootfix:
/// vectorial 2 ns per vertex, parallel 4 at the largest size) and are compared only with GPU
/// kernels: sequential has no kernel, and its CPU twin's 1 ns per vertex is shown as such, never
/// as the fastest. Leaffix has no vectorial row (the fixture's own summary.json predates
/// per-algorithm timings): the caption says so.
#[test]
fn report_takes_gpu_times_from_a_bench_file() {
    let dir = scratch("report-bench-times");
    let bench = dir.join("bench.csv");
    let mut csv = analysis::records::bench::BenchRecord::columns().join(",") + "\n";
    for (algo, op, ns) in [
        ("sequential", "rootfix", 1.0),
        ("parallel", "rootfix", 4.0),
        ("vectorial", "rootfix", 2.0),
        ("sequential", "leaffix", 1.0),
        ("parallel", "leaffix", 4.0),
    ] {
        let backend = if algo == "sequential" {
            "cpu"
        } else {
            "gpu: test"
        };
        for n in [1024usize, 1 << 20] {
            let s = ns * 1e-9 * n as f64 * if n == 1024 { 100.0 } else { 1.0 };
            csv += &format!("chain,{n},{n},{op},{algo},{backend},{s},{s},{s},0,0,0,0,5\n");
        }
    }
    std::fs::write(&bench, csv).unwrap();
    let out = dir.join("with-bench.html");
    let o = accuracy(&[
        "report",
        fixture_dir().to_str().unwrap(),
        "--bench",
        bench.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, doc) = parse(&out);
    let caption = |op: &str| {
        text_of(
            doc.select(&sel(&format!("#answer-{op} caption")))
                .next()
                .unwrap(),
        )
    };
    assert!(
        caption("rootfix").starts_with("rootfix; times from bench.csv ")
            && caption("rootfix").ends_with("ratios against the fastest GPU kernel"),
        "{}",
        caption("rootfix")
    );
    assert!(
        caption("leaffix").ends_with(
            "ratios against the fastest GPU kernel (bench.csv and this run have no leaffix time for vectorial)"
        ),
        "{}",
        caption("leaffix")
    );
    let foot_row = |op: &str, row: usize| -> Vec<String> {
        let tr = doc
            .select(&sel(&format!("#answer-{op} tfoot tr")))
            .nth(row)
            .unwrap();
        tr.select(&sel("td")).map(text_of).collect()
    };
    // Against the fastest GPU kernel: sequential (no kernel) is not compared.
    assert_eq!(foot_row("rootfix", 2), ["no kernel time", "2.0×", "1.0×"]);
    assert_eq!(
        foot_row("rootfix", 3),
        [
            "1.00 ns CPU twin",
            "4.00 ns GPU kernel",
            "2.00 ns GPU kernel"
        ]
    );
    let sentence = doc
        .select(&sel("#answer-sentences li"))
        .map(text_of)
        .next()
        .unwrap();
    let fastest_sequential = sentence.contains("the fastest, sequential")
        || (sentence.contains("the most accurate, sequential")
            && sentence.contains("also the fastest"));
    assert!(!fastest_sequential, "{sentence}");
    let _ = std::fs::remove_dir_all(&dir);
}
