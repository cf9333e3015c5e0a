//! Where the time of one evaluation goes, and what a whole `run` achieves.
//!
//! - `evaluation-{op}`: per algorithm and op on a 2^18-vertex `profile` tree (20 levels,
//!   branching 2) at gensum κ = 1e8, the exact reference, the CPU twin, the walk (the order
//!   walked once: the twin's additions replayed with their running bounds, and the a priori
//!   bounds) and the measures (per-node errors, ulps, bound checks, summaries), in vertices
//!   per second;
//! - `whole`: each algorithm and op evaluated as `accuracy run` evaluates it
//!   (`experiment::evaluate_into`, reference included), on one thread;
//! - `run-2^22`: `accuracy run --topology profile --nodes 4194304 --cond 1e8`'s evaluation,
//!   all eight algorithms and both ops on one thread, in node × algorithm × op evaluations
//!   per second per core; it then prints, per algorithm and op, whether the a priori bounds
//!   bound every node's error and by how much (the largest error / bound, and the bound's
//!   lost bits against the measured ones).
//!
//! `cargo bench --bench evaluation` (`-- whole`, `-- run-2^22` for one group).

use analysis::bounds::{LAMBDA, NodeBounds};
use analysis::measure::measure;
use analysis::orders::Walker;
use analysis::{Algorithm, Op, Reference, ReferenceKind};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use std::hint::black_box;
use treefix_accuracy::experiment::{self, Cpu, Summaries};

// The allocator `accuracy` itself uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const N: usize = 1 << 18;
const RUN_N: usize = 1 << 22;

/// The profile tree of `n` vertices and its gensum weights at κ = 1e8, as `accuracy run
/// --topology profile --cond 1e8` (seed 1) generates them.
fn profile(n: usize) -> (Tree, Vec<f32>) {
    let topology: Topology = "profile:20:2".parse().unwrap();
    let mut rng = generators::rng(1);
    let tree = topology.generate(n, ChildOrder::Natural, &mut rng).unwrap();
    let w = WeightModel::Gensum.weights(n, 1e8, &mut rng).unwrap();
    (tree, w)
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
}

fn parts(c: &mut Criterion) {
    let (tree, w) = profile(N);
    for op in Op::ALL {
        let mut group = c.benchmark_group(format!("evaluation-{op}"));
        group.throughput(Throughput::Elements(N as u64));
        group.bench_function("reference-exact", |b| {
            b.iter(|| Reference::compute(ReferenceKind::Exact, black_box(&tree), &w, op))
        });
        let reference = Reference::compute(ReferenceKind::Exact, &tree, &w, op);
        // One walker for the tree, as an evaluation has: contraction's schedule is built
        // once, outside the timings.
        let walker = Walker::new(&tree);
        for algo in Algorithm::ALL {
            let name = algo.name();
            group.bench_function(format!("{name}/twin"), |b| {
                b.iter(|| algo.twin_on(black_box(&walker), &w, op))
            });
            group.bench_function(format!("{name}/walk"), |b| {
                b.iter(|| algo.walk(black_box(&walker), &w, op, LAMBDA))
            });
            let values = algo.twin_on(&walker, &w, op);
            let bounds = NodeBounds::of(algo.walk(&walker, &w, op, LAMBDA), &values);
            group.bench_function(format!("{name}/measure"), |b| {
                b.iter(|| measure(&reference, black_box(&values), &bounds))
            });
        }
        group.finish();
    }
    // End to end, one algorithm and op at a time, reference included: what `run` does per
    // evaluation (the time model's `seconds`, src/memory.rs).
    let pool = one_thread();
    let mut group = c.benchmark_group("whole");
    group.throughput(Throughput::Elements(N as u64));
    for algo in Algorithm::ALL {
        for op in Op::ALL {
            group.bench_function(format!("{}-{op}", algo.name()), |b| {
                b.iter(|| pool.install(|| evaluate(&tree, &w, &[op], &[algo])))
            });
        }
    }
    group.finish();
}

/// The summaries of `algos` × `ops` evaluated on the CPU with the exact reference.
fn evaluate(tree: &Tree, w: &[f32], ops: &[Op], algos: &[Algorithm]) -> Vec<experiment::Measured> {
    let mut sink = Summaries::default();
    experiment::evaluate_into(
        tree,
        w,
        ops,
        algos,
        ReferenceKind::Exact,
        &Cpu,
        &|_| {},
        &mut sink,
    )
    .unwrap();
    sink.measured
}

fn run_2_22(c: &mut Criterion) {
    let (tree, w) = profile(RUN_N);
    let pool = one_thread();
    let mut group = c.benchmark_group("run-2^22");
    // Node × algorithm × op evaluations: elements per second is evaluations per second on
    // one core.
    let evaluations = RUN_N * Algorithm::ALL.len() * Op::ALL.len();
    group.throughput(Throughput::Elements(evaluations as u64));
    group.sample_size(10);
    let mut last = Vec::new();
    group.bench_function("profile-all-algorithms", |b| {
        b.iter(|| last = pool.install(|| evaluate(&tree, &w, &Op::ALL, &Algorithm::ALL)))
    });
    group.finish();
    eprintln!(
        "run-2^22: the a priori bounds against the errors (largest error / bound; bound and measured lost bits)"
    );
    for m in &last {
        let b = &m.bound_summary;
        eprintln!(
            "  {:8} {:22} violations {} (sharp {}, running {})  max error/bound {:.3e}  bound {:.2} bits  measured {:.2} bits",
            m.op.to_string(),
            m.algorithm.name(),
            b.bound_violations,
            b.sharp_violations,
            b.running_violations,
            b.max_tightness,
            b.max_bound_lost_bits,
            m.summary.max_lost_bits,
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(2));
    targets = parts, run_2_22
}
criterion_main!(benches);
