//! Throughput of the references and the CPU twins, in vertices per second.
//! `cargo bench --bench reference`

use analysis::{Algorithm, Op, Reference, ReferenceKind};
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

fn twins(c: &mut Criterion) {
    let mut group = c.benchmark_group("cpu-twin");
    let n = 100_000usize;
    let mut rng = generators::rng(2);
    let tree = Topology::RandomRecursive
        .generate(n, ChildOrder::Natural, &mut rng)
        .unwrap();
    let w = WeightModel::Normal.weights(n, 1.0, &mut rng).unwrap();
    group.throughput(Throughput::Elements(n as u64));
    for algo in Algorithm::ALL {
        for op in Op::ALL {
            group.bench_function(format!("{}-{}", algo.name(), op.name()), |b| {
                b.iter(|| treefix_accuracy::kernels::cpu(black_box(&tree), black_box(&w), algo, op))
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = references, twins
}
criterion_main!(benches);
