use super::*;
use crate::data::ResultRow;
use analysis::records::bench::BenchRecord;
use serde_json::Value;

fn row(tree: usize, algo: &str, op: &str, topology: &str, bits: f64) -> ResultRow {
    crate::test_rows::result_row(tree, topology, 1e4, (algo, op), bits)
}

/// Three algorithms on two topologies: `a` is fast and loses 10 bits, `b` takes 3× as long
/// and loses at most 1, `c` takes 5× and is exact; per-vertex CPU-twin times in summary.json.
fn data(timed: bool) -> ReportData {
    let mut rows = Vec::new();
    for (t, topology) in ["chain", "star"].into_iter().enumerate() {
        rows.push(row(t, "a", "rootfix", topology, 10.0));
        rows.push(row(
            t,
            "b",
            "rootfix",
            topology,
            if t == 0 { 1.0 } else { 0.5 },
        ));
        rows.push(row(t, "c", "rootfix", topology, 0.0));
    }
    let kernels: Vec<Value> = [("a", 1.0), ("b", 3.0), ("c", 5.0)]
        .iter()
        .map(|(a, s)| {
            serde_json::json!({"algorithm": a, "op": "rootfix", "backend": "cpu",
                "compute_s": s * 1e-6, "trees": 2, "vertices": 200})
        })
        .collect();
    ReportData {
        dir: "d".into(),
        rows,
        header: vec![],
        raw: vec![],
        bound_columns: vec![],
        nodes: None,
        summary: timed.then(|| serde_json::json!({"timings": {"kernels": kernels}})),
        params: Some(serde_json::json!({"algos": ["a", "b", "c"], "ops": ["rootfix"]})),
        bounds_table: None,
        bench: None,
        max_lost_bits: None,
    }
}

#[test]
fn the_cheapest_algorithm_within_one_bit_and_its_cost() {
    let a = &answers(&data(true))[0];
    assert_eq!(a.lines.len(), 2);
    assert!(!a.meets(0) && a.meets(1) && a.meets(2));
    assert!((a.costs.relative(1).unwrap() - 3.0).abs() < 1e-12);
    assert!(!a.costs.gpu);
    assert_eq!(
        a.sentence,
        "rootfix: use b — at most 1 bit lost at every node (worst 1.0 bits), 3.0× the time of a as CPU twins."
    );
    assert!(a.sentence.chars().count() <= 160);
    let d = a.details.join("\n");
    assert!(
        d.contains("1 bit lost: relative error ≤ 2⁻²³, about one ulp (the default; `--max-lost-bits B` sets another number of bits B)."),
        "{d}"
    );
    assert!(
        d.contains("times as CPU twins: b 15.0 ns per vertex; the fastest, a, 5.00 ns per vertex (lost up to 10.0 bits)"),
        "{d}"
    );
    // The registry's correctly rounded algorithm was not run: named, with the flag.
    assert!(
        d.ends_with(
            "vectorial-exact — correctly rounded by construction (0 lost bits at every node) — was not run: add it with `--algos a,b,c,vectorial-exact`."
        ),
        "{d}"
    );
    // Only CPU twins were timed: the bench command prices it on the sweep's own trees.
    let hint = bench_hint(&data(true), std::slice::from_ref(a)).unwrap();
    assert_eq!(
        hint,
        "GPU price on these trees: `accuracy bench --algos vectorial --topology chain,star --nodes 100 --ops rootfix --out d-bench` then `accuracy report d --bench d-bench/bench.csv`."
    );
}

#[test]
fn a_threshold_picks_the_cheapest_algorithm_within_it() {
    let mut d = data(true);
    d.max_lost_bits = Some(12.0);
    let a = &answers(&d)[0];
    assert!(a.meets(0));
    assert_eq!(
        a.sentence,
        "rootfix: use a — at most 12 bits lost at every node (worst 10.0 bits), the fastest of the CPU twins."
    );
    assert!(
        a.details
            .contains(&"12 bits lost: relative error ≤ 2⁻¹² (`--max-lost-bits 12`).".to_string()),
        "{:?}",
        a.details
    );
    d.max_lost_bits = Some(0.5);
    let a = &answers(&d)[0];
    assert!(!a.meets(1) && a.meets(2));
    assert!(a.sentence.starts_with("rootfix: use c"), "{}", a.sentence);
}

#[test]
fn without_timings_or_without_a_winner_the_sentence_says_so() {
    let a = &answers(&data(false))[0];
    assert!(a.costs.costs.iter().all(Option::is_none));
    assert_eq!(
        a.sentence,
        "rootfix: b and c kept at most 1 bit lost at every node; which costs least is not known (no comparable times)."
    );
    let mut d = data(true);
    d.rows.retain(|r| r.algorithm == "a");
    let a = &answers(&d)[0];
    assert_eq!(
        a.sentence,
        "rootfix: none kept at most 1 bit lost at every node; the most accurate, a, lost up to 10.0 bits, the fastest of the CPU twins."
    );
}

