//! `accuracy report DIR`: the page re-rendered from the sweep's files alone, a one-line error
//! without results, and a resumed sweep's files equal to an uninterrupted one's.

use super::sweep_dir;
use crate::common::html::{parse, sel, text_of};
use crate::common::{accuracy, scratch};
use std::path::Path;

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
