//! The price of exactness on the CPU: the exact treefix (`analysis::exact`) against the f32
//! sequential twin, per vertex, and against the fastest exact summation we know of, the
//! `xsum` crate (Neal's superaccumulators) summing the same weights once; a naive f32 loop
//! over them is the floor.
//!
//! Trees: chain, star, random-recursive and profile (20 levels, branching 2) of 2^20 and 2^22
//! vertices, gensum weights at κ = 1e8 (the same weights on every topology of a size), both
//! ops; then weights spanning f32's whole range (2^-149 … 1e38: the most limbs) on the first
//! three at 2^20. Contenders:
//!
//! - `sequential-twin`: `Algorithm::SEQUENTIAL.twin`, the f32 treefix in the tree's order;
//! - `exact-twin`: `exact::correctly_rounded`, every vertex's correctly rounded f32
//!   (vectorial-exact's CPU twin);
//! - `exact-treefix`: `exact::treefix`, that and what the exact reference keeps (the exact
//!   values, their f64 roundings, Σ|terms|);
//! - `xsum-*`: one exact sum of the n weights (converted to f64 beforehand, untimed), each
//!   variant of xsum 0.1.6 whose answer equals ours (checked first; a wrong one is reported
//!   and not timed);
//! - `naive-f32`: `w.iter().sum::<f32>()`.
//!
//! Criterion times each; then the ratios the targets read are measured again with the
//! contenders alternating, round by round, in this process (the machine is shared: a ratio
//! of two medians taken side by side is what survives its noise), and printed as a table.
//! `cargo bench --bench exact` (`-- --ratios-only` skips criterion; TREEFIX_EXACT_CASES=a,b
//! keeps the cases whose name contains a or b).
//!
//! `-- --formats` measures instead, per storage format (f16, bf16, f32), the exact treefix
//! rounded to it (`exact::correctly_rounded_in`) against the sequential twin adding in it
//! (`Algorithm::twin_in`), alternating, on chain, star and random-recursive trees of 2^20
//! vertices with uniform weights in [−1, 1) rounded to the format; and for f64 the same
//! (`exact::correctly_rounded_f64` against `Algorithm::twin_f64`) on uniform weights of 53
//! bits and on gensum weights drawn in f64 at κ = 1e8 and 1e16.

use analysis::orders::Walker;
use analysis::{Algorithm, Op, exact};
use criterion::{BenchmarkId, Criterion, Throughput};
use generators::exact_sum::ExactSum;
use generators::{Arithmetic, ChildOrder, Precision, Topology, Tree, WeightModel};
use std::hint::black_box;
use std::time::Instant;
use xsum::{Xsum, XsumAuto, XsumLarge, XsumSmall};

// The allocator `accuracy` itself uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Rounds of the alternating measurement.
const ROUNDS: usize = 11;

/// One tree and its weights.
struct Case {
    name: String,
    tree: Tree,
    w: Vec<f32>,
    w64: Vec<f64>,
    /// The xsum variants whose sum of `w` is ours.
    xsum_right: Vec<XsumKind>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum XsumKind {
    Small,
    Large,
    Auto,
}

impl XsumKind {
    const ALL: [XsumKind; 3] = [XsumKind::Small, XsumKind::Large, XsumKind::Auto];
    fn name(self) -> &'static str {
        match self {
            XsumKind::Small => "xsum-small",
            XsumKind::Large => "xsum-large",
            XsumKind::Auto => "xsum-auto",
        }
    }
    fn sum(self, w: &[f64]) -> f64 {
        fn run<X: Xsum>(w: &[f64]) -> f64 {
            let mut x = X::new();
            x.add_list(w);
            x.sum()
        }
        match self {
            XsumKind::Small => run::<XsumSmall>(w),
            XsumKind::Large => run::<XsumLarge>(w),
            XsumKind::Auto => run::<XsumAuto>(w),
        }
    }
}

/// The weights' exact sum rounded to f64, and each xsum variant's answer checked against it
/// (printed; the right ones returned).
fn check_xsum(what: &str, w: &[f32], w64: &[f64]) -> Vec<XsumKind> {
    let exact = w
        .iter()
        .fold(ExactSum::ZERO, |acc, &x| acc + ExactSum::from_f32(x))
        .to_f64();
    XsumKind::ALL
        .into_iter()
        .filter(|k| {
            let got = k.sum(w64);
            let right = got.to_bits() == exact.to_bits();
            if !right {
                println!(
                    "{what}: {} returned {got:e}, the exact sum rounded to f64 is {exact:e}: wrong, not timed",
                    k.name()
                );
            }
            right
        })
        .collect()
}

