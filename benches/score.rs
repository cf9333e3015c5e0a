//! The price of grading: `score` (the library's [`treefix_accuracy::score::score`]) against
//! the exact treefix of the same tree (`analysis::exact::treefix`), which it must compute
//! anyway. The target: a score of 10^6 vertices costs at most 5× the exact treefix.
//!
//! Trees: chain, star and random-recursive of 2^20 vertices, gensum weights at κ = 1e8, the
//! results judged being the sequential twin's (an f32 cumsum on the chain). Contenders per
//! tree and op:
//!
//! - `exact-treefix`: `exact::treefix`;
//! - `score`: the default score (errors, ulps, lost bits, the order-independent bounds);
//! - `score-all-bounds`: the score with every algorithm's a priori bounds, as
//!   `score --algos all` asks for.
//!
//! Criterion times each; then the ratios score / exact-treefix are measured again with the
//! contenders alternating round by round (the machine is shared) and printed as a table.
//! `cargo bench --bench score` (`-- --ratios-only` skips criterion).

use analysis::{Algorithm, Op, exact};
use criterion::{BenchmarkId, Criterion, Throughput};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use std::hint::black_box;
use std::time::Instant;
use treefix_accuracy::score::{ScoreOptions, score};

// The allocator `accuracy` itself uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Rounds of the alternating measurement.
const ROUNDS: usize = 7;

struct Case {
    name: String,
    tree: Tree,
    w: Vec<f32>,
}

fn cases() -> Vec<Case> {
    let n = 1usize << 20;
    let w = WeightModel::Gensum
        .weights(n, 1e8, &mut generators::rng(7))
        .expect("weights");
    ["chain", "star", "random-recursive"]
        .iter()
        .map(|t| {
            let topology: Topology = t.parse().expect("topology");
            Case {
                name: format!("{topology}/2^20"),
                tree: topology
                    .generate(n, ChildOrder::Natural, &mut generators::rng(1))
                    .expect("tree"),
                w: w.clone(),
            }
        })
        .collect()
}

/// Named timed closures.
type Contenders<'a> = Vec<(&'static str, Box<dyn Fn() + 'a>)>;

fn contenders<'a>(case: &'a Case, op: Op, results: &'a [f32]) -> Contenders<'a> {
    let (t, w) = (&case.tree, &case.w[..]);
    let judge = move |algorithms: Vec<Algorithm>| {
        let options = ScoreOptions {
            algorithms,
            ..ScoreOptions::default()
        };
        move || {
            black_box(
                score(black_box(t), w, &[(op, results)], &options, &|_| None).expect("score"),
            );
        }
    };
    vec![
        (
            "exact-treefix",
            Box::new(move || {
                black_box(exact::treefix(black_box(t), w, op));
            }),
        ),
        ("score", Box::new(judge(Vec::new()))),
        ("score-all-bounds", Box::new(judge(Algorithm::ALL.to_vec()))),
    ]
}

/// Median seconds of each contender over [`ROUNDS`] rounds, the contenders alternating.
fn alternating(contenders: &Contenders<'_>) -> Vec<f64> {
    let mut times = vec![Vec::with_capacity(ROUNDS); contenders.len()];
    for (_, f) in contenders {
        f();
    }
    for _ in 0..ROUNDS {
        for (i, (_, f)) in contenders.iter().enumerate() {
            let t = Instant::now();
            f();
            times[i].push(t.elapsed().as_secs_f64());
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect()
}

fn main() {
    let ratios_only = std::env::args().any(|a| a == "--ratios-only");
    let cases = cases();
    let results: Vec<Vec<Vec<f32>>> = cases
        .iter()
        .map(|c| {
            Op::ALL
                .iter()
                .map(|&op| Algorithm::SEQUENTIAL.twin(&c.tree, &c.w, op))
                .collect()
        })
        .collect();
    if !ratios_only {
        let mut c = Criterion::default()
            .sample_size(10)
            .measurement_time(std::time::Duration::from_secs(2))
            .configure_from_args();
        for (case, r) in cases.iter().zip(&results) {
            let mut group = c.benchmark_group(format!("score/{}", case.name));
            group.throughput(Throughput::Elements(case.w.len() as u64));
            for (k, &op) in Op::ALL.iter().enumerate() {
                for (name, f) in contenders(case, op, &r[k]) {
                    group.bench_function(BenchmarkId::new(name, op.name()), |b| b.iter(&f));
                }
            }
            group.finish();
        }
        c.final_summary();
    }
    println!(
        "\nratios, medians of {ROUNDS} alternating rounds, {} threads:",
        rayon::current_num_threads()
    );
    println!(
        "{:<26} {:>8} {:>12} {:>12} {:>12} {:>10} {:>10}",
        "case", "op", "exact (ms)", "score (ms)", "all (ms)", "score/ex", "all/ex"
    );
    for (case, r) in cases.iter().zip(&results) {
        for (k, &op) in Op::ALL.iter().enumerate() {
            let t = alternating(&contenders(case, op, &r[k]));
            println!(
                "{:<26} {:>8} {:>12.1} {:>12.1} {:>12.1} {:>10.2} {:>10.2}",
                case.name,
                op.name(),
                t[0] * 1e3,
                t[1] * 1e3,
                t[2] * 1e3,
                t[1] / t[0],
                t[2] / t[0]
            );
        }
    }
}
