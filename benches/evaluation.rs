//! Where the time of one evaluation goes: per algorithm and op, the exact reference, the CPU
//! twin, the a priori bounds, the running bound (the twin's additions replayed), the per-node
//! errors, the summaries, and the whole evaluation as `accuracy run` performs it
//! (`experiment::evaluate_into`, on one thread here), in vertices per second. A `profile`
//! tree (20 levels, branching 2), the shape of `run`'s largest measurements, at gensum κ = 1e8.
//! `cargo bench --bench evaluation` (`-- whole` for the end-to-end figures only).

use analysis::bounds::{self, LAMBDA};
use analysis::metrics::ErrorSummary;
use analysis::{Algorithm, NodeError, Op, Reference, ReferenceKind};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use generators::{ChildOrder, Topology, WeightModel};
use std::hint::black_box;
use treefix_accuracy::experiment::{self, Cpu, Summaries};

// The allocator `accuracy` itself uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const N: usize = 1 << 18;

fn evaluation(c: &mut Criterion) {
    let topology: Topology = "profile:20:2".parse().unwrap();
    let mut rng = generators::rng(1);
    let tree = topology.generate(N, ChildOrder::Natural, &mut rng).unwrap();
    let w = WeightModel::Gensum.weights(N, 1e8, &mut rng).unwrap();
    let mut scratch = rug::Float::new(generators::exact_sum::EXACT_PREC);
    for op in Op::ALL {
        let mut group = c.benchmark_group(format!("evaluation-{op}"));
        group.throughput(Throughput::Elements(N as u64));
        group.bench_function("reference-exact", |b| {
            b.iter(|| Reference::compute(ReferenceKind::Exact, black_box(&tree), &w, op))
        });
        let reference = Reference::compute(ReferenceKind::Exact, &tree, &w, op);
        for algo in Algorithm::ALL {
            let name = algo.name();
            group.bench_function(format!("{name}/twin"), |b| {
                b.iter(|| algo.twin(black_box(&tree), &w, op))
            });
            group.bench_function(format!("{name}/a-priori"), |b| {
                b.iter(|| bounds::a_priori(black_box(&tree), &w, algo, op, LAMBDA))
            });
            group.bench_function(format!("{name}/running"), |b| {
                b.iter(|| bounds::running(black_box(&tree), &w, algo, op))
            });
            let values = algo.twin(&tree, &w, op);
            group.bench_function(format!("{name}/errors"), |b| {
                b.iter(|| {
                    let errors: Vec<NodeError> = values
                        .iter()
                        .enumerate()
                        .map(|(v, &x)| reference.error(v, x, &mut scratch))
                        .collect();
                    ErrorSummary::from_errors(&errors)
                })
            });
            let errors: Vec<NodeError> = values
                .iter()
                .enumerate()
                .map(|(v, &x)| reference.error(v, x, &mut scratch))
                .collect();
            let node_bounds = bounds::node_bounds(&tree, &w, algo, op, &values);
            group.bench_function(format!("{name}/summaries"), |b| {
                b.iter(|| {
                    bounds::summarize(&reference, &values, &errors, &node_bounds, &mut scratch)
                })
            });
        }
        group.finish();
    }
    // End to end, one algorithm and op at a time, reference included: what `run` does per
    // evaluation.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut group = c.benchmark_group("whole");
    group.throughput(Throughput::Elements(N as u64));
    for algo in Algorithm::ALL {
        for op in Op::ALL {
            group.bench_function(format!("{}-{op}", algo.name()), |b| {
                b.iter(|| {
                    pool.install(|| {
                        let mut sink = Summaries::default();
                        experiment::evaluate_into(
                            &tree,
                            &w,
                            &[op],
                            &[algo],
                            ReferenceKind::Exact,
                            &Cpu,
                            &|_| {},
                            &mut sink,
                        )
                        .unwrap();
                        sink.measured
                    })
                })
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(2));
    targets = evaluation
}
criterion_main!(benches);
