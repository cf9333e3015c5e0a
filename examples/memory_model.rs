//! The memory model against measured peaks: `accuracy run` on every topology, with several
//! subsets of the algorithms, at several sizes; for each, the estimate the preflight checks
//! (`treefix_accuracy::memory::run`), the peak resident set the kernel measured, and their
//! ratio. The estimate must be an upper bound everywhere (`tests/memory.rs` checks a part of
//! this table in every test run).
//!
//! ```sh
//! cargo build --release --bin accuracy
//! cargo run --release --example memory_model -- [--sizes 100000,1000000,4000000] [--quick]
//! ```

#[path = "../tests/common/peak.rs"]
mod peak;

use analysis::{Algorithm, Op, ReferenceKind};
use peak::TOPOLOGIES;
use std::process::Command;
use treefix_accuracy::memory;

fn main() {
    let mut sizes: Vec<u64> = vec![100_000, 1_000_000, 4_000_000];
    let mut args = std::env::args().skip(1);
    let mut subsets: Vec<Vec<Algorithm>> = vec![
        vec![Algorithm::PARALLEL],
        Algorithm::paper().to_vec(),
        Algorithm::ALL.to_vec(),
    ];
    while let Some(a) = args.next() {
        match a.as_str() {
            "--sizes" => {
                sizes = args
                    .next()
                    .expect("--sizes N,N,…")
                    .split(',')
                    .map(|s| s.parse().expect("a size"))
                    .collect()
            }
            "--quick" => subsets.truncate(1),
            _ => panic!("unknown argument {a}"),
        }
    }
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/accuracy");
    assert!(
        bin.exists(),
        "build it first: cargo build --release --bin accuracy"
    );
    let threads = memory::threads();
    println!("threads {threads}");
    println!(
        "{:<17} {:<10} {:>9} {:>12} {:>12} {:>6}",
        "topology", "algorithms", "vertices", "estimate", "peak RSS", "ratio"
    );
    let mut worst: f64 = f64::INFINITY;
    for &n in &sizes {
        for algos in &subsets {
            for topology in TOPOLOGIES {
                let eval = memory::Evaluation {
                    algos,
                    ops: Op::ALL.len(),
                    reference: ReferenceKind::Exact,
                    gpu: false,
                };
                let estimate = memory::run(n, topology, &eval, false, false, threads);
                let names: Vec<&str> = algos.iter().map(|a| a.name()).collect();
                let p = peak::peak_of(
                    Command::new(&bin)
                        .args(["run", "--topology", topology, "--nodes", &n.to_string()])
                        .args(["--cond", "1e5", "--algos", &names.join(",")]),
                );
                assert_eq!(p.code, Some(0), "{topology} {n}: the run failed");
                let ratio = estimate.bytes as f64 / p.rss as f64;
                worst = worst.min(ratio);
                let label = match algos.len() {
                    1 => names[0].to_string(),
                    k => format!("{k} algos"),
                };
                println!(
                    "{topology:<17} {label:<10} {n:>9} {:>12} {:>12} {ratio:>6.2}",
                    estimate.bytes, p.rss
                );
            }
        }
    }
    println!("smallest ratio (estimate / peak): {worst:.3}");
}
