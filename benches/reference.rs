//! Throughput of the references (exact fixed point on the weights' own scale and on the full
//! f32 range, and double-double), in additions per second; beside each exact one,
//! `exact::rounded` on the same weights (the library's `exact()`: the rounded values alone,
//! without what the reference keeps).
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
        // The κ = 1e8 weights with one −0: the sign of exact zeros takes a second walk.
        let mut w8_zero = w8.clone();
        w8_zero[0] = -0.0;
        // Weights from the smallest subnormal to near f32's largest: the most limbs.
        let full: Vec<f32> = (0..n)
            .map(|i| [f32::from_bits(1), 1e38, -1.5][i % 3])
            .collect();
        // exact: κ = 1e8 on the weights' own scale; exact-wide: κ = 1e30, a wider scale;
        // exact-signed-zero: one −0; exact-full: f32's whole range; dd: double-double.
        let cases = [
            ("exact", &w8, ReferenceKind::Exact),
            ("exact-wide", &w30, ReferenceKind::Exact),
            ("exact-signed-zero", &w8_zero, ReferenceKind::Exact),
            ("exact-full", &full, ReferenceKind::Exact),
            ("dd", &w8, ReferenceKind::Dd),
        ];
        for (name, w, kind) in cases {
            let scale = generators::fixed::Scale::for_weights(w);
            println!("{name}, n = {n}: {:?} limbs", scale.map(|s| s.limbs()));
            // One exact addition per vertex for the value and one for Σ|terms|: 2n additions.
            group.throughput(Throughput::Elements(2 * n as u64));
            for op in Op::ALL {
                let id = BenchmarkId::new(format!("{name}-{}", op.name()), n);
                group.bench_with_input(id, &n, |b, _| {
                    b.iter(|| Reference::compute(kind, black_box(&tree), black_box(w), op))
                });
                if kind == ReferenceKind::Exact {
                    let id = BenchmarkId::new(format!("{name}-rounded-{}", op.name()), n);
                    group.bench_with_input(id, &n, |b, _| {
                        b.iter(|| analysis::exact::rounded(black_box(&tree), black_box(w), op))
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
