//! Laying a tree out on a spatial computer and counting every message pattern
//! (`analysis::spatial`, docs/design.md §12): the light-first order (its positions, and the
//! tree renamed by them), the Hilbert curve's cell of every position, and the
//! energy and depth of the layout's and the virtual tree's construction, local messaging,
//! parallel, the Euler-tour family, contraction (both ops), pointer jumping and batched LCA —
//! what `accuracy spatial` does per layout, lost bits aside — on trees
//! of 2^22 vertices. The target: at most 5 s on the project's 2-core machine.
//! `cargo bench --bench spatial`

use analysis::Op;
use analysis::spatial::{Curve, Laid, LinearOrder, Placement, count};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use generators::{ChildOrder, Topology};
use std::hint::black_box;

// The allocator `accuracy` itself uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const N: usize = 1 << 22;

fn layout_and_count(c: &mut Criterion) {
    let mut group = c.benchmark_group("spatial-2^22");
    group.throughput(Throughput::Elements(N as u64));
    for topology in ["prufer", "random-recursive", "kary:2", "chain"] {
        let topology: Topology = topology.parse().unwrap();
        let tree = topology
            .generate(N, ChildOrder::Natural, &mut generators::rng(1))
            .unwrap();
        group.bench_function(format!("light-first-hilbert-{topology}"), |b| {
            b.iter(|| {
                let laid = Laid::new(black_box(&tree), LinearOrder::LightFirst);
                let placements = [Placement::new(Curve::Hilbert, N).unwrap()];
                count(&laid, &placements, &Op::ALL, 2, &[])
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(40));
    targets = layout_and_count
}
criterion_main!(benches);
