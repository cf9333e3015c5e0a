//! End to end through the `accuracy` binary on the GPU: `run` and `sweep` write what the CPU
//! twins write, and `bench` writes bench.csv and bench.html and resumes after a kill.

use super::GpuTest;
use analysis::Algorithm;
use treefix_accuracy::gpu::Gpu;

/// This module's tests: name and body.
pub(super) const TESTS: &[(&str, GpuTest)] = &[
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
];

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