fn full_range(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| [f32::from_bits(1), 1e38, -1.5][i % 3])
        .collect()
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let topologies: Vec<Topology> = ["chain", "star", "random-recursive", "profile:20:2"]
        .iter()
        .map(|t| t.parse().expect("topology"))
        .collect();
    for log2 in [20, 22] {
        let n = 1usize << log2;
        let w = WeightModel::Gensum
            .weights(n, 1e8, &mut generators::rng(7))
            .expect("weights");
        let w64: Vec<f64> = w.iter().map(|&x| x as f64).collect();
        let right = check_xsum(&format!("gensum κ=1e8, 2^{log2}"), &w, &w64);
        for &topology in &topologies {
            out.push(Case {
                name: format!("{topology}/2^{log2}"),
                tree: topology
                    .generate(n, ChildOrder::Natural, &mut generators::rng(1))
                    .expect("tree"),
                w: w.clone(),
                w64: w64.clone(),
                xsum_right: right.clone(),
            });
        }
    }
    let n = 1 << 20;
    let w = full_range(n);
    let w64: Vec<f64> = w.iter().map(|&x| x as f64).collect();
    let right = check_xsum("full range, 2^20", &w, &w64);
    for &topology in &topologies[..3] {
        out.push(Case {
            name: format!("{topology}/2^20/full-range"),
            tree: topology
                .generate(n, ChildOrder::Natural, &mut generators::rng(1))
                .expect("tree"),
            w: w.clone(),
            w64: w64.clone(),
            xsum_right: right.clone(),
        });
    }
    out
}

/// Named timed closures.
type Contenders<'a> = Vec<(String, Box<dyn Fn() + 'a>)>;

/// The contenders on one case and op, by name.
fn contenders<'a>(case: &'a Case, op: Op) -> Contenders<'a> {
    let (t, w) = (&case.tree, &case.w[..]);
    let mut out: Contenders<'a> = vec![
        (
            "sequential-twin".into(),
            Box::new(move || {
                black_box(Algorithm::SEQUENTIAL.twin(black_box(t), w, op));
            }),
        ),
        (
            "exact-twin".into(),
            Box::new(move || {
                black_box(exact::correctly_rounded(black_box(t), w, op));
            }),
        ),
        (
            "exact-treefix".into(),
            Box::new(move || {
                black_box(exact::treefix(black_box(t), w, op));
            }),
        ),
    ];
    for &k in &case.xsum_right {
        let w64 = &case.w64[..];
        out.push((
            k.name().into(),
            Box::new(move || {
                black_box(k.sum(black_box(w64)));
            }),
        ));
    }
    out.push((
        "naive-f32".into(),
        Box::new(move || {
            black_box(black_box(w).iter().sum::<f32>());
        }),
    ));
    out
}

fn criterion_part(cases: &[Case]) {
    let mut c = Criterion::default()
        .sample_size(10)
        .measurement_time(std::time::Duration::from_secs(1))
        .configure_from_args();
    for case in cases {
        let mut group = c.benchmark_group(format!("exact/{}", case.name));
        group.throughput(Throughput::Elements(case.w.len() as u64));
        for op in Op::ALL {
            for (name, f) in contenders(case, op) {
                // The sums do not depend on the op: timed once.
                if op == Op::Leaffix && (name.starts_with("xsum") || name == "naive-f32") {
                    continue;
                }
                group.bench_function(BenchmarkId::new(name, op.name()), |b| b.iter(&f));
            }
        }
        group.finish();
    }
    c.final_summary();
}

