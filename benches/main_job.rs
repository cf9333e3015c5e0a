//! The main jobs, whole, as the CLI runs them, so that a slower one is seen:
//!
//! - `main-job/default-sweep`: `accuracy sweep --cond 1e1..1e10` (its defaults: 10 targets ×
//!   10 chains of 10^4 vertices, gensum, sequential, parallel, vectorial and vectorial-exact,
//!   both ops, exact reference, CPU) through `sweep::run` in this process, into a fresh
//!   directory each time, on every core;
//! - `main-job/whole-2^22`: one evaluation of a 2^22-vertex `profile` tree (20 levels,
//!   branching 2, gensum κ = 1e8) by all 8 algorithms, both ops, against the exact reference
//!   (`experiment::evaluate_into`, what `accuracy run` does), on one thread: its throughput is
//!   node × algorithm × op evaluations per second per core. (`benches/evaluation.rs`'s `whole`
//!   group times each algorithm and op alone at 2^18.) It then prints what one such evaluation
//!   costs in f32 sequential twins of a vertex and op, timed in alternation on the same tree.
//!
//! Each sets the allocator's handling of freed and huge pages that the command sets for its
//! memory estimate (`memory::pages`): the sweep keeps freed pages, without huge pages; the
//! 2^22 evaluation (at the default size) gives them back at once, with huge pages.
//!
//! `cargo bench --bench main_job` (`-- default-sweep` or `-- whole` for one). TREEFIX_WHOLE_LOG2
//! sets the whole evaluation's size (default 22); TREEFIX_WHOLE_PAGES=kept (or eager) has it
//! keep freed pages, without huge pages (or give them back at once, with them), whatever its
//! estimate.

use analysis::{Algorithm, Op, ReferenceKind};
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use generators::{ChildOrder, Topology, WeightModel};
use std::time::{Duration, Instant};
use treefix_accuracy::experiment::{self, Cpu};
use treefix_accuracy::inputs::WeightChoice;
use treefix_accuracy::memory;
use treefix_accuracy::sweep::{self, SweepParams};

// The allocator `accuracy` itself uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `accuracy sweep --cond 1e1..1e10`'s parameters.
fn default_sweep() -> SweepParams {
    SweepParams {
        targets: treefix_accuracy::cond::parse_cond("1e1..1e10")
            .expect("range")
            .targets(10),
        trees_per_target: 10,
        nodes: 10_000,
        topologies: vec![Topology::Chain],
        weights: WeightChoice::Model(WeightModel::Gensum),
        ops: Op::ALL.to_vec(),
        algos: Algorithm::main_job(),
        reference: ReferenceKind::Exact,
        child_orders: vec![ChildOrder::Natural],
        seed: 1,
        files: Vec::new(),
        shard: None,
        backend: Default::default(),
        exact_on: Default::default(),
    }
}

