//! Throughput of the references (exact MPFR and double-double), in additions per second.
//! `cargo bench --bench reference`

use analysis::{Op, Reference, ReferenceKind};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use generators::{ChildOrder, Topology, WeightModel};
use std::hint::black_box;

fn references(c: &mut Criterion) {
    let mut group = c.benchmark_group("reference");
    for n in [10_000usize, 100_000] {
        let mut rng = generators::rng(1);
        let tree = Topology::RandomRecursive
            .generate(n, ChildOrder::Natural, &mut rng)
            .unwrap();
        let w = WeightModel::Gensum.weights(n, 1e8, &mut rng).unwrap();
        // One exact addition per vertex for the value and one for Σ|terms|: 2n additions.
        group.throughput(Throughput::Elements(2 * n as u64));
        for kind in [ReferenceKind::Exact, ReferenceKind::Dd] {
            for op in Op::ALL {
                group.bench_with_input(
                    BenchmarkId::new(format!("{}-{}", kind.name(), op.name()), n),
                    &n,
                    |b, _| b.iter(|| Reference::compute(kind, black_box(&tree), black_box(&w), op)),
                );
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
