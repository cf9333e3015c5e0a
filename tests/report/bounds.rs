//! The bounds on the page: the table of `accuracy bounds-table` shown, a run without bounds
//! saying so, and a bounds table of another shape a one-line error.

use super::{fixture_dir, read_results, sweep_dir};
use crate::common::html::{parse, sel, text_of};
use crate::common::{accuracy, scratch};
use scraper::ElementRef;

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
    let drop: Vec<&str> = reports::BOUND_COLUMNS
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
