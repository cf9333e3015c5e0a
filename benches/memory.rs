//! Measures the per-vertex bytes of each component of an evaluation, as the memory model of
//! `src/memory/model.rs` counts them: the tree and its generation, the weights, the reference of one
//! op, each algorithm's outcome (held) and its peak while it is evaluated, the dump's scan
//! prefix, the tree-file readers. A counting allocator records the bytes live and their peak,
//! so the figures are the allocations themselves, without the allocator's own overhead (that
//! part, and the process's fixed size, come from peak RSS: `memory::Model::FRAGMENTATION`).
//!
//! Last, per topology, the figure `accuracy run` lives by: the peak bytes per vertex of a whole
//! evaluation (every algorithm, both ops, exact reference, as `experiment::evaluate_into`
//! streams it) above the tree and weights, beside the memory model's estimate of it.
//!
//! `RAYON_NUM_THREADS=1 cargo bench --bench memory -- [N]` (default 2·10^5).

use analysis::{Algorithm, Op, Reference, ReferenceKind};
use generators::{ChildOrder, Topology, WeightModel};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use treefix_accuracy::experiment::{self, Cpu};
use treefix_accuracy::memory;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                let now = LIVE.fetch_add(new - l.size(), Relaxed) + new - l.size();
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f`; returns its result, its peak bytes above the bytes live before, and the bytes it
/// left live (both per vertex).
fn measure<T>(n: usize, f: impl FnOnce() -> T) -> (T, f64, f64) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let out = f();
    let peak = PEAK.load(Relaxed) - before;
    let held = LIVE.load(Relaxed).saturating_sub(before);
    (out, peak as f64 / n as f64, held as f64 / n as f64)
}

fn main() {
    // `cargo bench` passes flags of its own (`--bench`): N is the first number.
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|s| s.parse().ok())
        .unwrap_or(200_000);
    println!("n = {n}; bytes per vertex: peak above what was live before, and held after");
    let topologies: Vec<Topology> = [
        "chain",
        "star",
        "random-recursive",
        "kary",
        "caterpillar-legs",
        "profile",
    ]
    .iter()
    .map(|t| t.parse().expect("topology"))
    .collect();
    readers(n);
    for topology in topologies {
        let (tree, tp, th) = measure(n, || {
            topology
                .generate(n, ChildOrder::Natural, &mut generators::rng(1))
                .expect("tree")
        });
        println!("{topology:<18} tree        peak {tp:7.1} held {th:7.1}");
        let mut worst_ref = (0.0f64, 0.0f64);
        let mut w_gensum = Vec::new();
        for model in ["gensum", "uniform", "lognormal", "integers"] {
            let model: WeightModel = model.parse().expect("model");
            let (w, wp, wh) = measure(n, || {
                model
                    .weights(n, 1e8, &mut generators::rng(2))
                    .expect("weights")
            });
            for op in Op::ALL {
                for kind in [ReferenceKind::Exact, ReferenceKind::Dd] {
                    let (r, rp, rh) = measure(n, || Reference::compute(kind, &tree, &w, op));
                    drop(r);
                    println!(
                        "{topology:<18} weights {model:<9} {wp:5.1}/{wh:4.1}  {op} reference {:<5} peak {rp:7.1} held {rh:7.1}",
                        kind.name()
                    );
                    if kind == ReferenceKind::Exact {
                        worst_ref = (worst_ref.0.max(rp), worst_ref.1.max(rh));
                    }
                }
            }
            if model == WeightModel::Gensum {
                w_gensum = w;
            }
        }
        let w = w_gensum;
        for op in Op::ALL {
            let (_, _, rh) = measure(n, || {
                Reference::compute(ReferenceKind::Exact, &tree, &w, op)
            });
            for algo in Algorithm::ALL {
                // One algorithm's evaluation with its reference, minus the reference alone.
                let (res, ep, eh) = measure(n, || {
                    experiment::evaluate_weighted(
                        &tree,
                        &w,
                        &[op],
                        &[algo],
                        ReferenceKind::Exact,
                        &Cpu,
                    )
                    .expect("evaluate")
                });
                drop(res);
                println!(
                    "{topology:<18} {op:<8} {algo:<22} peak {:7.1} held {:7.1}",
                    ep - rh,
                    eh - rh
                );
            }
            let (_, dp, _) = measure(n, || analysis::metrics::scan_abs_prefix(&tree, &w, op));
            println!("{topology:<18} {op:<8} dump scan prefix      peak {dp:7.1}");
        }
        println!(
            "{topology:<18} worst exact reference: peak {:.1} held {:.1}",
            worst_ref.0, worst_ref.1
        );
        widest_exact_scale(n, topology, &tree);
        whole_run(n, topology, &tree, &w);
    }
}

/// vectorial-exact at its most limbs: weights from the smallest subnormal to near f32's
/// largest, so that its fixed point spans the whole f32 range (its peak grows with the limbs;
/// the others do not depend on the weights).
fn widest_exact_scale(n: usize, topology: Topology, tree: &generators::Tree) {
    let w: Vec<f32> = (0..n)
        .map(|i| match i % 3 {
            0 => f32::from_bits(1),
            1 => 1e38,
            _ => -1.5,
        })
        .collect();
    let limbs = generators::fixed::Scale::for_weights(&w)
        .expect("finite weights")
        .gpu_words();
    for op in Op::ALL {
        let (_, _, rh) = measure(n, || Reference::compute(ReferenceKind::Exact, tree, &w, op));
        let algo = Algorithm::VECTORIAL_EXACT;
        let (res, ep, eh) = measure(n, || {
            experiment::evaluate_weighted(tree, &w, &[op], &[algo], ReferenceKind::Exact, &Cpu)
                .expect("evaluate")
        });
        drop(res);
        println!(
            "{topology:<18} {op:<8} {algo} at {limbs} limbs peak {:7.1} held {:7.1}",
            ep - rh,
            eh - rh
        );
    }
}

/// The whole evaluation of `run` on one tree: its peak above the tree and weights, and the
/// model's estimate of the same (`memory::Evaluation::per_vertex`, less the allocator's pages,
/// which a counting allocator does not see).
fn whole_run(n: usize, topology: Topology, tree: &generators::Tree, w: &[f32]) {
    let algos = Algorithm::ALL;
    let (_, peak, _) = measure(n, || {
        experiment::evaluate_summaries(tree, w, &Op::ALL, &algos, ReferenceKind::Exact, &Cpu)
            .expect("evaluate")
    });
    let eval = memory::Evaluation {
        algos: &algos,
        ops: Op::ALL.len(),
        reference: ReferenceKind::Exact,
        gpu: false,
    };
    let model = eval.per_vertex(false) - memory::model::ALLOCATOR_PER_VERTEX;
    println!(
        "{topology:<18} run, {} algorithms, both ops: peak {peak:7.1} above tree and weights (model {model:.1})",
        algos.len()
    );
}

/// The readers' peak above the file's bytes, per vertex: a random recursive tree written as a
/// parent array (with weights), a Matrix Market graph (its edges, valued; then the same graph
/// with one isolated vertex more read with a virtual root) and a Newick string.
fn readers(n: usize) {
    use generators::io::{ForestMode, ReadOptions, read_tree_bytes};
    use std::fmt::Write;
    let tree = "random-recursive"
        .parse::<Topology>()
        .expect("topology")
        .generate(n, ChildOrder::Natural, &mut generators::rng(1))
        .expect("tree");
    let mut parents = String::new();
    let mut mtx = format!(
        "%%MatrixMarket matrix coordinate real general\n{} {} {}\n",
        n + 1,
        n + 1,
        n - 1
    );
    for v in 0..n as u32 {
        match tree.parent(v) {
            Some(p) => {
                let _ = writeln!(parents, "{v} {p} 0.5");
                let _ = writeln!(mtx, "{} {} 0.5", v + 1, p + 1);
            }
            None => {
                let _ = writeln!(parents, "{v} -1 0.5");
            }
        }
    }
    // A Newick caterpillar of n vertices: (((a:1,b:1):1,c:1):1, ...
    let leaves = n.div_ceil(2);
    let mut newick = "(".repeat(leaves - 1);
    newick += "a:1";
    for _ in 1..leaves {
        newick += ",b:1):1";
    }
    newick += ";\n";
    drop(tree);
    for (name, text, forest) in [
        ("t.txt", parents, ForestMode::Refuse),
        ("t.mtx", mtx, ForestMode::VirtualRoot),
        ("t.nwk", newick, ForestMode::Refuse),
    ] {
        let opts = ReadOptions {
            forest,
            ..ReadOptions::default()
        };
        let (t, peak, held) = measure(n, || {
            read_tree_bytes(std::path::Path::new(name), text.as_bytes(), &opts).expect("read")
        });
        println!(
            "reader {name}: {} vertices, file {:.1} B/vertex; peak {peak:.1} held {held:.1}",
            t.tree.len(),
            text.len() as f64 / n as f64
        );
    }
}
