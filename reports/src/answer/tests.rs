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
    assert!(
        a.sentence.starts_with(
            "rootfix: use b — the cheapest algorithm that lost at most 1 bit (relative error ≤ 2⁻²³, about one ulp; the default threshold, `--max-lost-bits B` sets another)"
        ),
        "{}",
        a.sentence
    );
    assert!(
        a.sentence.contains(": its worst was 1.0 bits; as CPU twins its values took 3.0× the time of the fastest, a (15.0 ns per vertex against 5.00 ns per vertex; which lost up to 10.0 bits)"),
        "{}",
        a.sentence
    );
    // The registry's correctly rounded algorithm was not run: named, with the flag.
    assert!(
        a.sentence.ends_with(
            "vectorial-exact — correctly rounded by construction (0 lost bits at every node), so within any threshold — was not run: add it with `--algos a,b,c,vectorial-exact`."
        ),
        "{}",
        a.sentence
    );
}

#[test]
fn a_threshold_picks_the_cheapest_algorithm_within_it() {
    let mut d = data(true);
    d.max_lost_bits = Some(12.0);
    let a = &answers(&d)[0];
    assert!(a.meets(0));
    assert!(
        a.sentence.starts_with(
            "rootfix: use a — the cheapest algorithm that lost at most 12 bits (relative error ≤ 2⁻¹²; --max-lost-bits 12) at every node"
        ),
        "{}",
        a.sentence
    );
    assert!(
        a.sentence
            .contains("it is also the fastest of the CPU twins (5.00 ns per vertex)"),
        "{}",
        a.sentence
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
    assert!(
        a.sentence
            .starts_with("rootfix: b and c are the algorithms that lost at most 1 bit")
            && a.sentence.contains("so which costs least is not known."),
        "{}",
        a.sentence
    );
    let mut d = data(true);
    d.rows.retain(|r| r.algorithm == "a");
    let a = &answers(&d)[0];
    assert!(
        a.sentence.starts_with(
            "rootfix: no algorithm lost at most 1 bit (relative error ≤ 2⁻²³, about one ulp; the default threshold, `--max-lost-bits B` sets another) at every node in every topology and κ band of this sweep (2 lines of the table); the most accurate, a, lost up to 10.0 bits; it is also the fastest of the CPU twins."
        ),
        "{}",
        a.sentence
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
    // c is the cheapest on the device: at the largest size its median over topologies is
    // 2 ns (1 and 2 and 3), b's 4, a's 8; the smaller trees do not count.
    let mut records = Vec::new();
    for (t, (a, b, c)) in [(8.0, 4.0, 1.0), (8.0, 4.0, 2.0), (8.0, 4.0, 3.0)]
        .into_iter()
        .enumerate()
    {
        let topology = format!("t{t}");
        for (algo, ns) in [("a", a), ("b", b), ("c", c)] {
            records.push(bench_row(algo, "rootfix", &topology, 1 << 20, ns));
            records.push(bench_row(algo, "rootfix", &topology, 1 << 10, 1000.0 * ns));
        }
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
    assert!(
        a.sentence
            .starts_with("rootfix: use c — the cheapest algorithm that lost at most 1 bit")
            && a.sentence
                .contains("it is also the fastest of the GPU kernels (gpu: test)"),
        "{}",
        a.sentence
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
        a.sentence
            .contains("it is also the fastest of the GPU kernels (gpu: x)"),
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
