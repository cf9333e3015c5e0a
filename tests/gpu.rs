//! GPU kernels against their CPU twins, bit for bit (docs/design.md §10): every topology, both ops, both
//! algorithms, sizes from 1 to past two levels of block sums.
//!
//! Without an adapter every test is reported as ignored, with the reason, in cargo's summary;
//! with TREEFIX_REQUIRE_GPU=1 (CI) that is a failure. A custom harness (libtest-mimic): the
//! built-in one cannot decide at run time to ignore.

use analysis::algorithms::Stage;
use analysis::{Algorithm, Op};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::collections::BTreeSet;
use std::sync::OnceLock;
use treefix_accuracy::experiment::Backend;
use treefix_accuracy::gpu::{Gpu, GpuOptions};

/// A test's body, given the shared adapter.
type GpuTest = fn(&Gpu);

/// Every test of this file: its name and its body, which gets the shared adapter. A test
/// function not listed here does not run (the compiler warns that it is never used).
const TESTS: &[(&str, GpuTest)] = &[
    (
        "every_topology_small_and_multi_tile_sizes",
        every_topology_small_and_multi_tile_sizes,
    ),
    ("two_levels_of_block_sums", two_levels_of_block_sums),
    ("stages_run_are_the_recipe", stages_run_are_the_recipe),
    ("deep_trees_parallel", deep_trees_parallel),
    ("signed_zeros", signed_zeros),
    ("child_orders_and_cache", child_orders_and_cache),
    ("wide_frontiers", wide_frontiers),
    ("folded_dispatches_and_limits", folded_dispatches_and_limits),
    ("gather_tiles_and_chunks", gather_tiles_and_chunks),
    (
        "every_parallel_path_on_small_trees",
        every_parallel_path_on_small_trees,
    ),
    (
        "forests_equal_one_tree_at_a_time",
        forests_equal_one_tree_at_a_time,
    ),
    ("cli_gpu_dump_equals_cpu_dump", cli_gpu_dump_equals_cpu_dump),
    (
        "cli_gpu_sweep_equals_cpu_sweep",
        cli_gpu_sweep_equals_cpu_sweep,
    ),
    (
        "cli_bench_writes_csv_and_html",
        cli_bench_writes_csv_and_html,
    ),
    (
        "cli_bench_resumes_after_a_kill",
        cli_bench_resumes_after_a_kill,
    ),
    ("subnormal_weights", subnormal_weights),
    (
        "forest_of_four_chains_matches_twin",
        forest_of_four_chains_matches_twin,
    ),
    (
        "chained_scan_respects_the_loop_budget",
        chained_scan_respects_the_loop_budget,
    ),
    ("exact_scan_at_every_scale", exact_scan_at_every_scale),
    ("exact_reference_on_the_gpu", exact_reference_on_the_gpu),
    (
        "exact_treefix_equals_the_kernel",
        exact_treefix_equals_the_kernel,
    ),
];