/// Median seconds of each contender over [`ROUNDS`] rounds, the contenders alternating.
fn alternating(contenders: &Contenders<'_>) -> Vec<f64> {
    let mut times = vec![Vec::with_capacity(ROUNDS); contenders.len()];
    for (_, f) in contenders {
        f(); // warm-up: pages, caches, the pool
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

fn ratios(cases: &[Case]) {
    let threads = rayon::current_num_threads();
    println!(
        "\nratios, medians of {ROUNDS} alternating rounds, {threads} threads (exact-*: every core; the others one):"
    );
    println!(
        "{:<34} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  (ns per vertex; ratios of exact-twin / exact-treefix to each)",
        "case", "op", "seq-twin", "exact-twin", "exact-tfx", "xsum", "naive", "twin/seq"
    );
    for case in cases {
        for op in Op::ALL {
            let c = contenders(case, op);
            let t = alternating(&c);
            let ns = |name: &str| {
                c.iter()
                    .position(|(n, _)| n == name)
                    .map(|i| t[i] * 1e9 / case.w.len() as f64)
            };
            // The fastest right xsum variant.
            let xsum = case
                .xsum_right
                .iter()
                .filter_map(|k| ns(k.name()).map(|x| (x, k.name())))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            let (seq, twin, tfx, naive) = (
                ns("sequential-twin").unwrap(),
                ns("exact-twin").unwrap(),
                ns("exact-treefix").unwrap(),
                ns("naive-f32").unwrap(),
            );
            let x = xsum.map_or(f64::NAN, |x| x.0);
            println!(
                "{:<34} {:>8} {seq:>10.2} {twin:>10.2} {tfx:>10.2} {x:>10.2} {naive:>10.2} {:>10.2}  treefix/seq {:.2}, twin/xsum {:.2}, treefix/xsum {:.2}, twin/naive {:.1} ({})",
                case.name,
                op.name(),
                twin / seq,
                tfx / seq,
                twin / x,
                tfx / x,
                twin / naive,
                xsum.map_or("no right xsum", |x| x.1),
            );
        }
    }
}

/// The exact treefix in each format against the sequential twin adding in it.
fn format_ratios() {
    let n = 1 << 20;
    let threads = rayon::current_num_threads();
    println!(
        "\nformats, 2^20 vertices, medians of {ROUNDS} alternating rounds, {threads} threads (exact: every core; sequential: one):"
    );
    println!(
        "{:<18} {:>10} {:>8} {:>10} {:>10} {:>10}",
        "tree", "format", "op", "seq ns/v", "exact ns/v", "exact/seq"
    );
    let uniform = WeightModel::Uniform
        .weights(n, 1.0, &mut generators::rng(7))
        .expect("weights");
    for topology in ["chain", "star", "random-recursive"] {
        let tree = topology
            .parse::<Topology>()
            .expect("topology")
            .generate(n, ChildOrder::Natural, &mut generators::rng(1))
            .expect("tree");
        let walker = Walker::new(&tree);
        for storage in [Precision::F16, Precision::Bf16, Precision::F32] {
            let w: Vec<f32> = uniform
                .iter()
                .map(|&x| storage.round_f32(2.0 * x - 1.0))
                .collect();
            let arith = Arithmetic::same(storage);
            for op in Op::ALL {
                let (t, w, walker) = (&tree, &w[..], &walker);
                let c: Contenders<'_> = vec![
                    (
                        "sequential".into(),
                        Box::new(move || {
                            black_box(Algorithm::SEQUENTIAL.twin_in(walker, w, op, arith));
                        }),
                    ),
                    (
                        "exact".into(),
                        Box::new(move || {
                            black_box(exact::correctly_rounded_in(black_box(t), w, op, storage));
                        }),
                    ),
                ];
                print_pair(topology, storage.name(), op, &c, n);
            }
        }
        for (what, w) in f64_weights(n) {
            for op in Op::ALL {
                let (t, w, walker) = (&tree, &w[..], &walker);
                let c: Contenders<'_> = vec![
                    (
                        "sequential".into(),
                        Box::new(move || {
                            black_box(Algorithm::SEQUENTIAL.twin_f64(walker, w, op));
                        }),
                    ),
                    (
                        "exact".into(),
                        Box::new(move || {
                            black_box(exact::correctly_rounded_f64(black_box(t), w, op));
                        }),
                    ),
                ];
                print_pair(topology, &what, op, &c, n);
            }
        }
    }
}

/// One line of the formats table: the two contenders' medians per vertex and their ratio.
fn print_pair(topology: &str, format: &str, op: Op, c: &Contenders<'_>, n: usize) {
    let times = alternating(c);
    let ns = |i: usize| times[i] * 1e9 / n as f64;
    println!(
        "{topology:<18} {format:>10} {:>8} {:>10.2} {:>10.2} {:>10.2}",
        op.name(),
        ns(0),
        ns(1),
        times[1] / times[0]
    );
}

/// f64 weights: uniform in [−1, 1) with 53-bit fractions, and gensum's drawn in f64 at
/// κ = 1e8 and 1e16.
fn f64_weights(n: usize) -> Vec<(String, Vec<f64>)> {
    let mut out = Vec::new();
    for (what, model, cond) in [
        ("f64", WeightModel::Uniform, 1.0),
        ("f64 κ1e8", WeightModel::Gensum, 1e8),
        ("f64 κ1e16", WeightModel::Gensum, 1e16),
    ] {
        let w = model
            .weights_f64(n, cond, &mut generators::rng(8))
            .expect("weights");
        out.push((what.to_string(), w));
    }
    out
}

fn main() {
    if std::env::args().any(|a| a == "--formats") {
        format_ratios();
        return;
    }
    let ratios_only = std::env::args().any(|a| a == "--ratios-only");
    // TREEFIX_EXACT_CASES: only the cases whose name contains one of these comma-separated
    // strings (the whole run takes long on big random trees).
    let only: Option<Vec<String>> = std::env::var("TREEFIX_EXACT_CASES")
        .ok()
        .map(|s| s.split(',').map(str::to_owned).collect());
    let mut cases = cases();
    if let Some(only) = &only {
        cases.retain(|c| only.iter().any(|o| c.name.contains(o.as_str())));
    }
    if !ratios_only {
        criterion_part(&cases);
    }
    // On every core (the exact walks cut big trees into blocks), then on one. Each contender
    // is called from a worker of the pool, as `accuracy` calls them. Called from a thread
    // outside it that was just busy (the sequential twin, a naive loop), the walk on 2
    // threads was bimodal: at times the second worker was not scheduled for milliseconds and
    // one did all the blocks (star leaffix at 2^20: 2.9 or 5.3 ns per vertex, round by round).
    for threads in [rayon::current_num_threads(), 1] {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| ratios(&cases));
    }
}
