//! The bench report (bench.html): the seed paper's time, speed-up and per-tree figures from a
//! synthetic bench.csv, every number of bench.csv in its table, the copy / upload / download
//! baselines in GB/s, self-contained like the sweep's report; without a sequential baseline
//! the speed-up figure says so, and without bench.csv the report is a one-line error. With more
//! than three kernels every figure is a grid of panels with at most four series and four
//! legend entries each, on shared axes, and no sentence names more than three algorithms.

mod common;
use common::html::{assert_every_char_in_the_font, assert_self_contained, parse, sel, text_of};
use common::scratch;

use analysis::Algorithm;
use scraper::{ElementRef, Html};
use std::path::Path;

/// A synthetic bench.csv: star, chain and random-recursive at 2^10 and 2^12 vertices and one
/// tree file, rootfix and leaffix, sequential on the CPU, parallel and vectorial on a GPU,
/// and the copy / upload / download baselines.
fn synthetic_bench(with_sequential: bool) -> Vec<analysis::records::bench::BenchRecord> {
    let algorithms: &[&str] = if with_sequential {
        &["sequential", "parallel", "vectorial"]
    } else {
        &["parallel", "vectorial"]
    };
    bench_of(algorithms)
}

/// The rows of [`synthetic_bench`] for `algorithms` (sequential on the CPU, the others on a
/// GPU).
fn bench_of(algorithms: &[&str]) -> Vec<analysis::records::bench::BenchRecord> {
    use analysis::records::bench::BenchRecord;
    let gpu = "gpu: Test Adapter (Vulkan, driver 1)";
    let mut rows = Vec::new();
    let trees: [(&str, usize, u32); 7] = [
        ("star", 1024, 1),
        ("star", 4096, 1),
        ("chain", 1024, 1023),
        ("chain", 4096, 4095),
        ("random-recursive", 1024, 9),
        ("random-recursive", 4096, 12),
        ("road-net.tree", 3000, 57),
    ];
    for (ti, (topology, n, height)) in trees.iter().enumerate() {
        for (oi, op) in ["rootfix", "leaffix"].iter().enumerate() {
            for (ai, algorithm) in algorithms.iter().enumerate() {
                let cpu = *algorithm == "sequential";
                // Distinct, exactly representable-ish times per row.
                let ns = 0.37 + ti as f64 * 1.3 + oi as f64 * 0.71 + ai as f64 * 2.9;
                let compute_s = ns * *n as f64 * 1e-9;
                let transfer_s = if cpu { 0.0 } else { 1.7e-9 * *n as f64 + 2e-5 };
                rows.push(BenchRecord {
                    topology: topology.to_string(),
                    n: *n,
                    height: *height,
                    op: op.to_string(),
                    algorithm: algorithm.to_string(),
                    backend: if cpu { "cpu".into() } else { gpu.into() },
                    compute_s,
                    compute_min_s: compute_s * 0.9,
                    compute_max_s: compute_s * 1.3,
                    transfer_s,
                    transfer_min_s: transfer_s * 0.95,
                    transfer_max_s: transfer_s * 1.1,
                    bytes_moved: 12 * *n as u64,
                    reps: 5,
                });
            }
        }
    }
    for (algorithm, s, t) in [
        ("copy", 2.1e-4, 0.0),
        ("upload", 0.0, 9.3e-3),
        ("download", 0.0, 1.1e-2),
    ] {
        rows.push(BenchRecord {
            topology: String::new(),
            n: 1 << 26,
            height: 0,
            op: String::new(),
            algorithm: algorithm.into(),
            backend: gpu.into(),
            compute_s: s,
            compute_min_s: s * 0.98,
            compute_max_s: s * 1.02,
            transfer_s: t,
            transfer_min_s: t * 0.99,
            transfer_max_s: t * 1.01,
            bytes_moved: 512 << 20,
            reps: 3,
        });
    }
    rows
}