fn main() {
    let args = Arguments::from_args();
    let trials = TESTS
        .iter()
        .map(|&(name, test)| Trial::ignorable_test(name, move || with_gpu(test)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

/// Runs `test` on the shared adapter; without one, ignored with the reason, or a failure under
/// TREEFIX_REQUIRE_GPU=1. A panic in `test` is the harness's failure.
fn with_gpu(test: fn(&Gpu)) -> Result<Completion, Failed> {
    match gpu() {
        Ok(gpu) => {
            test(gpu);
            Ok(Completion::Completed)
        }
        Err(reason) if std::env::var("TREEFIX_REQUIRE_GPU").as_deref() == Ok("1") => {
            Err(format!("TREEFIX_REQUIRE_GPU=1, but {reason}").into())
        }
        Err(reason) => Ok(Completion::ignored_with(reason)),
    }
}

/// The adapter every test shares, or why there is none.
fn gpu() -> Result<&'static Gpu, &'static str> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    GPU.get_or_init(|| Gpu::new().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(String::as_str)
}

fn tree(topology: Topology, n: usize, seed: u64) -> Tree {
    topology
        .generate(n, ChildOrder::Natural, &mut generators::rng(seed))
        .unwrap()
}

/// Weights of `model`; gensum (which needs n ≥ 2) targets κ = 1e8, and a single vertex gets a
/// normal weight instead.
fn weights(model: WeightModel, n: usize, seed: u64) -> Vec<f32> {
    let model = if model == WeightModel::Gensum && n < 2 {
        WeightModel::Normal
    } else {
        model
    };
    model
        .weights(n, 1e8, &mut generators::rng(seed ^ 0x5eed))
        .unwrap()
}

/// GPU == CPU twin for `algos` × both ops, and parallel GPU == sequential.
fn check_algos(gpu: &Gpu, tree: &Tree, w: &[f32], algos: &[Algorithm], what: &str) {
    for &algo in algos {
        for op in Op::ALL {
            let got = gpu
                .compute_timed(tree, w, algo, op)
                .unwrap_or_else(|e| panic!("{what} {algo} {op}: {e}"))
                .0;
            let twin = algo.twin(tree, w, op);
            assert_bits(&got, &twin, &format!("{what} {algo} {op} vs CPU twin"));
            if algo == Algorithm::PARALLEL {
                let seq = Algorithm::SEQUENTIAL.twin(tree, w, op);
                assert_bits(&got, &seq, &format!("{what} {algo} {op} vs sequential"));
            }
        }
    }
}

/// Every algorithm with a GPU kernel.
fn gpu_algos() -> Vec<Algorithm> {
    Algorithm::ALL
        .into_iter()
        .filter(|a| a.has_gpu_kernel())
        .collect()
}

fn check(gpu: &Gpu, tree: &Tree, w: &[f32], what: &str) {
    check_algos(gpu, tree, w, &gpu_algos(), what);
}

fn assert_bits(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(v) = (0..got.len()).find(|&v| got[v].to_bits() != want[v].to_bits()) {
        let bad = (0..got.len())
            .filter(|&v| got[v].to_bits() != want[v].to_bits())
            .count();
        panic!(
            "{what}: {bad} of {} vertices differ; first at vertex {v}: GPU {:e} ({:#010x}) vs {:e} ({:#010x})",
            got.len(),
            got[v],
            got[v].to_bits(),
            want[v],
            want[v].to_bits()
        );
    }
}

const MODELS: [WeightModel; 4] = [
    WeightModel::Gensum,
    WeightModel::Normal,
    WeightModel::Uniform,
    WeightModel::Integers,
];

/// Sizes 1, 2, 3, non-powers of two, one tile (2n ≤ 1024), several tiles, one block-sum level.
fn every_topology_small_and_multi_tile_sizes(gpu: &Gpu) {
    for topology in Topology::all_defaults() {
        for n in [1, 2, 3, 7, 100, 511, 512, 513, 1000, 2049, 5000] {
            for (i, model) in MODELS.into_iter().enumerate() {
                let seed = n as u64 * 31 + i as u64;
                let t = tree(topology, n, seed);
                let w = weights(model, n, seed);
                check(gpu, &t, &w, &format!("{topology} n={n} {model}"));
            }
        }
    }
}

/// 2^20 + 7 vertices: E has 2^21 + 14 elements, so the scan has two levels of block sums. The
/// parallel kernel runs on the shallow ones (deep trees dispatch once per level).
fn two_levels_of_block_sums(gpu: &Gpu) {
    let n = (1 << 20) + 7;
    assert_eq!(analysis::scan_plan::level_sizes(2 * n).len(), 3);
    for (i, topology) in Topology::all_defaults().into_iter().enumerate() {
        let t = tree(topology, n, 77 + i as u64);
        let w = weights(MODELS[i % MODELS.len()], n, 77 + i as u64);
        let algos: Vec<Algorithm> = gpu_algos()
            .into_iter()
            .filter(|a| a.is_vectorial() || t.height() <= 4096)
            .collect();
        check_algos(gpu, &t, &w, &algos, &format!("{topology} n={n}"));
    }
}

/// The stages each kernel dispatches are its recipe in the registry: none outside it, and
/// every one of it on some tree (the uniform add needs two levels of block sums: 2n > 2^20).
/// On a device of its own: the record of stages run is the device's, and the other tests
/// share the common one from other threads.
fn stages_run_are_the_recipe(_: &Gpu) {
    let gpu = &Gpu::new().unwrap();
    let small = tree(Topology::RandomRecursive, 5000, 3);
    let big_n = (1 << 19) + 7;
    let big = tree(Topology::RandomRecursive, big_n, 4);
    for algo in gpu_algos() {
        let recipe: BTreeSet<Stage> = algo.gpu().unwrap().stages.iter().copied().collect();
        let mut seen = BTreeSet::new();
        gpu.stages_run();
        for (t, n) in [(&small, 5000), (&big, big_n)] {
            if n == big_n && !algo.is_vectorial() {
                continue;
            }
            let w = weights(WeightModel::Normal, n, 5);
            for op in Op::ALL {
                gpu.compute(t, &w, algo, op).unwrap();
                let run: BTreeSet<Stage> = gpu.stages_run().into_iter().collect();
                assert!(
                    run.is_subset(&recipe),
                    "{algo} {op} n={n} ran {run:?}, its recipe is {recipe:?}"
                );
                seen.extend(run);
            }
        }
        assert_eq!(seen, recipe, "{algo}: stages run vs its recipe");
    }
}

/// Deep trees for the level-synchronous kernel: thousands of levels, several submissions.
fn deep_trees_parallel(gpu: &Gpu) {
    for topology in [
        Topology::Chain,
        Topology::CaterpillarLegs,
        Topology::Broom { handle: 0.9 },
    ] {
        let n = 40_000;
        let t = tree(topology, n, 5);
        let w = weights(WeightModel::Gensum, n, 5);
        check_algos(
            gpu,
            &t,
            &w,
            &[Algorithm::PARALLEL],
            &format!("{topology} n={n}"),
        );
    }
}

/// Signed zeros: w = ±0 makes E hold −0 (rootfix −w of +0) and sums of zeros of both signs.
fn signed_zeros(gpu: &Gpu) {
    for topology in Topology::all_defaults() {
        for n in [1, 2, 3, 600, 3000] {
            let t = tree(topology, n, 9);
            let patterns: [&dyn Fn(usize) -> f32; 3] =
                [&|_| 0.0, &|_| -0.0, &|v| [0.0, -0.0, 1.0, -1.0, 0.5][v % 5]];
            for (i, f) in patterns.iter().enumerate() {
                let w: Vec<f32> = (0..n).map(f).collect();
                check(gpu, &t, &w, &format!("{topology} n={n} zeros#{i}"));
            }
        }
    }
}

/// Child orders change the Euler tour and the BFS order; the cache must not confuse trees with
/// the same parents and another order, nor evicted trees.
fn child_orders_and_cache(gpu: &Gpu) {
    let base = tree(Topology::RandomRecursive, 3000, 11);
    let w = weights(WeightModel::Normal, 3000, 11);
    for _ in 0..2 {
        for order in ChildOrder::ALL {
            let t = base.with_order(order);
            check(gpu, &t, &w, &format!("random-recursive {order}"));
        }
    }
}

/// Wide frontiers: the degree prefix sum of the BFS needs two scan levels (> 1024 vertices per
/// level), and a star's 2^18 children are expanded one thread each.
fn wide_frontiers(gpu: &Gpu) {
    for (topology, n) in [
        (Topology::Kary { k: 2 }, 300_000),
        (Topology::Star, 1 << 18),
        (
            Topology::Profile {
                depth: 5,
                branching: 8.0,
            },
            200_000,
        ),
    ] {
        let t = tree(topology, n, 3);
        let w = weights(WeightModel::Uniform, n, 3);
        check(gpu, &t, &w, &format!("{topology} n={n}"));
    }
}

/// A device that looks smaller: dispatches fold into 2D above 3 workgroups per dimension (the
/// real limit, 65 535, needs trees of 2^24 vertices), and a tree too big for the binding limit
/// is a clear error.
fn folded_dispatches_and_limits(_: &Gpu) {
    let small = Gpu::with_options(GpuOptions {
        max_workgroups_per_dimension: Some(3),
        max_storage_buffer_binding_size: Some(1 << 16),
        ..Default::default()
    })
    .unwrap();
    for topology in Topology::all_defaults() {
        for n in [1, 5, 3000, 8000] {
            let t = tree(topology, n, 21);
            let w = weights(WeightModel::Normal, n, 21);
            // Float-float E takes 8 bytes per position (2n·8 > 2^16 bytes from n = 4097), the
            // contraction's slots up to 4n + 1 words.
            let wide = |a: &Algorithm| a.gpu().is_some_and(|k| (k.words_per_vertex)(&w) > 2);
            let fits = |a: &Algorithm| !wide(a) || 16 * n <= 1 << 16;
            let algos: Vec<Algorithm> = gpu_algos().into_iter().filter(fits).collect();
            check_algos(&small, &t, &w, &algos, &format!("folded {topology} n={n}"));
        }
    }
    let t = tree(Topology::Chain, 8000, 21);
    let w = weights(WeightModel::Normal, 8000, 21);
    let e = small
        .compute(&t, &w, Algorithm::VECTORIAL_COMPENSATED, Op::Rootfix)
        .unwrap_err();
    assert!(e.to_string().contains("128000 bytes"), "{e}");
    let n = 10_000;
    let t = tree(Topology::Chain, n, 1);
    let w = weights(WeightModel::Normal, n, 1);
    let e = small
        .compute(&t, &w, Algorithm::VECTORIAL, Op::Rootfix)
        .unwrap_err();
    // A usage error (exit code 2): a smaller tree, or the CPU twins.
    assert!(matches!(e, treefix_accuracy::Error::GpuLimit(_)), "{e}");
    assert_eq!(e.exit_code(), 2);
    let e = e.to_string();
    assert!(
        e.contains("80000 bytes") && e.contains("max_storage_buffer_binding_size of 65536"),
        "{e}"
    );
}

/// High-degree vertices gathered by a workgroup (children staged through workgroup memory a
/// tile at a time): tile boundaries, and vertices with more children than one dispatch takes
/// (the running sum goes on in the next dispatch, in child order).
fn gather_tiles_and_chunks(gpu: &Gpu) {
    let chunked = Gpu::with_options(GpuOptions {
        gather_chunk: Some(3000),
        ..Default::default()
    })
    .unwrap();
    for n in [257, 1024, 1025, 1026, 2049, 6001, 50_000] {
        let t = tree(Topology::Star, n, 2);
        let w = weights(WeightModel::Normal, n, 2);
        check(gpu, &t, &w, &format!("star n={n}"));
        check(&chunked, &t, &w, &format!("star n={n} chunks of 3000"));
        let t = tree(Topology::Broom { handle: 0.1 }, n, 2);
        check(gpu, &t, &w, &format!("broom:0.1 n={n}"));
        check(&chunked, &t, &w, &format!("broom:0.1 n={n} chunks of 3000"));
    }
}

/// A device that looks tiny to the level-synchronous kernels: windows of 8 vertices, wide
/// levels from 7, workgroup gathers from 3 children in chunks of 5, narrow runs cut every 100
/// loop iterations. Small trees then take every path: narrow windows (serial and parallel
/// steps) next to wide levels, gather tasks resumed over several dispatches, split runs.
fn every_parallel_path_on_small_trees(_: &Gpu) {
    let tiny = Gpu::with_options(GpuOptions {
        narrow_capacity: Some(10),
        gather_min_degree: Some(3),
        gather_chunk: Some(5),
        loop_budget: Some(100),
        ..Default::default()
    })
    .unwrap();
    for topology in Topology::all_defaults() {
        for n in [1, 2, 5, 9, 40, 300, 2000] {
            for order in ChildOrder::ALL {
                let t = topology
                    .generate(n, order, &mut generators::rng(n as u64 + 7))
                    .unwrap();
                let w = weights(WeightModel::Gensum, n, n as u64);
                check_algos(
                    &tiny,
                    &t,
                    &w,
                    &[Algorithm::PARALLEL],
                    &format!("tiny {topology} {order} n={n}"),
                );
            }
        }
    }
}

/// compute_many runs trees as forests (parallel: level d of every tree in one dispatch;
/// vectorial: every tree's tile-aligned Euler-tour segment in the same scans): the results
/// are those of one tree at a time, bit for bit, in job order.
fn forests_equal_one_tree_at_a_time(gpu: &Gpu) {
    let mut trees = Vec::new();
    let mut ws = Vec::new();
    for (i, topology) in Topology::all_defaults().into_iter().enumerate() {
        for n in [1, 3, 600, 2500] {
            let seed = 100 + i as u64 * 10 + n as u64;
            trees.push(tree(topology, n, seed));
            ws.push(weights(MODELS[i % MODELS.len()], n, seed));
        }
    }
    // A tree with two levels of block sums among small ones.
    trees.push(tree(Topology::RandomRecursive, 600_000, 3));
    ws.push(weights(WeightModel::Normal, 600_000, 3));
    let jobs: Vec<(&Tree, &[f32])> = trees.iter().zip(&ws).map(|(t, w)| (t, &w[..])).collect();
    for algo in gpu_algos() {
        for op in Op::ALL {
            let many = gpu.compute_many(&jobs, algo, op).unwrap();
            assert_eq!(many.len(), jobs.len());
            for (k, (t, w)) in jobs.iter().enumerate() {
                let one = gpu.compute(t, w, algo, op).unwrap();
                assert_bits(
                    &many[k],
                    &one,
                    &format!("forest job {k} {algo} {op} vs alone"),
                );
                let twin = algo.twin(t, w, op);
                assert_bits(
                    &many[k],
                    &twin,
                    &format!("forest job {k} {algo} {op} vs twin"),
                );
            }
        }
    }
}

/// End to end through the CLI: `run --backend gpu` dumps exactly the rows of `--backend cpu`
/// (results, errors and bounds), on a tree with several levels and tiles.
fn cli_gpu_dump_equals_cpu_dump(_: &Gpu) {
    let dir = std::env::temp_dir();
    let dump = |backend: &str| {
        let path = dir.join(format!(
            "treefix-gpu-cli-{backend}-{}.csv",
            std::process::id()
        ));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
            .args([
                "run",
                "--topology",
                "profile:12:3",
                "--nodes",
                "3000",
                "--cond",
                "1e9",
                "--seed",
                "4",
            ])
            .args(["--backend", backend, "--dump", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        (text, stderr)
    };
    let (cpu, _) = dump("cpu");
    let (gpu, stderr) = dump("gpu");
    assert!(stderr.contains("backend: gpu"), "{stderr}");
    assert_eq!(cpu.lines().count(), 1 + 3000 * 2 * Algorithm::ALL.len());
    assert!(cpu == gpu, "the GPU dump differs from the CPU dump");
}

/// End to end: a sweep on the GPU, whose trees run in batches as forests, writes the
/// results.csv of the CPU twins (every column but `backend`, which names the adapter, and
/// `gpu_mismatches`, empty on the CPU and 0 on the GPU wherever a kernel ran), with several
/// batches, generated trees and a tree file.
fn cli_gpu_sweep_equals_cpu_sweep(_: &Gpu) {
    let base = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    // The rows without `backend` and `gpu_mismatches`, and the `gpu_mismatches` column.
    let sweep = |backend: &str, extra: &[&str]| -> (Vec<csv::StringRecord>, Vec<String>) {
        let dir = base.join(format!("gpu-sweep-{backend}-{}", extra.len()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
            .args(["sweep", "--cond", "1e2..1e9", "--points", "3"])
            .args(["--trees", "3", "--algos", "sequential,parallel,vectorial"])
            .args(["--quiet"])
            .args(extra)
            .args(["--backend", backend, "--out", dir.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        let mut r = csv::Reader::from_path(dir.join("results.csv")).unwrap();
        let headers = r.headers().unwrap().clone();
        let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let (backend_col, mismatch_col) = (col("backend"), col("gpu_mismatches"));
        let algo_col = col("algorithm");
        let mut rows = Vec::new();
        let mut mismatches = Vec::new();
        for rec in r.records() {
            let rec = rec.unwrap();
            mismatches.push(format!("{}:{}", &rec[algo_col], &rec[mismatch_col]));
            rows.push(
                rec.iter()
                    .enumerate()
                    .filter(|&(i, _)| i != backend_col && i != mismatch_col)
                    .map(|(_, f)| f)
                    .collect(),
            );
        }
        (rows, mismatches)
    };
    let data = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/generators/tests/data/HB_494_bus.mtx.gz"
    );
    for extra in [
        &["--topology", "chain,random-recursive", "--nodes", "250000"][..],
        &["--tree", data],
    ] {
        let (cpu, cpu_mismatches) = sweep("cpu", extra);
        let (gpu, gpu_mismatches) = sweep("gpu", extra);
        assert!(!cpu.is_empty());
        assert!(
            cpu == gpu,
            "{extra:?}: GPU sweep differs from the CPU sweep"
        );
        // The CPU backend compares nothing; the GPU one compares its parallel and vectorial
        // kernels with their twins (the sequential algorithm runs on the CPU).
        for (c, g) in cpu_mismatches.iter().zip(&gpu_mismatches) {
            let algo = c.split(':').next().unwrap();
            assert_eq!(*c, format!("{algo}:"), "{extra:?}");
            let want = if algo == "sequential" { "" } else { "0" };
            assert_eq!(*g, format!("{algo}:{want}"), "{extra:?}");
        }
    }
}

/// `bench --out DIR --tree FILE`: bench.csv holds, per tree and op, the sequential CPU twin,
/// both kernels and the baselines of the same run, and bench.html is written from it.
fn cli_bench_writes_csv_and_html(_: &Gpu) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-out");
    let _ = std::fs::remove_dir_all(&dir);
    let data = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/generators/tests/data/HB_494_bus.mtx.gz"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .args([
            "bench",
            "--topology",
            "star",
            "--min-log2",
            "9",
            "--max-log2",
            "10",
        ])
        .args(["--ops", "rootfix,leaffix", "--reps", "2", "--tree", data])
        .args(["--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<analysis::records::bench::BenchRecord> =
        csv::Reader::from_path(dir.join("bench.csv"))
            .unwrap()
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap();
    for (topology, n) in [("star", 512), ("star", 1024), ("HB_494_bus.mtx.gz", 494)] {
        for op in ["rootfix", "leaffix"] {
            for (algo, backend_cpu) in [
                ("sequential", true),
                ("parallel", false),
                ("vectorial", false),
            ] {
                let r = rows
                    .iter()
                    .find(|r| {
                        r.topology == topology && r.n == n && r.op == op && r.algorithm == algo
                    })
                    .unwrap_or_else(|| panic!("no row {topology} {n} {op} {algo}"));
                assert_eq!(r.backend == "cpu", backend_cpu, "{r:?}");
                assert!(
                    r.compute_min_s <= r.compute_s && r.compute_s <= r.compute_max_s,
                    "{r:?}"
                );
                assert!(r.compute_s > 0.0 && r.reps >= 1, "{r:?}");
            }
        }
        for base in ["copy", "upload", "download"] {
            assert!(
                rows.iter().any(|r| r.n == n && r.algorithm == base),
                "{n} {base}"
            );
        }
    }
    let html = std::fs::read_to_string(dir.join("bench.html")).unwrap();
    assert!(html.contains("HB_494_bus.mtx.gz") && html.contains("<svg"));
}

/// `bench --out DIR` killed (kill -9) after a few parts and started again with the same
/// parameters: the rows of the finished parts are kept byte for byte, the rest measured, and
/// every row appears once. Until the last part is done they are in bench.csv.partial, and
/// there is no bench.csv. Other parameters on the same DIR are refused.
fn cli_bench_resumes_after_a_kill(_: &Gpu) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-resume");
    let _ = std::fs::remove_dir_all(&dir);
    let bench = |reps: &str| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"));
        c.args(["bench", "--topology", "star,chain", "--min-log2", "9"])
            .args([
                "--max-log2",
                "12",
                "--ops",
                "rootfix,leaffix",
                "--reps",
                reps,
            ])
            .args(["--out", dir.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        c
    };
    // 4 baselines + 2 topologies x 4 sizes.
    let parts = 12;
    let state = || -> Option<serde_json::Value> {
        let text = std::fs::read_to_string(dir.join("bench.json")).ok()?;
        serde_json::from_str(&text).ok()
    };
    let done = |s: &serde_json::Value| s["done"].as_array().unwrap().len();
    let mut child = bench("1").spawn().unwrap();
    let start = std::time::Instant::now();
    while state().is_none_or(|s| done(&s) < 3) {
        assert!(start.elapsed().as_secs() < 300, "no progress");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let at_kill = state().unwrap();
    let kept = at_kill["csv_bytes"].as_u64().unwrap() as usize;
    assert!(done(&at_kill) < parts, "the run ended before the kill");
    assert!(
        !dir.join("bench.csv").exists(),
        "an unfinished run's bench.csv"
    );
    let before = std::fs::read(dir.join("bench.csv.partial")).unwrap();
    assert!(before.len() >= kept);

    let other = bench("2").output().unwrap();
    assert_eq!(other.status.code(), Some(2));
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        err.contains("holds a bench with other parameters (reps differs)"),
        "{err}"
    );

    let again = bench("1").output().unwrap();
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert!(
        err.contains(&format!("{} of {parts} parts already done", done(&at_kill))),
        "{err}"
    );
    let after = std::fs::read(dir.join("bench.csv")).unwrap();
    assert!(!dir.join("bench.csv.partial").exists());
    assert_eq!(after[..kept], before[..kept]);
    assert_eq!(done(&state().unwrap()), parts);
    let rows: Vec<analysis::records::bench::BenchRecord> = csv::Reader::from_reader(&after[..])
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut keys: Vec<_> = rows
        .iter()
        .map(|r| (r.topology.clone(), r.n, r.op.clone(), r.algorithm.clone()))
        .collect();
    let count = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), count, "a row appears twice");
    for k in 9..=12 {
        let n = 1usize << k;
        for base in ["copy", "upload", "download"] {
            assert!(keys.contains(&(String::new(), n, String::new(), base.into())));
        }
        for topology in ["star", "chain"] {
            for op in ["rootfix", "leaffix"] {
                for algo in ["sequential", "parallel", "vectorial"] {
                    let key = (topology.to_string(), n, op.to_string(), algo.to_string());
                    assert!(keys.contains(&key), "{key:?}");
                }
            }
        }
    }
    assert!(
        std::fs::read_to_string(dir.join("bench.html"))
            .unwrap()
            .contains("<svg")
    );
}

/// Subnormal weights and partial sums: every weight a multiple of the smallest subnormal
/// (2^-149) and every sum below 2^-126, so every addition is exact and subnormal. A device
/// either keeps subnormals, and then equals the twin bit for bit, or flushes them to zero
/// (Vulkan allows it; wgpu cannot request SPIR-V DenormPreserve), and then every result that
/// differs is a zero where the twin has a subnormal or zero. Anything else (a wrong order, a
/// lost addition) fails. Which behaviour the device has is printed.
fn subnormal_weights(gpu: &Gpu) {
    let tiny = f32::from_bits(1); // 2^-149
    let (mut same, mut flushed) = (0usize, 0usize);
    for topology in Topology::all_defaults() {
        for n in [2, 100, 3000] {
            let t = tree(topology, n, 13);
            let w: Vec<f32> = (0..n)
                .map(|v| tiny * ((v * 7919 % 201) as f32 - 100.0))
                .collect();
            assert!(w.iter().any(|x| x.is_subnormal()));
            for algo in gpu_algos() {
                for op in Op::ALL {
                    let got = gpu.compute(&t, &w, algo, op).unwrap();
                    let twin = algo.twin(&t, &w, op);
                    assert!(twin.iter().any(|x| x.is_subnormal()));
                    for (v, (&g, &c)) in got.iter().zip(&twin).enumerate() {
                        if g.to_bits() == c.to_bits() {
                            same += 1;
                        } else {
                            assert!(
                                g == 0.0 && (c == 0.0 || c.is_subnormal()),
                                "{topology} n={n} {algo} {op} vertex {v}: GPU {g:e} vs twin {c:e} is no flush to zero"
                            );
                            flushed += 1;
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "subnormals: {same} results equal to the twin, {flushed} flushed to zero ({})",
        if flushed == 0 {
            "the device keeps subnormals"
        } else {
            "the device flushes subnormals"
        }
    );
}

/// Regression: a forest of four chains has levels of four vertices, walked serially by one
/// invocation of the narrow leaffix kernel. Its loops ran 12 iterations per level where the
/// host's plan charged 10, so a dispatch planned within llvmpipe's loop budget (5 611 levels)
/// ran past Mesa's 65 535 and was silently cut short after 5 161 levels: every level above
/// came out wrong (four chains of 700 000 plus a random-recursive tree: 694 572 vertices of
/// every chain). Chains of 6000 fill one such dispatch.
fn forest_of_four_chains_matches_twin(gpu: &Gpu) {
    let n = 6000;
    let mut trees: Vec<Tree> = (0..4).map(|i| tree(Topology::Chain, n, i)).collect();
    trees.push(tree(Topology::RandomRecursive, n, 4));
    let ws: Vec<Vec<f32>> = (0..trees.len() as u64)
        .map(|i| weights(WeightModel::Normal, n, i))
        .collect();
    let jobs: Vec<(&Tree, &[f32])> = trees.iter().zip(&ws).map(|(t, w)| (t, &w[..])).collect();
    for op in Op::ALL {
        let many = gpu.compute_many(&jobs, Algorithm::PARALLEL, op).unwrap();
        for (k, (t, w)) in jobs.iter().enumerate() {
            let twin = Algorithm::PARALLEL.twin(t, w, op);
            assert_bits(&many[k], &twin, &format!("four chains + rr, job {k}, {op}"));
        }
    }
}

/// The chained plan's one-workgroup chain counts against the adapter's loop budget: past it,
/// `vectorial-chained` is refused with a limit error (exit code 2), while `vectorial` on the
/// same uploaded tree still runs and equals its twin.
fn chained_scan_respects_the_loop_budget(_: &Gpu) {
    let small = Gpu::with_options(GpuOptions {
        loop_budget: Some(100),
        ..Default::default()
    })
    .unwrap();
    // 2·40 000 positions: 79 tile totals, + 64 iterations of slack > 100.
    let n = 40_000;
    let t = tree(Topology::RandomRecursive, n, 3);
    let w = weights(WeightModel::Normal, n, 3);
    let e = small
        .compute(&t, &w, Algorithm::VECTORIAL_CHAINED, Op::Leaffix)
        .unwrap_err();
    assert!(matches!(e, treefix_accuracy::Error::GpuLimit(_)), "{e}");
    assert!(e.to_string().contains("79 tile totals"), "{e}");
    check_algos(
        &small,
        &t,
        &w,
        &[Algorithm::VECTORIAL],
        "vectorial under a small loop budget",
    );
}

/// vectorial-exact on one uploaded tree with weights of every width, one after another (its
/// buffers are remade for each scale): one limb (integers), a few (gensum to κ = 1e30), ten
/// (normal weights from near the subnormals to near f32::MAX, whose sums overflow to ±∞ and
/// whose leaffix differences can be subnormal), and a forest of trees of different scales.
fn exact_scan_at_every_scale(gpu: &Gpu) {
    use rand::RngExt;
    let algo = Algorithm::VECTORIAL_EXACT;
    let t = tree(Topology::RandomRecursive, 3000 + 7, 8);
    let n = t.len();
    let mut rng = generators::rng(21);
    let wide: Vec<f32> = (0..n)
        .map(|_| {
            let m: f32 = rng.random_range(1.0..1.9);
            let e = if rng.random_bool(0.5) {
                rng.random_range(-126..-110)
            } else {
                rng.random_range(110..127)
            };
            let s = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            s * m * 2f32.powi(e)
        })
        .collect();
    let cases: Vec<(&str, Vec<f32>)> = vec![
        ("integers", weights(WeightModel::Integers, n, 1)),
        (
            "gensum 1e30",
            WeightModel::Gensum
                .weights(n, 1e30, &mut generators::rng(2))
                .unwrap(),
        ),
        ("both ends of the range", wide),
        ("normal", weights(WeightModel::Normal, n, 3)),
    ];
    for (what, w) in &cases {
        let limbs = generators::fixed::Scale::for_weights(w)
            .unwrap()
            .gpu_words();
        check_algos(gpu, &t, w, &[algo], &format!("{what} ({limbs} limbs)"));
    }
    let trees: Vec<Tree> = (0..3).map(|i| tree(Topology::Prufer, 2000, i)).collect();
    let jobs: Vec<(&Tree, &[f32])> = trees
        .iter()
        .zip(&cases)
        .map(|(t, (_, w))| (t, &w[..t.len()]))
        .collect();
    for op in Op::ALL {
        let many = gpu.compute_many(&jobs, algo, op).unwrap();
        for (k, (t, w)) in jobs.iter().enumerate() {
            assert_bits(
                &many[k],
                &algo.twin(t, w, op),
                &format!("forest job {k}, {op}"),
            );
        }
    }
}

/// The exact reference from the GPU's exact scan: every node's value and Σ|terms| equal the
/// CPU reference's (1 to 9 limbs, both ops), a −0 weight falls back to the CPU, and a sweep
/// writes the same results.csv bytes with `--exact-on gpu` as without.
fn exact_reference_on_the_gpu(gpu: &Gpu) {
    use analysis::{Reference, ReferenceKind};
    let t = tree(Topology::RandomRecursive, 5000, 12);
    let n = t.len();
    let wide: Vec<f32> = (0..n)
        .map(|i| {
            let e = if i % 2 == 0 { -120 } else { 120 };
            (1.0 + (i % 7) as f32 / 8.0) * 2f32.powi(e) * if i % 3 == 0 { -1.0 } else { 1.0 }
        })
        .collect();
    for w in [
        weights(WeightModel::Integers, n, 1),
        weights(WeightModel::Gensum, n, 2),
        wide,
    ] {
        for op in Op::ALL {
            let from_gpu = gpu
                .exact_reference_of(&t, &w, op)
                .unwrap()
                .expect("finite, no -0");
            let cpu = Reference::compute(ReferenceKind::Exact, &t, &w, op);
            for v in 0..n {
                assert_eq!(
                    from_gpu.value_exact(v),
                    cpu.value_exact(v),
                    "{op} vertex {v}"
                );
                assert_eq!(
                    from_gpu.abs_sum_f64(v).to_bits(),
                    cpu.abs_sum_f64(v).to_bits(),
                    "{op} vertex {v}: Σ|terms|"
                );
                assert_eq!(
                    from_gpu.value_f64(v).to_bits(),
                    cpu.value_f64(v).to_bits(),
                    "{op} vertex {v}: rounded"
                );
            }
        }
    }
    let mut zero = weights(WeightModel::Normal, n, 4);
    zero[3] = -0.0;
    assert!(
        gpu.exact_reference_of(&t, &zero, Op::Leaffix)
            .unwrap()
            .is_none()
    );

    let base = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let sweep = |exact_on: &str| -> Vec<u8> {
        let dir = base.join(format!("exact-reference-{exact_on}"));
        let _ = std::fs::remove_dir_all(&dir);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
            .args([
                "sweep",
                "--cond",
                "1e2,1e12,1e30",
                "--trees",
                "2",
                "--quiet",
            ])
            .args([
                "--topology",
                "chain,star,random-recursive",
                "--nodes",
                "20000",
            ])
            .args(["--algos", "parallel,vectorial,vectorial-exact"])
            .args(["--backend", "gpu", "--exact-on", exact_on])
            .args(["--out", dir.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read(dir.join("results.csv")).unwrap()
    };
    assert!(
        sweep("cpu") == sweep("gpu"),
        "results.csv differs with the exact reference computed on the GPU"
    );
}

/// The CPU's exact treefix (`analysis::exact`, one walk of the tree's own order) against the
/// vectorial-exact kernel (an Euler-tour scan): both are the correctly rounded value, so they
/// agree bit for bit whatever the order of their additions. Every topology × child order ×
/// weight model at a few thousand vertices; 2^20 + 7 (two levels of block sums on the GPU, many
/// blocks of the CPU's parallel walk) on a shallow and a deep tree, the deep one with weights
/// spanning f32's whole range (the most limbs, sums overflowing to ±∞).
fn exact_treefix_equals_the_kernel(gpu: &Gpu) {
    let check = |t: &Tree, w: &[f32], what: &str| {
        for op in Op::ALL {
            let got = gpu
                .compute_timed(t, w, Algorithm::VECTORIAL_EXACT, op)
                .unwrap_or_else(|e| panic!("{what} {op}: {e}"))
                .0;
            let want = analysis::exact::correctly_rounded(t, w, op);
            assert_bits(
                &got,
                &want,
                &format!("{what} {op}: kernel vs exact treefix"),
            );
        }
    };
    let n = 3001;
    for topology in Topology::all_defaults() {
        for order in ChildOrder::ALL {
            let t = topology
                .generate(n, order, &mut generators::rng(5))
                .unwrap();
            for model in WeightModel::ALL {
                let w = weights(model, n, 6);
                check(&t, &w, &format!("{topology} {order:?} {model} n={n}"));
            }
        }
    }
    let big = (1 << 20) + 7;
    let t = tree(Topology::RandomRecursive, big, 9);
    check(
        &t,
        &weights(WeightModel::Gensum, big, 10),
        "random-recursive gensum n=2^20+7",
    );
    let full: Vec<f32> = (0..big)
        .map(|i| [f32::from_bits(1), 3e38, -1.5, -3e38, 1e-30][i % 5])
        .collect();
    let t = tree(Topology::Chain, big, 11);
    check(&t, &full, "chain full-range n=2^20+7");
}