/// A bench.csv row: `algorithm` on `op` took `ns` per vertex on a tree of `n` vertices.
fn bench_row(algorithm: &str, op: &str, topology: &str, n: usize, ns: f64) -> BenchRecord {
    BenchRecord {
        topology: topology.into(),
        n,
        height: 1,
        op: op.into(),
        algorithm: algorithm.into(),
        backend: "gpu: test".into(),
        compute_s: ns * 1e-9 * n as f64,
        compute_min_s: 0.0,
        compute_max_s: 0.0,
        transfer_s: 0.0,
        transfer_min_s: 0.0,
        transfer_max_s: 0.0,
        bytes_moved: 0,
        reps: 1,
    }
}

#[test]
fn bench_gpu_times_replace_the_runs_cpu_twins() {
    // c is the cheapest on the device: on the sweep's trees (chain and star at n = 100) its
    // median is 2 ns (the lower of 2 and 3), b's 4, a's 8; other sizes and topologies do not
    // count.
    let mut records = Vec::new();
    for (topology, (a, b, c)) in [("chain", (8.0, 4.0, 2.0)), ("star", (8.0, 4.0, 3.0))] {
        for (algo, ns) in [("a", a), ("b", b), ("c", c)] {
            records.push(bench_row(algo, "rootfix", topology, 100, ns));
            records.push(bench_row(algo, "rootfix", topology, 1 << 10, 1000.0 - ns));
            records.push(bench_row(algo, "leaffix", topology, 100, 1000.0 - ns));
        }
    }
    for (algo, ns) in [("a", 0.1), ("b", 500.0), ("c", 900.0)] {
        records.push(bench_row(algo, "rootfix", "kary:4", 100, ns));
    }
    let mut d = data(true);
    d.bench = Some(("runs/bench.csv".into(), records.clone()));
    let a = &answers(&d)[0];
    assert!(
        a.costs.source.starts_with("times from bench.csv "),
        "{}",
        a.costs.source
    );
    assert!(a.costs.gpu);
    let per_vertex: Vec<f64> = a
        .costs
        .costs
        .iter()
        .map(|c| c.as_ref().unwrap().time.per_vertex_s)
        .collect();
    assert_eq!(per_vertex, [8e-9, 4e-9, 2e-9]);
    assert!(
        a.costs
            .costs
            .iter()
            .all(|c| c.as_ref().unwrap().time.place == Place::GpuKernel("gpu: test".into()))
    );
    assert_eq!(
        a.sentence,
        "rootfix: use c — at most 1 bit lost at every node (worst 0.0 bits), the fastest of the GPU kernels."
    );
    assert!(
        a.details.iter().any(|d| d.starts_with("times as GPU kernels (gpu: test): c 2.00 ns per vertex, the fastest; times from bench.csv")),
        "{:?}",
        a.details
    );
    // Without c's kernel time, c keeps its CPU twin's time, which is not compared with the
    // kernels: b, the cheapest kernel within the threshold, is the answer, and c is not
    // called the fastest.
    records.retain(|r| r.algorithm != "c");
    d.bench = Some(("bench.csv".into(), records));
    let a = &answers(&d)[0];
    assert!(a.costs.gpu);
    assert_eq!(
        a.costs.costs[2].as_ref().unwrap().time.place,
        Place::CpuTwin
    );
    assert_eq!(a.costs.relative(2), None);
    assert_eq!(
        (a.costs.relative(0), a.costs.relative(1)),
        (Some(2.0), Some(1.0))
    );
    assert_eq!(a.costs.fastest(), Some(1));
    assert!(a.sentence.starts_with("rootfix: use b"), "{}", a.sentence);
    assert_eq!(
        a.costs.bench_lacks,
        ["no rootfix time of c on the sweep's trees"]
    );
}

