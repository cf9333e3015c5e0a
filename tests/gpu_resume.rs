//! A GPU sweep killed (kill -9) and resumed goes on on the GPU: every row of an algorithm
//! with a kernel names the adapter and carries its check against the CPU twin, as in an
//! uninterrupted run; `--resume DIR --backend cpu` is refused.
//!
//! Without an adapter the test is reported as ignored, with the reason; with
//! TREEFIX_REQUIRE_GPU=1 (CI, lavapipe) that is a failure. A custom harness (libtest-mimic):
//! the built-in one cannot decide at run time to ignore.

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let args = Arguments::from_args();
    let trial = Trial::ignorable_test("a_killed_gpu_sweep_resumes_on_the_gpu", || {
        match treefix_accuracy::gpu::Gpu::new() {
            Ok(_) => {
                a_killed_gpu_sweep_resumes_on_the_gpu();
                Ok(Completion::Completed)
            }
            Err(e) if std::env::var("TREEFIX_REQUIRE_GPU").as_deref() == Ok("1") => {
                Err(Failed::from(format!("TREEFIX_REQUIRE_GPU=1, but {e}")))
            }
            Err(e) => Ok(Completion::ignored_with(e.to_string())),
        }
    });
    libtest_mimic::run(&args, vec![trial]).exit();
}

const BIN: &str = env!("CARGO_BIN_EXE_accuracy");

fn lines(path: &Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

/// (algorithm, backend, gpu_mismatches) of every row.
fn backends(dir: &Path) -> Vec<(String, String, String)> {
    let mut r = csv::Reader::from_path(dir.join("results.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let (a, b, m) = (col("algorithm"), col("backend"), col("gpu_mismatches"));
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            (rec[a].to_string(), rec[b].to_string(), rec[m].to_string())
        })
        .collect()
}

fn a_killed_gpu_sweep_resumes_on_the_gpu() {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gpu-resume");
    let _ = std::fs::remove_dir_all(&base);
    let sweep = |dir: &Path| {
        let mut c = Command::new(BIN);
        c.args([
            "sweep",
            "--quiet",
            "--topology",
            "chain,prufer",
            "--nodes",
            "20000",
        ])
        .args(["--cond", "1e2..1e6", "--points", "3", "--trees", "4"])
        .args(["--backend", "gpu", "--out"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
        c
    };
    let full = base.join("full");
    let o = sweep(&full).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let expected = backends(&full);
    let total = expected.len() + 1;
    let adapter = &expected.iter().find(|r| r.0 == "parallel").unwrap().1;
    assert_ne!(adapter, "cpu");

    let dir = base.join("killed");
    let mut child = sweep(&dir).spawn().unwrap();
    let log = dir.join("results.csv.partial");
    let start = Instant::now();
    while lines(&log) < total / 3 && start.elapsed() < Duration::from_secs(300) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = lines(&log);
    assert!(
        before > 1 && before < total,
        "the kill missed ({before} of {total})"
    );

    let d = dir.to_str().unwrap();
    let o = Command::new(BIN)
        .args(["sweep", "--quiet", "--resume", d, "--backend", "cpu"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("the sweep runs on the gpu backend"), "{e}");

    let o = Command::new(BIN)
        .args(["sweep", "--quiet", "--resume", d])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let resumed = backends(&dir);
    let cpu_rows = resumed
        .iter()
        .filter(|r| r.0 != "sequential" && r.1 == "cpu")
        .count();
    assert_eq!(cpu_rows, 0, "rows of the resumed part ran on the CPU");
    assert_eq!(resumed, expected);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["backend"].as_str(), Some(adapter.as_str()));
    let params: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(params["backend"], "gpu");
}
