//! The sweep directory checked in with the tests (tests/fixtures/report-sweep): its page byte
//! for byte, the columns added after it (GPU mismatches, flagged errors, tree files), and the
//! GPU times of a bench file.

use super::fixture_dir;
use crate::common::html::{parse, sel, text_of};
use crate::common::{accuracy, scratch};
use std::path::Path;

/// The report of `dir` with its path replaced by `DIR` and the embedded fonts (checked by
/// `self_contained_no_script_no_network_embedded_font`) by `FONTS`.
fn golden_text(dir: &Path) -> String {
    let html = reports::render_dir(dir, Default::default()).unwrap();
    let fonts = reports::font::css_font_faces();
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
    reports::write_report(&dir, Default::default(), None).unwrap();
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

/// `report --bench FILE`: the answer's times come from bench.csv's GPU kernels on the sweep's
/// own trees (here rootfix: vectorial 2 ns per vertex, parallel 4 on chains and stars of 40
/// vertices; a bigger size, 100 times slower, does not count) and are compared only with GPU
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
        for (topology, n) in [("chain", 40usize), ("star", 40), ("chain", 1024)] {
            let s = ns * 1e-9 * n as f64 * if n == 1024 { 100.0 } else { 1.0 };
            csv += &format!("{topology},{n},{n},{op},{algo},{backend},{s},{s},{s},0,0,0,0,5\n");
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
            && caption("rootfix").ends_with("ratios against the fastest GPU kernel")
            && caption("rootfix").contains("on the sweep's own topologies and sizes"),
        "{}",
        caption("rootfix")
    );
    assert!(
        caption("leaffix").ends_with(
            "ratios against the fastest GPU kernel (bench.csv and this run have no leaffix time for vectorial); bench.csv has no leaffix time of vectorial on the sweep's trees"
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
        .select(&sel("#answer-sentences > li"))
        .map(text_of)
        .next()
        .unwrap();
    let fastest_sequential = sentence.contains("the fastest, sequential")
        || (sentence.contains("the most accurate, sequential")
            && sentence.contains("also the fastest"));
    assert!(!fastest_sequential, "{sentence}");
    let _ = std::fs::remove_dir_all(&dir);
}
