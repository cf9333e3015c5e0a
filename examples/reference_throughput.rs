//! Exact-reference throughput on a noisy machine: the best and the median of many runs.
//!
//! Criterion (`cargo bench --bench reference`) reports means, which other tenants of a shared
//! machine push down at n = 10^5 (the working set lives in a shared L3). The best of many runs
//! is the rate the code reaches undisturbed; both are printed, per core, counting one exact
//! addition for the value and one for Σ|terms| per vertex (2n), as the criterion bench does.
//!
//! `cargo run --release --example reference_throughput [RUNS]`

use analysis::{Op, Reference, ReferenceKind};
use generators::fixed::Scale;
use generators::{ChildOrder, Topology, WeightModel};
use std::time::Instant;

// The allocator `accuracy` uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .map_or(40, |s| s.parse().expect("RUNS: a count"));
    println!("case, n, limbs, op: best / median M additions/s over {runs} runs");
    for n in [10_000usize, 100_000] {
        // The criterion bench's trees and weights (benches/reference.rs).
        let mut rng = generators::rng(1);
        let tree = Topology::RandomRecursive
            .generate(n, ChildOrder::Natural, &mut rng)
            .unwrap();
        let w8 = WeightModel::Gensum.weights(n, 1e8, &mut rng).unwrap();
        let w30 = WeightModel::Gensum.weights(n, 1e30, &mut rng).unwrap();
        // One −0: the sign of exact zeros takes a second walk.
        let mut w8_zero = w8.clone();
        w8_zero[0] = -0.0;
        let full = full_range(n);
        for (name, w) in [
            ("exact", &w8),
            ("exact-wide", &w30),
            ("exact-signed-zero", &w8_zero),
            ("exact-full", &full),
        ] {
            let limbs = Scale::for_weights(w).map_or(0, |s| s.limbs());
            for op in Op::ALL {
                let mut rates: Vec<f64> = (0..runs)
                    .map(|_| {
                        let t = Instant::now();
                        let r = Reference::compute(ReferenceKind::Exact, &tree, w, op);
                        std::hint::black_box(&r);
                        2.0 * n as f64 / t.elapsed().as_secs_f64() / 1e6
                    })
                    .collect();
                rates.sort_by(f64::total_cmp);
                println!(
                    "{name}, {n}, {limbs}, {op}: {:.1} / {:.1}",
                    rates[runs - 1],
                    rates[runs / 2]
                );
            }
        }
    }
}

/// Weights from the smallest subnormal to near f32's largest: the whole range, the most limbs.
fn full_range(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| match i % 3 {
            0 => f32::from_bits(1),
            1 => 1e38,
            _ => -1.5,
        })
        .collect()
}
