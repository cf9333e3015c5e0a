//! The memory preflight's promise, measured: its estimate bounds the peak resident memory of
//! `accuracy run` on every topology (a part of `examples/memory_model.rs`' table), and under
//! an address-space limit (`ulimit -v`) the largest run it admits completes instead of failing
//! on an allocation — for every algorithm subset, both ops, at three limits.
//!
//! Cost (a debug build on 2 cores that other builds shared, 2026-12-02): the three limits
//! ran 14, 14 and 7 runs of up to 6.1·10^6 vertices, in 48, 116 and 209 s of wall time, beside
//! the topology test; the whole file took 232 s, 118 s of user CPU time.
#![cfg(unix)]

mod common;
use common::peak::{TOPOLOGIES, peak_of};

use analysis::{Algorithm, Op, ReferenceKind};
use std::process::{Command, Stdio};
use std::time::Instant;
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

/// The algorithm subsets that stand for all 255: a subset's estimate depends on its
/// algorithms only through the costliest one's peak and whether it evaluates more than two
/// steps (algorithms × ops). Each algorithm alone (one step per op, two with both ops), and
/// for each peak the largest subset whose costliest algorithm has it (the most steps, and
/// every array size, under that estimate).
fn subsets() -> Vec<Vec<Algorithm>> {
    let peak = |a: &Algorithm| a.descriptor().cost.peak_bytes;
    let mut out: Vec<Vec<Algorithm>> = Algorithm::ALL.iter().map(|&a| vec![a]).collect();
    for a in Algorithm::ALL {
        let under: Vec<Algorithm> = Algorithm::ALL
            .into_iter()
            .filter(|b| peak(b) <= peak(&a))
            .collect();
        if under.len() > 1 && !out.contains(&under) {
            out.push(under);
        }
    }
    out
}

/// The largest `n` whose estimate fits in `bytes`: at least the largest the preflight admits
/// under a limit of `bytes` (which it lessens by what the process already maps).
fn model_limit(bytes: u64, algos: &[Algorithm], ops: &[Op]) -> u64 {
    let eval = memory::Evaluation {
        algos,
        ops: ops.len(),
        reference: ReferenceKind::Exact,
        gpu: false,
    };
    let fits =
        |n: u64| memory::run(n, "chain", &eval, false, false, memory::threads()).bytes <= bytes;
    let (mut lo, mut hi) = (1u64, 1u64 << 33);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    lo
}

/// Under `ulimit -v KB`, the largest chain the preflight admits (to 0.5 %) for `algos` and
/// `ops` runs to the end: from the model's own limit down, each refused size (a refusal
/// comes before the tree is generated) gives way to one 0.5 % smaller, and the first one
/// admitted must complete. Returns its size.
fn largest_admitted_completes(kb: u64, algos: &[Algorithm], ops: &[Op]) -> u64 {
    let names: Vec<&str> = algos.iter().map(|a| a.name()).collect();
    let ops_names: Vec<&str> = ops.iter().map(|o| o.name()).collect();
    let what = format!(
        "ulimit -v {kb}, --algos {} --ops {}",
        names.join(","),
        ops_names.join(",")
    );
    let mut n = model_limit(kb * 1024, algos, ops);
    loop {
        let args: Vec<String> = [
            "run",
            "-q",
            "--topology",
            "chain",
            "--nodes",
            &n.to_string(),
        ]
        .into_iter()
        .chain([
            "--cond",
            "1e3",
            "--algos",
            &names.join(","),
            "--ops",
            &ops_names.join(","),
        ])
        .map(String::from)
        .collect();
        let o = limited(kb, &args).stdout(Stdio::null()).output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        if o.status.code() == Some(2) && e.contains("needs about") {
            n -= n / 200;
            continue;
        }
        assert!(
            o.status.success(),
            "{what}: the largest admitted run ({n} vertices) failed: {:?} {e}",
            o.status
        );
        return n;
    }
}

/// The preflight's promise under an address-space limit, for every algorithm subset (as
/// [`subsets`] stands for them), each op alone and both, at three limits: the largest run
/// it admits completes instead of failing on an allocation. Three limits: one where the
/// allocator's fixed part weighs most, one below the size (1 GiB) from which freed pages go
/// back at once, one above it.
#[cfg(target_os = "linux")]
fn every_subset_under(kb: u64) {
    let both = [Op::Rootfix, Op::Leaffix];
    let t0 = Instant::now();
    // Largest subsets first: a subset admitted at no larger a size than a superset that
    // completed (same ops) ran within that run, each of its steps with more held around it.
    let mut order = subsets();
    order.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut done: Vec<(Vec<Algorithm>, Vec<Op>, u64)> = Vec::new();
    for algos in order {
        // Both ops: at the size one op alone is admitted, the run of both includes it and
        // what it leaves. Except where one op alone takes two steps and both take more, which
        // the estimate counts apart (two algorithms).
        let op_sets: Vec<&[Op]> = match algos.len() {
            2 => vec![&both[..1], &both[1..], &both[..]],
            _ => vec![&both[..]],
        };
        for ops in op_sets {
            let model = model_limit(kb * 1024, &algos, ops);
            let within = done
                .iter()
                .find(|(s, o, m)| o == ops && *m >= model && algos.iter().all(|a| s.contains(a)));
            if let Some((s, _, _)) = within {
                eprintln!("ulimit -v {kb}: {algos:?} {ops:?}: within the run of {s:?}");
                continue;
            }
            let n = largest_admitted_completes(kb, &algos, ops);
            eprintln!("ulimit -v {kb}: {algos:?} {ops:?}: {n} vertices admitted and completed");
            done.push((algos.clone(), ops.to_vec(), model));
        }
    }
    eprintln!(
        "ulimit -v {kb}: {} runs in {:.0} s",
        done.len(),
        t0.elapsed().as_secs_f64()
    );
}

#[cfg(target_os = "linux")]
#[test]
fn the_largest_runs_admitted_under_300_mb_complete() {
    every_subset_under(300_000);
}

#[cfg(target_os = "linux")]
#[test]
fn the_largest_runs_admitted_under_700_mb_complete() {
    every_subset_under(700_000);
}

#[cfg(target_os = "linux")]
#[test]
fn the_largest_runs_admitted_under_1500_mb_complete() {
    every_subset_under(1_500_000);
}
