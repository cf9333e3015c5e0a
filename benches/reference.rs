//! Throughput of the references (exact fixed point on the weights' own scale and on the full
//! f32 range, and double-double), in additions per second.
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
        let w8 = WeightModel::Gensum.weights(n, 1e8, &mut rng).unwrap();
        let w30 = WeightModel::Gensum.weights(n, 1e30, &mut rng).unwrap();
        // The κ = 1e8 weights with one −0, which only the full-range accumulator keeps.
        let mut w8_full = w8.clone();
        w8_full[0] = -0.0;
        // exact: κ = 1e8 on the weights' own scale; exact-wide: κ = 1e30, a wider scale;
        // exact-full: the full range (ExactSum) on the κ = 1e8 weights; dd: double-double.
        let cases = [
            ("exact", &w8, ReferenceKind::Exact),
            ("exact-wide", &w30, ReferenceKind::Exact),
            ("exact-full", &w8_full, ReferenceKind::Exact),
            ("dd", &w8, ReferenceKind::Dd),
        ];
        for (name, w, kind) in cases {
            let scale = generators::exact_sum::Scale::for_terms(w);
            println!("{name}, n = {n}: {:?} limbs", scale.map(|s| s.limbs()));
            // One exact addition per vertex for the value and one for Σ|terms|: 2n additions.
            group.throughput(Throughput::Elements(2 * n as u64));
            for op in Op::ALL {
                let id = BenchmarkId::new(format!("{name}-{}", op.name()), n);
                group.bench_with_input(id, &n, |b, _| {
                    b.iter(|| Reference::compute(kind, black_box(&tree), black_box(w), op))
                });
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