#[test]
fn a_bench_of_other_trees_prices_nothing_and_says_what_it_lacks() {
    // Parallel-like `a` is cheap on a star, the bench timed only stars, the sweep ran chains:
    // the star's times are not the chain's price.
    let mut d = data(true);
    d.rows.retain(|r| r.topology == "chain");
    d.bench = Some((
        "bench.csv".into(),
        ["a", "b", "c"]
            .iter()
            .map(|x| bench_row(x, "rootfix", "star", 100, 1.0))
            .collect(),
    ));
    let a = &answers(&d)[0];
    assert!(!a.costs.gpu, "{:?}", a.costs);
    assert_eq!(
        a.costs.bench_lacks,
        ["no rootfix time on the sweep's chain at n=100"]
    );
    assert!(
        a.costs
            .source
            .ends_with("; bench.csv has no rootfix time on the sweep's chain at n=100"),
        "{}",
        a.costs.source
    );
    let hint = bench_hint(&d, std::slice::from_ref(a)).unwrap();
    assert!(
        hint.contains("--topology chain --nodes 100 --ops rootfix"),
        "{hint}"
    );
    // A bench of the chain prices it.
    let mut records = d.bench.take().unwrap().1;
    records.extend(
        [("a", 1.0), ("b", 6.0), ("c", 9.0)]
            .iter()
            .map(|(x, ns)| bench_row(x, "rootfix", "chain", 100, *ns)),
    );
    d.bench = Some(("bench.csv".into(), records));
    let a = &answers(&d)[0];
    assert!(a.costs.gpu && a.costs.bench_lacks.is_empty());
    assert_eq!(
        a.sentence,
        "rootfix: use b — at most 1 bit lost at every node (worst 1.0 bits), 6.0× the time of a as GPU kernels."
    );
    assert_eq!(bench_hint(&d, std::slice::from_ref(a)), None);
}

#[test]
fn the_choice_per_kappa_band_and_per_topology() {
    // a loses 0.5 bits up to κ 1e4 and 30 above; b 0.8 everywhere on chains but 3 on stars
    // at 1e8; c is exact. Times: a 1, b 3, c 5.
    let mut rows = Vec::new();
    for (t, topology) in ["chain", "star"].into_iter().enumerate() {
        for (k, cond) in [1e2, 1e4, 1e8].into_iter().enumerate() {
            let tree = 3 * t + k;
            let r = |algo: &str, bits: f64| {
                crate::test_rows::result_row(tree, topology, cond, (algo, "rootfix"), bits)
            };
            rows.push(r("a", if cond <= 1e4 { 0.5 } else { 30.0 }));
            rows.push(r("b", if t == 1 && cond > 1e4 { 3.0 } else { 0.8 }));
            rows.push(r("c", 0.0));
        }
    }
    let mut d = data(true);
    d.rows = rows;
    let a = &answers(&d)[0];
    assert_eq!(a.sentence.split(" — ").next(), Some("rootfix: use c"));
    let within: Vec<(f64, f64, &str)> = a
        .bands
        .iter()
        .map(|b| (b.from, b.to, a.algorithms[b.pick.unwrap()].as_str()))
        .collect();
    assert_eq!(within, [(1e2, 1e4, "a"), (1e8, 1e8, "c")]);
    assert_eq!(
        a.details[0],
        "cheapest within 1 bit per κ band: κ ≤ 1e4: a (0.5 bits, 1.0×); κ 1e8: c (0.0 bits, 5.0×)"
    );
    // On chains alone, b is within the bit at 1e8: the chain's advice differs and is given.
    assert_eq!(a.by_topology.len(), 1);
    assert_eq!(
        a.details[1],
        "on chain, cheapest within 1 bit: κ ≤ 1e4: a (0.5 bits, 1.0×); κ 1e8: b (0.8 bits, 3.0×)"
    );
}

#[test]
fn a_cpu_only_algorithm_is_never_the_fastest_of_a_gpu_comparison() {
    // `a` ran as a CPU twin (no kernel) and is the quickest in seconds; b and c ran as
    // kernels on a GPU.
    let mut d = data(true);
    let kernels: Vec<Value> = [
        ("a", 0.5, "cpu"),
        ("b", 3.0, "gpu: x"),
        ("c", 5.0, "gpu: x"),
    ]
    .iter()
    .map(|(a, s, backend)| {
        serde_json::json!({"algorithm": a, "op": "rootfix", "backend": backend,
                "compute_s": s * 1e-6, "trees": 2, "vertices": 200})
    })
    .collect();
    d.summary = Some(serde_json::json!({"timings": {"kernels": kernels}}));
    let a = &answers(&d)[0];
    assert!(a.costs.gpu);
    assert_eq!(a.costs.fastest(), Some(1));
    assert_eq!(a.costs.relative(0), None);
    assert!(
        a.sentence.ends_with("the fastest of the GPU kernels."),
        "{}",
        a.sentence
    );
}

#[test]
fn few_names_at_most_three() {
    let n = |k: usize| (0..k).map(|i| format!("x{i}")).collect::<Vec<_>>();
    assert_eq!(few(&n(3)), "x0, x1 and x2");
    assert_eq!(few(&n(8)), "x0, x1 and 6 others");
}
