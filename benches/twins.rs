//! Throughput of the CPU twins (`Algorithm::twin`) of every algorithm and op, in vertices per
//! second, on the paper's two extreme topologies (chain: one vertex per level; star: one
//! level) and a random recursive tree, 10^5 vertices each. `cargo bench --bench twins`

use analysis::{Algorithm, Op};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use generators::{ChildOrder, Topology, WeightModel};
use std::hint::black_box;

// The allocator `accuracy` itself uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const N: usize = 100_000;

fn twins(c: &mut Criterion) {
    for topology in [Topology::Chain, Topology::Star, Topology::RandomRecursive] {
        let mut group = c.benchmark_group(format!("cpu-twin-{topology}"));
        let mut rng = generators::rng(2);
        let tree = topology.generate(N, ChildOrder::Natural, &mut rng).unwrap();
        let w = WeightModel::Normal.weights(N, 1.0, &mut rng).unwrap();
        group.throughput(Throughput::Elements(N as u64));
        for algo in Algorithm::ALL {
            for op in Op::ALL {
                group.bench_function(format!("{}-{}", algo.name(), op.name()), |b| {
                    b.iter(|| algo.twin(black_box(&tree), black_box(&w), op))
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = twins
}
criterion_main!(benches);
