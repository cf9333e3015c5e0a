//! Throughput of the references (exact fixed point, narrow and full, and double-double), in
//! additions per second.
//! `cargo bench --bench reference`

use analysis::{Op, Reference, ReferenceKind};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use generators::{ChildOrder, Topology, WeightModel};
use std::hint::black_box;

// The allocator `accuracy` itself uses (src/main.rs): large per-tree vectors are reused
// instead of page-faulted in again.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn references(c: &mut Criterion) {
    let mut group = c.benchmark_group("reference");
    for n in [10_000usize, 100_000] {
        let mut rng = generators::rng(1);
        let tree = Topology::RandomRecursive
            .generate(n, ChildOrder::Natural, &mut rng)
            .unwrap();
        // κ = 1e8: the exact reference runs on the weights' narrow fixed point; κ = 1e30: their
        // span needs the full-range accumulator (named `exact-full`).
        for (cond, full) in [(1e8, false), (1e30, true)] {
            let w = WeightModel::Gensum.weights(n, cond, &mut rng).unwrap();
            assert_eq!(
                generators::exact_sum::NarrowScale::for_terms(&w).is_none(),
                full
            );
            // One exact addition per vertex for the value and one for Σ|terms|: 2n additions.
            group.throughput(Throughput::Elements(2 * n as u64));
            let kinds: &[ReferenceKind] = if full {
                &[ReferenceKind::Exact]
            } else {
                &[ReferenceKind::Exact, ReferenceKind::Dd]
            };
            for &kind in kinds {
                for op in Op::ALL {
                    let name = format!(
                        "{}{}-{}",
                        kind.name(),
                        if full { "-full" } else { "" },
                        op.name()
                    );
                    group.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                        b.iter(|| Reference::compute(kind, black_box(&tree), black_box(&w), op))
                    });
                }
            }
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = references
}
criterion_main!(benches);