fn write_bench(dir: &Path, rows: &[analysis::records::bench::BenchRecord]) {
    let mut w = csv::Writer::from_path(dir.join("bench.csv")).unwrap();
    for r in rows {
        w.serialize(r).unwrap();
    }
    w.flush().unwrap();
}

/// `x` shown to 3 significant digits: at most half a unit of its third digit away.
fn three_digits_of(shown: &str, x: f64) -> bool {
    let v: f64 = shown.parse().unwrap();
    if x == 0.0 {
        return shown == "0";
    }
    let digits: String = shown.chars().filter(char::is_ascii_digit).collect();
    let significant = digits.trim_start_matches('0');
    // Three digits, or (from 1000 up) three followed by the zeros of an integer.
    let three = significant.len() == 3
        || (!shown.contains('.')
            && significant.len() > 3
            && significant[3..].bytes().all(|b| b == b'0'));
    let unit = 10f64.powi(v.abs().log10().floor() as i32 - 2);
    three && (v - x).abs() <= 0.5 * unit * (1.0 + 1e-12)
}

#[test]
fn bench_report_holds_the_papers_figures_and_the_numbers_of_bench_csv() {
    let dir = scratch("bench");
    let rows = synthetic_bench(true);
    write_bench(&dir, &rows);
    let written = reports::write_bench_report(&dir).unwrap();
    assert_eq!(written.path, dir.join("bench.html"));
    let (text, doc) = parse(&written.path);
    assert!(doc.errors.is_empty(), "HTML parse errors: {:?}", doc.errors);
    assert!(text.starts_with("<!DOCTYPE html>"));
    assert_self_contained(&text);

    // Fig. 7 on the star and the chain only, per op; Fig. 5 per op; Fig. 4 per topology and op
    // and one for the tree files.
    for id in [
        "#fig-time-star-rootfix svg",
        "#fig-time-star-leaffix svg",
        "#fig-time-chain-rootfix svg",
        "#fig-time-chain-leaffix svg",
        "#fig-speedup-rootfix svg",
        "#fig-speedup-leaffix svg",
        "#fig-per-tree-star-rootfix svg",
        "#fig-per-tree-random-recursive-leaffix svg",
        "#fig-per-tree-tree-files-rootfix svg",
        "#bench-table",
        "#bench-baselines",
    ] {
        assert!(doc.select(&sel(id)).next().is_some(), "missing {id}");
    }
    assert!(doc.select(&sel("[id^=fig-time-random]")).next().is_none());
    // Three kernels fit one chart: every figure is one SVG with its legend inside, no panels.
    let figures: Vec<ElementRef> = doc
        .select(&sel("#fig7 figure, #fig5 figure, #fig4 figure"))
        .collect();
    assert_eq!(figures.len(), 4 + 2 + 8);
    for f in &figures {
        assert_eq!(f.select(&sel("svg[role=img]")).count(), 1);
        assert!(f.value().classes().all(|c| c != "grid"));
    }
    assert_eq!(
        doc.select(&sel(".panel, ul.legend, #bench-kernels"))
            .count(),
        0
    );
    let legend = |id: &str| -> Vec<String> {
        doc.select(&sel(&format!("{id} svg text")))
            .map(text_of)
            .collect()
    };
    let fig7 = legend("#fig-time-chain-rootfix");
    for s in [
        "sequential compute",
        "parallel compute",
        "parallel + transfers",
        "vectorial + transfers",
    ] {
        assert!(
            fig7.iter().any(|t| t == s),
            "Fig. 7 legend lacks {s}: {fig7:?}"
        );
    }
    assert!(
        !fig7.iter().any(|t| t == "sequential + transfers"),
        "the CPU has no transfers"
    );
    let fig5 = legend("#fig-speedup-rootfix");
    assert!(
        fig5.iter().any(|t| t == "vectorial · road-net.tree"),
        "{fig5:?}"
    );
    assert!(
        !fig5.iter().any(|t| t.starts_with("sequential")),
        "{fig5:?}"
    );
    let fig4 = doc
        .select(&sel("#fig-per-tree-star-rootfix svg"))
        .next()
        .unwrap();
    let labels: Vec<String> = fig4.select(&sel("text")).map(text_of).collect();
    assert!(labels.contains(&"2¹⁰".to_string()) && labels.contains(&"2¹²".to_string()));
    // 2 trees × (sequential, parallel and vectorial compute, parallel and vectorial transfers)
    // bars, 5 legend swatches and the background.
    assert_eq!(fig4.select(&sel("rect")).count(), 2 * 5 + 5 + 1);

    // The table: every row, every number as in bench.csv.
    let table = doc.select(&sel("#bench-table")).next().unwrap();
    let keys: Vec<String> = table
        .select(&sel("thead th"))
        .map(|th| th.value().attr("title").unwrap().to_string())
        .collect();
    let trs: Vec<ElementRef> = table.select(&sel("tbody tr")).collect();
    assert_eq!(trs.len(), rows.len());
    for (tr, r) in trs.iter().zip(&rows) {
        let cells: Vec<String> = tr.select(&sel("td")).map(text_of).collect();
        assert_eq!(cells.len(), keys.len());
        for (k, c) in keys.iter().zip(&cells) {
            let exact = |x: f64| assert_eq!(c.parse::<f64>().unwrap(), x, "{k}: {c}");
            match k.as_str() {
                "topology" => assert_eq!(*c, r.topology),
                "op" => assert_eq!(*c, r.op),
                "algorithm" => assert_eq!(*c, r.algorithm),
                "backend" => assert_eq!(*c, r.backend),
                "n" => assert_eq!(*c, r.n.to_string()),
                "height" => assert_eq!(*c, r.height.to_string()),
                "reps" => assert_eq!(*c, r.reps.to_string()),
                "bytes_moved" => assert_eq!(*c, r.bytes_moved.to_string()),
                "compute_s" => exact(r.compute_s),
                "compute_min_s" => exact(r.compute_min_s),
                "compute_max_s" => exact(r.compute_max_s),
                "transfer_s" => exact(r.transfer_s),
                "transfer_min_s" => exact(r.transfer_min_s),
                "transfer_max_s" => exact(r.transfer_max_s),
                "compute_ns_per_vertex" => {
                    assert!(
                        three_digits_of(c, r.compute_ns_per_vertex()),
                        "{k}: {c} vs {r:?}"
                    )
                }
                "total_ns_per_vertex" => {
                    let x = (r.compute_s + r.transfer_s) * 1e9 / r.n as f64;
                    assert!(three_digits_of(c, x), "{k}: {c} vs {x}")
                }
                other => panic!("unexpected column {other}"),
            }
        }
    }

    // Baselines: bytes moved ÷ the row's time, in GB/s.
    let base: Vec<Vec<String>> = doc
        .select(&sel("#bench-baselines tbody tr"))
        .map(|tr| tr.select(&sel("td")).map(text_of).collect())
        .collect();
    let expected: Vec<&analysis::records::bench::BenchRecord> =
        rows.iter().filter(|r| r.op.is_empty()).collect();
    assert_eq!(base.len(), expected.len());
    for (cells, r) in base.iter().zip(expected) {
        assert!(cells[0].starts_with(&r.algorithm), "{cells:?}");
        assert_eq!(cells[2], r.bytes_moved.to_string());
        let t = r.compute_s + r.transfer_s;
        assert_eq!(cells[3].parse::<f64>().unwrap(), t);
        assert!(
            three_digits_of(&cells[4], r.bytes_moved as f64 / t / 1e9),
            "{cells:?}"
        );
        let best = r.compute_min_s + r.transfer_min_s;
        assert!(
            three_digits_of(&cells[5], r.bytes_moved as f64 / best / 1e9),
            "{cells:?}"
        );
    }

    assert!(assert_every_char_in_the_font(&doc) > 500);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_report_without_a_sequential_baseline_says_so() {
    let dir = scratch("bench-no-seq");
    write_bench(&dir, &synthetic_bench(false));
    let written = reports::write_bench_report(&dir).unwrap();
    let (_, doc) = parse(&written.path);
    let fig5 = doc.select(&sel("#fig5")).next().unwrap();
    assert!(fig5.select(&sel("svg")).next().is_none());
    assert!(
        text_of(fig5).contains("Not available in this run"),
        "{}",
        text_of(fig5)
    );
    assert!(
        doc.select(&sel("#fig-time-star-rootfix svg"))
            .next()
            .is_some()
    );

    // No bench.csv: a one-line error naming the file.
    let empty = scratch("bench-empty");
    let e = reports::write_bench_report(&empty).unwrap_err().to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("bench.csv") && e.contains("not found"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}

fn panels<'a>(doc: &'a Html, fig: &str) -> Vec<ElementRef<'a>> {
    doc.select(&sel(&format!("#{fig} .panel"))).collect()
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

#[test]
fn bench_report_with_every_gpu_kernel_is_a_grid_of_panels() {
    let gpu: Vec<&str> = Algorithm::ALL
        .iter()
        .filter(|a| a.has_gpu_kernel())
        .map(|a| a.name())
        .collect();
    assert!(gpu.len() > 3, "{gpu:?}");
    let mut algorithms = vec!["sequential"];
    algorithms.extend(&gpu);
    let dir = scratch("bench-panels");
    let rows = bench_of(&algorithms);
    write_bench(&dir, &rows);
    let written = reports::write_bench_report(&dir).unwrap();
    let (text, doc) = parse(&written.path);
    assert!(doc.errors.is_empty(), "HTML parse errors: {:?}", doc.errors);
    assert_self_contained(&text);

    // Fig. 7: a panel per GPU kernel, the sequential CPU order a shared reference line. Fig. 5:
    // a panel per GPU kernel in a row per two topologies (star and chain, random-recursive and
    // the tree file). Fig. 4: a panel per kernel, the CPU's included.
    let mut expected: Vec<(String, usize)> = Vec::new();
    for topo in ["star", "chain"] {
        for op in ["rootfix", "leaffix"] {
            expected.push((format!("fig-time-{topo}-{op}"), gpu.len()));
        }
    }
    for op in ["rootfix", "leaffix"] {
        expected.push((format!("fig-speedup-{op}"), 2 * gpu.len()));
        for set in ["star", "chain", "random-recursive", "tree-files"] {
            expected.push((format!("fig-per-tree-{set}-{op}"), algorithms.len()));
        }
    }
    assert_eq!(
        doc.select(&sel("#fig7 figure, #fig5 figure, #fig4 figure"))
            .count(),
        expected.len()
    );
    for (fig, count) in &expected {
        let f = doc.select(&sel(&format!("figure#{fig}"))).next().unwrap();
        assert!(f.value().classes().any(|c| c == "grid"), "{fig}");
        let ps = panels(&doc, fig);
        assert_eq!(ps.len(), *count, "{fig}: panels");
        let mut titles: Vec<String> = Vec::new();
        for p in &ps {
            let title = text_of(p.select(&sel("h4")).next().unwrap());
            let series = p.select(&sel(".legend li.series")).count();
            let entries = p.select(&sel(".legend li")).count();
            assert!((1..=4).contains(&series), "{fig} {title}: {series} series");
            assert!(entries <= 4, "{fig} {title}: {entries} legend entries");
            assert_eq!(p.select(&sel("svg[role=img]")).count(), 1, "{fig} {title}");
            // The legend is the panel's: no legend text inside the plot.
            let texts: Vec<String> = p.select(&sel("svg text")).map(text_of).collect();
            assert!(
                !texts
                    .iter()
                    .any(|t| t.contains("compute") || t.contains("transfers")),
                "{fig} {title}: {texts:?}"
            );
            titles.push(title);
        }
        // One panel per kernel (per row of Fig. 5), each named by its algorithm alone.
        let mut kernels = titles.clone();
        kernels.sort();
        kernels.dedup();
        let mut want: Vec<String> = if fig.starts_with("fig-per-tree") {
            &algorithms
        } else {
            &gpu
        }
        .iter()
        .map(|a| a.to_string())
        .collect();
        want.sort();
        assert_eq!(kernels, want, "{fig}");
        // Shared axes: the panels of a row carry the same ticks and descriptions.
        let ticks =
            |p: &ElementRef| -> Vec<String> { p.select(&sel("svg text")).map(text_of).collect() };
        for row in doc.select(&sel(&format!("#{fig} .panels"))) {
            let ps: Vec<ElementRef> = row.select(&sel(".panel")).collect();
            let first = ticks(&ps[0]);
            assert!(ps.iter().all(|p| ticks(p) == first), "{fig}: axes differ");
        }
        // Reference lines: one shared legend entry, never one per panel.
        let shared: Vec<String> = f
            .select(&sel("ul.legend.shared li.line"))
            .map(text_of)
            .collect();
        let want_shared = if fig.starts_with("fig-per-tree") {
            0
        } else {
            1
        };
        assert_eq!(shared.len(), want_shared, "{fig}: {shared:?}");
        assert_eq!(f.select(&sel(".panel li.line")).count(), 0, "{fig}");
    }
    // Fig. 5's rows are headed by the topologies they show.
    let headings: Vec<String> = doc
        .select(&sel("#fig-speedup-rootfix h4.panel-row"))
        .map(text_of)
        .collect();
    assert_eq!(
        headings,
        ["star and chain", "random-recursive and road-net.tree"]
    );

    // Sentences name at most three algorithms (the parameters table lists them all).
    for p in doc.select(&sel("p, figcaption, h2, h3")) {
        let t = text_of(p);
        assert!(algorithms_named(&t).len() <= 3, "{t}");
    }
    // The kernels side by side: compute ns / vertex on each topology's largest tree, per op.
    let table = doc.select(&sel("#bench-kernels-table")).next().unwrap();
    let heads: Vec<String> = table.select(&sel("thead th")).map(text_of).collect();
    assert_eq!(heads.len(), 1 + 2 * 4, "{heads:?}");
    assert_eq!(heads[1], "rootfix, star (n = 4096)");
    let names: Vec<String> = table
        .select(&sel("tbody td:first-child"))
        .map(text_of)
        .collect();
    assert_eq!(names, algorithms);
    for tr in table.select(&sel("tbody tr")) {
        let cells: Vec<String> = tr.select(&sel("td")).map(text_of).collect();
        for (head, cell) in heads[1..].iter().zip(&cells[1..]) {
            let (op, rest) = head.split_once(", ").unwrap();
            let (topology, n) = rest.split_once(" (n = ").unwrap();
            let n: usize = n.trim_end_matches(')').parse().unwrap();
            let r = rows
                .iter()
                .find(|r| {
                    r.algorithm == cells[0] && r.op == op && r.topology == topology && r.n == n
                })
                .unwrap();
            assert!(
                three_digits_of(cell, r.compute_ns_per_vertex()),
                "{head} {}: {cell}",
                cells[0]
            );
        }
    }
    // The numbers are all there still.
    assert_eq!(
        doc.select(&sel("#bench-table tbody tr")).count(),
        rows.len()
    );
    let _ = std::fs::remove_dir_all(&dir);

    // Four kernels are already too many for one chart.
    let dir = scratch("bench-four");
    write_bench(
        &dir,
        &bench_of(&["sequential", "parallel", "vectorial", "contraction"]),
    );
    let written = reports::write_bench_report(&dir).unwrap();
    let (_, doc) = parse(&written.path);
    assert_eq!(panels(&doc, "fig-time-star-rootfix").len(), 3);
    assert_eq!(panels(&doc, "fig-per-tree-star-rootfix").len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}
