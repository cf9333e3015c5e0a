//! The memory preflight's promise, measured: its estimate bounds the peak resident memory of
//! `accuracy run` on every topology (a part of `examples/memory_model.rs`' table), and the
//! largest run it admits under an address-space limit (`ulimit -v`) completes instead of
//! aborting on a failed allocation.
#![cfg(unix)]

mod common;
use common::peak::{TOPOLOGIES, peak_of};

use analysis::{Algorithm, Op, ReferenceKind};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use treefix_accuracy::memory;

const BIN: &str = env!("CARGO_BIN_EXE_accuracy");

/// The estimate against the kernel's peak resident set: at least the peak, at most 2.5 times
/// it (the estimate counts the widest exact reference the weights can need, five limbs for
/// finite weights, which their span decides at run time: narrower weights leave it high).
///
/// The model's constants are themselves fitted to peaks measured this way
/// (`examples/memory_model.rs`, at 10^5, 10^6 and 4·10^6 vertices), so at those sizes the
/// window would only restate the fit. The sizes here are none of them: the check is that the
/// model's form (a fixed part plus bytes per vertex) holds between its calibration points,
/// where nothing was fitted. The independent check is the next test's, under `ulimit -v`.
fn check(topology: &str, n: u64, algos: &[Algorithm]) {
    let eval = memory::Evaluation {
        algos,
        ops: Op::ALL.len(),
        reference: ReferenceKind::Exact,
        gpu: false,
    };
    let estimate = memory::run(n, topology, &eval, false, false, memory::threads());
    let names: Vec<&str> = algos.iter().map(|a| a.name()).collect();
    let p = peak_of(
        Command::new(BIN)
            .args(["run", "--topology", topology, "--nodes", &n.to_string()])
            .args(["--cond", "1e5", "--algos", &names.join(",")]),
    );
    assert_eq!(p.code, Some(0), "{topology} {n}: the run failed");
    let ratio = estimate.bytes as f64 / p.rss as f64;
    eprintln!(
        "{topology} {n} ({} algorithms): estimate {} B, peak {} B, ratio {ratio:.2}",
        algos.len(),
        estimate.bytes,
        p.rss
    );
    assert!(
        (1.0..=2.5).contains(&ratio),
        "{topology}, {n} vertices, {names:?}: estimate {} B against a measured peak of {} B \
         (ratio {ratio:.2}, expected 1 to 2.5); re-measure memory::model \
         (cargo run --release --example memory_model)",
        estimate.bytes,
        p.rss
    );
}

#[test]
fn the_estimate_bounds_the_peak_on_every_topology() {
    for topology in TOPOLOGIES {
        check(topology, 300_000, &Algorithm::ALL);
        check(topology, 2_000_000, &[Algorithm::PARALLEL]);
    }
}

/// `accuracy ARGS` under `ulimit -v KB`.
fn limited(kb: u64, args: &[String]) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {kb} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args);
    c
}

/// Whether the preflight admits `args` under the limit: a refusal comes before the tree is
/// generated, within moments; a run that succeeds, or is still going after that, was admitted
/// (and is stopped).
fn admitted(kb: u64, args: &[String]) -> bool {
    let mut child = limited(kb, args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) {
        if let Some(status) = child.try_wait().unwrap() {
            let mut e = String::new();
            use std::io::Read;
            child.stderr.take().unwrap().read_to_string(&mut e).unwrap();
            if status.success() {
                return true;
            }
            assert_eq!(status.code(), Some(2), "{e}");
            assert!(
                e.contains("needs about"),
                "not the preflight's refusal: {e}"
            );
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    true
}

/// Under `ulimit -v`, the largest tree the preflight admits (found by bisection, to 1 %) runs
/// to the end: its estimate bounds the address space the run maps, not only its resident
/// pages.
#[cfg(target_os = "linux")]
#[test]
fn the_largest_run_admitted_under_ulimit_v_completes() {
    const KB: u64 = 1_500_000;
    for topology in ["chain", "random-recursive"] {
        let args = |n: u64| -> Vec<String> {
            ["run", "--topology", topology, "--nodes", &n.to_string()]
                .into_iter()
                .chain(["--cond", "1e3", "--algos", "parallel", "--ops", "rootfix"])
                .map(String::from)
                .collect()
        };
        let (mut lo, mut hi) = (100_000u64, 100_000_000u64);
        assert!(admitted(KB, &args(lo)) && !admitted(KB, &args(hi)));
        while hi - lo > lo / 100 {
            let mid = lo + (hi - lo) / 2;
            if admitted(KB, &args(mid)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let o = limited(KB, &args(lo)).output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        eprintln!("{topology}: {lo} vertices admitted under ulimit -v {KB}");
        assert!(
            o.status.success(),
            "{topology}: the largest admitted run ({lo} vertices) failed: {:?} {e}",
            o.status
        );
    }
}