fn main_job(c: &mut Criterion) {
    let mut group = c.benchmark_group("main-job");
    group.sampling_mode(SamplingMode::Flat);
    let params = default_sweep();
    group.throughput(Throughput::Elements(
        (params.targets.len() * params.trees_per_target) as u64,
    ));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    // The allocator's handling of pages that `accuracy sweep` sets for this sweep.
    memory::pages::apply(&memory::sweep(&params, &[], false, rayon::current_num_threads()).memory);
    group.bench_function("default-sweep", |b| {
        b.iter(|| {
            let dir = tempfile::tempdir().expect("temporary directory");
            let lock = treefix_accuracy::lock::DirLock::acquire(dir.path(), "sweep").expect("lock");
            sweep::run(&params, &[], &lock, &Cpu, true, &|_| {}).expect("sweep")
        })
    });

    let log2: u32 = std::env::var("TREEFIX_WHOLE_LOG2")
        .ok()
        .map_or(22, |s| s.parse().expect("TREEFIX_WHOLE_LOG2: a number"));
    let n = 1usize << log2;
    let topology: Topology = "profile:20:2".parse().expect("topology");
    let mut rng = generators::rng(1);
    let tree = topology
        .generate(n, ChildOrder::Natural, &mut rng)
        .expect("tree");
    let w = WeightModel::Gensum
        .weights(n, 1e8, &mut rng)
        .expect("weights");
    let algos = Algorithm::ALL;
    // And what `accuracy run` sets for this tree on one thread: freed pages given back at once
    // (its estimate passes memory::EAGER_PURGE_FROM), huge pages on.
    let evaluation = memory::Evaluation {
        algos: &algos,
        ops: Op::ALL.len(),
        reference: ReferenceKind::Exact,
        gpu: false,
    };
    let mut estimate = memory::run(
        n as u64,
        &topology.to_string(),
        &evaluation,
        false,
        false,
        1,
    );
    // TREEFIX_WHOLE_PAGES=kept or =eager: the other policy, to price it (the memory the
    // command's own saves, the time it costs).
    match std::env::var("TREEFIX_WHOLE_PAGES").as_deref() {
        Ok("kept") => estimate.eager = false,
        Ok("eager") => estimate.eager = true,
        Ok(other) => panic!("TREEFIX_WHOLE_PAGES={other}: kept or eager"),
        Err(_) => {}
    }
    memory::pages::apply(&estimate);
    eprintln!(
        "whole-2^{log2}: freed pages {}, huge pages {}",
        if estimate.eager {
            "given back at once"
        } else {
            "kept"
        },
        if memory::pages::huge_pages_off() {
            "off"
        } else {
            "on"
        },
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    // Elements: node × algorithm × op evaluations, on one core.
    group.throughput(Throughput::Elements(
        (n * algos.len() * Op::ALL.len()) as u64,
    ));
    group.measurement_time(Duration::from_secs(1));
    // What `accuracy run` does with the tree, on the pool's one thread.
    let evaluate = || {
        pool.install(|| {
            experiment::evaluate_summaries(&tree, &w, &Op::ALL, &algos, ReferenceKind::Exact, &Cpu)
                .expect("evaluate")
        })
    };
    group.bench_function(format!("whole-2^{log2}"), |b| b.iter(evaluate));
    group.finish();

    // The same evaluation priced in the cheapest plain treefix, timed in alternation with it
    // on the same tree: a ratio within one run, so the machine's speed of the moment divides
    // out of it.
    if selected(&format!("main-job/whole-2^{log2}")) {
        let ops = Op::ALL.len() as f64;
        let walker = analysis::orders::Walker::new(&tree);
        let mut ratios: Vec<f64> = (0..3)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(evaluate());
                let per_evaluation = t.elapsed().as_secs_f64() / (ops * algos.len() as f64);
                // The twins are short: the median of several calls of both ops.
                let mut twins: Vec<f64> = (0..9)
                    .map(|_| {
                        let t = Instant::now();
                        pool.install(|| {
                            for op in Op::ALL {
                                std::hint::black_box(
                                    Algorithm::SEQUENTIAL.twin_on(&walker, &w, op),
                                );
                            }
                        });
                        t.elapsed().as_secs_f64() / ops
                    })
                    .collect();
                per_evaluation / analysis::stats::median(&mut twins).expect("nine")
            })
            .collect();
        let median = analysis::stats::median(&mut ratios).expect("three");
        eprintln!(
            "whole-2^{log2}: a node × algorithm × op evaluation takes {median:.1}× the f32 \
             sequential twin's time per vertex and op (3 rounds alternated: {:.1}–{:.1})",
            ratios.iter().copied().fold(f64::INFINITY, f64::min),
            ratios.iter().copied().fold(0.0, f64::max),
        );
    }
}

/// Whether criterion's filter (the arguments that are not options) selects the benchmark
/// `name`: all do when none is given.
fn selected(name: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(1));
    targets = main_job
}
criterion_main!(benches);
