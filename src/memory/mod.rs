//! Memory preflight: before a command allocates its per-vertex arrays it estimates its peak
//! memory from the sizes, algorithms and options it was given, and refuses with a one-line
//! error (exit 2) when the estimate exceeds what the process may use, instead of aborting on a
//! failed allocation or being killed by the kernel.
//!
//! **What is available** ([`available`]): the smallest of the cgroup's room (v2 `memory.max`
//! minus `memory.current`, v1 `memory.limit_in_bytes` minus `memory.usage_in_bytes`, on every
//! level from the process's cgroup up, the reclaimable page cache `inactive_file` not counted
//! as used), the address-space limit (`ulimit -v`, `RLIMIT_AS`, minus the address space the
//! process already maps) and `MemAvailable` of `/proc/meminfo`. Other systems: no check.
//!
//! **The estimate** is a per-component model, bytes per vertex, in [`model`]: the tree, the
//! weights, the reference of each op, each algorithm's outcome (held until the command ends)
//! and its peak while it is evaluated (the kernel's scratch, the bounds' replay, the
//! summaries), the dump, the GPU's host buffers, the tree-file reader, plus the process's
//! fixed size and the allocator's caches per thread. How each constant was measured is written
//! beside it. When the code's memory changes, update [`model`] (and only it): the test
//! `tests/limits.rs::the_model_bounds_a_measured_peak` runs `accuracy run` on a tree of 10^6
//! vertices and fails when the estimate is below the measured peak RSS or more than twice it.

use crate::Error;
use analysis::format::duration;
use analysis::{Algorithm, ReferenceKind};
use generators::io::human_bytes;

pub mod model;
pub mod pages;

/// Where the memory available was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    CgroupV2,
    CgroupV1,
    AddressSpace,
    MemAvailable,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::CgroupV2 => "cgroup memory.max",
            Source::CgroupV1 => "cgroup memory.limit_in_bytes",
            Source::AddressSpace => "ulimit -v",
            Source::MemAvailable => "MemAvailable",
        }
    }
}

/// Bytes the process may still allocate, and the limit that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Available {
    pub bytes: u64,
    pub source: Source,
}

/// The memory available to this process now (`None` where nothing can be known).
pub fn available() -> Option<Available> {
    limits::all().into_iter().min_by_key(|a| a.bytes)
}

/// What a command will need: bytes, and the sizes it comes from ("2147483648 vertices (star,
/// 7 algorithms, 2 ops)").
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub bytes: u64,
    pub what: String,
    /// Whether the command should have its allocator give freed pages back at once (the
    /// estimate counts on it): its peak would reach [`EAGER_PURGE_FROM`] otherwise.
    pub eager: bool,
}

/// From this estimated peak on (with freed pages kept), a command has its allocator give
/// freed pages back at once: on big trees the pages one evaluation step frees are otherwise
/// still resident when the next one allocates (`model::ALLOCATOR_PER_VERTEX`, against
/// `model::ALLOCATOR_PER_VERTEX_EAGER`), while on small ones keeping them saves page faults
/// ([`pages`] says what each costs).
pub const EAGER_PURGE_FROM: u64 = 1 << 30;

impl Estimate {
    /// An estimate of `total` bytes when the allocator keeps freed pages (`retention` bytes for
    /// each of `vertices`, whose per-vertex arrays are alive at once); from [`EAGER_PURGE_FROM`]
    /// on, counted with freed pages given back at once.
    fn new(total: f64, vertices: f64, retention: f64, what: String) -> Estimate {
        use model::*;
        let eager = total >= EAGER_PURGE_FROM as f64;
        let total = match eager {
            true => total - vertices * (retention - ALLOCATOR_PER_VERTEX_EAGER).max(0.0),
            false => total,
        };
        Estimate {
            bytes: bytes(total),
            what,
            eager,
        }
    }
}

/// Refuses `estimate` when it exceeds the memory available.
pub fn check(command: &str, estimate: &Estimate) -> Result<(), Error> {
    check_against(command, estimate, available())
}

/// [`check`] against a given availability.
pub fn check_against(
    command: &str,
    estimate: &Estimate,
    available: Option<Available>,
) -> Result<(), Error> {
    match available {
        Some(a) if estimate.bytes > a.bytes => Err(Error::Memory(format!(
            "{command}: needs about {} for {}; {} available ({})",
            human_bytes(estimate.bytes),
            estimate.what,
            human_bytes(a.bytes),
            a.source.name()
        ))),
        _ => Ok(()),
    }
}

/// The rayon threads a command's evaluation will run on, as rayon counts them
/// (`RAYON_NUM_THREADS`, else the CPUs), without starting its pool: under a tight limit the
/// pool's stacks may not fit, and the refusal must come first.
pub fn threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&t| t > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |t| t.get()))
}

/// The process's own part: fixed, and the allocator's caches for `threads`.
fn process(threads: usize) -> f64 {
    model::FIXED + model::ALLOCATOR + model::ALLOCATOR_PER_THREAD * threads as f64
}

/// How one tree is evaluated (`experiment::evaluate_with_progress`).
#[derive(Debug, Clone, Copy)]
pub struct Evaluation<'a> {
    pub algos: &'a [Algorithm],
    pub ops: usize,
    pub reference: ReferenceKind,
    /// Whether a GPU backend computes the algorithms that have a kernel.
    pub gpu: bool,
}

impl Evaluation<'_> {
    /// Peak bytes per vertex of evaluating one tree, beyond its tree and weights, as
    /// `experiment::evaluate_into` does it: one op's reference and one algorithm's evaluation
    /// (its outcome included) alive at a time, whatever the threads. With `held` (a grid, which
    /// keeps every outcome until its cells are made) the earlier ops' references and outcomes
    /// stay too.
    pub fn per_vertex(&self, held: bool) -> f64 {
        self.per_vertex_of(held, false)
    }

    /// [`Evaluation::per_vertex`], knowing whether every weight is `finite` (generated): the
    /// exact reference then stays on a fixed-point scale (`model::REFERENCE_EXACT_FINITE`).
    pub fn per_vertex_of(&self, held: bool, finite: bool) -> f64 {
        self.allocations_of(held, finite) + model::ALLOCATOR_PER_VERTEX
    }

    /// [`Evaluation::per_vertex_of`] without the allocator's retained pages: what the
    /// evaluation itself allocates.
    fn allocations_of(&self, held: bool, finite: bool) -> f64 {
        use model::*;
        let (reference, reference_peak) = match (self.reference, finite) {
            (ReferenceKind::Exact, false) => (REFERENCE_EXACT, REFERENCE_EXACT_PEAK),
            (ReferenceKind::Exact, true) => (REFERENCE_EXACT_FINITE, REFERENCE_EXACT_PEAK_FINITE),
            (ReferenceKind::Dd, _) => (REFERENCE_DD, REFERENCE_DD_PEAK),
        };
        let a = self.algos.len();
        let largest = self
            .algos
            .iter()
            .map(|&x| evaluation_peak(x))
            .fold(0.0, f64::max);
        let kept = match held {
            true => {
                (self.ops * a).saturating_sub(1) as f64 * OUTCOME
                    + self.ops.saturating_sub(1) as f64 * reference
            }
            false => 0.0,
        };
        let gpu = if self.gpu && self.algos.iter().any(|x| x.has_gpu_kernel()) {
            GPU_HOST
        } else {
            0.0
        };
        kept + (reference + largest).max(reference_peak) + gpu
    }

    /// Bytes per vertex of freed pages the allocator keeps while one tree is evaluated alone
    /// (`accuracy run`): fewer where that is at most two steps
    /// (`model::ALLOCATOR_PER_VERTEX_FEW_STEPS`). Sweeps and `score` take many steps, tree
    /// after tree or algorithm after algorithm.
    pub fn one_tree_retention(&self) -> f64 {
        match self.algos.len() * self.ops {
            0..=2 => model::ALLOCATOR_PER_VERTEX_FEW_STEPS,
            _ => model::ALLOCATOR_PER_VERTEX,
        }
    }

    /// The fixed part of a GPU backend.
    fn fixed(&self) -> f64 {
        if self.gpu { model::GPU_DRIVER } else { 0.0 }
    }

    /// "7 algorithms, 2 ops".
    fn describe(&self) -> String {
        format!(
            "{} algorithm{}, {} op{}",
            self.algos.len(),
            plural(self.algos.len()),
            self.ops,
            plural(self.ops)
        )
    }
}

fn plural(k: usize) -> &'static str {
    if k == 1 { "" } else { "s" }
}

fn bytes(x: f64) -> u64 {
    x.ceil().min(u64::MAX as f64) as u64
}

/// `accuracy run`: one tree of `n` vertices (`name`: its topology or file), generated or read
/// (`from_file`), evaluated, optionally dumped.
pub fn run(
    n: u64,
    name: &str,
    eval: &Evaluation<'_>,
    from_file: bool,
    dump: bool,
    threads: usize,
) -> Estimate {
    use model::*;
    let retention = eval.one_tree_retention();
    // A tree file may carry non-finite weights; generated ones are finite.
    let per_vertex = TREE
        + WEIGHTS
        + eval.allocations_of(false, !from_file)
        + retention
        + if dump { DUMP } else { 0.0 }
        + if from_file { FILE } else { 0.0 };
    Estimate::new(
        process(threads) + eval.fixed() + n as f64 * per_vertex,
        n as f64,
        retention,
        format!("{n} vertices ({name}, {})", eval.describe()),
    )
}

/// `accuracy score`: a tree file of `n` vertices, `ops` ops of results, every algorithm's
/// bounds one after another.
pub fn score(n: u64, name: &str, ops: usize, reference: ReferenceKind) -> Estimate {
    use model::*;
    // One algorithm at a time: the most expensive one sets the peak.
    let costliest = Algorithm::ALL
        .into_iter()
        .max_by(|a, b| evaluation_peak(*a).total_cmp(&evaluation_peak(*b)))
        .expect("the registry is not empty");
    let one = Evaluation {
        algos: &[costliest],
        ops: 1,
        reference,
        gpu: false,
    };
    let per_vertex =
        FILE + TREE + WEIGHTS + SCORE_KEYS + ops as f64 * SCORE_RESULTS + one.per_vertex(false);
    Estimate::new(
        process(threads()) + n as f64 * per_vertex,
        n as f64,
        ALLOCATOR_PER_VERTEX,
        format!("{n} vertices ({name}, {ops} op{})", plural(ops)),
    )
}

/// `accuracy gen`: `n` weights.
pub fn gen_weights(n: u64) -> Estimate {
    Estimate {
        bytes: bytes(process(1) + n as f64 * model::WEIGHTS),
        what: format!("{n} weights"),
        eager: false,
    }
}

/// Trees of a parallel loop (sweep, grid) in flight at once: rayon's work stealing starts
/// another tree while a thread waits inside one, so one more than the threads (measured
/// sweeps of 2 trees of 10^6 vertices peaked at the sum of two `run`s' peaks).
fn in_flight(threads: usize, trees: usize) -> usize {
    (threads + 1).min(trees).max(1)
}

/// A grid (`bounds-table`, `check`): `instances` trees of `n` vertices evaluated in parallel,
/// each instance's per-node cell lists held until the report.
pub fn grid(instances: usize, n: u64, eval: &Evaluation<'_>, threads: usize) -> Estimate {
    use model::*;
    let in_flight = in_flight(threads, instances);
    let per_tree = TREE_BUILD.max(TREE + WEIGHTS + eval.per_vertex(true));
    let cells: f64 = eval
        .algos
        .iter()
        .map(|a| {
            if a.is_vectorial() {
                GRID_CELL_VECTORIAL
            } else {
                GRID_CELL
            }
        })
        .sum::<f64>()
        * eval.ops as f64;
    let total =
        process(threads) + n as f64 * (in_flight as f64 * per_tree + instances as f64 * cells);
    Estimate::new(
        total,
        in_flight as f64 * n as f64,
        model::ALLOCATOR_PER_VERTEX,
        format!(
            "{instances} trees of {n} vertices, {in_flight} at once ({})",
            eval.describe()
        ),
    )
}

/// What a sweep will take, printed before it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPlan {
    pub memory: Estimate,
    /// Seconds of evaluation on `threads` threads.
    pub seconds: f64,
    pub threads: usize,
}

impl SweepPlan {
    /// "sweep: 1000 trees of up to 100000000 vertices, 2 at once (3 algorithms, 2 ops):
    /// estimated peak memory 6.7 GB, time 14.0 h on 2 threads" ([`analysis::format::duration`]).
    pub fn describe(&self) -> String {
        format!(
            "sweep: {}: estimated peak memory {}, time {} on {} thread{}",
            self.memory.what,
            human_bytes(self.memory.bytes),
            duration(self.seconds),
            self.threads,
            plural(self.threads)
        )
    }
}

/// A sweep's memory and time: its trees (every job, resumed ones included) of their sizes,
/// evaluated `threads` at a time (rayon), plus what it holds throughout: the tree files and
/// the result rows.
pub fn sweep(
    params: &crate::sweep::SweepParams,
    files: &[crate::inputs::LoadedTree],
    gpu: bool,
    threads: usize,
) -> SweepPlan {
    use model::*;
    let eval = Evaluation {
        algos: &params.algos,
        ops: params.ops.len(),
        reference: params.reference,
        gpu,
    };
    let draws = params.targets.len() * params.trees_per_target;
    let orders = params.child_orders.len().max(1);
    // (vertices, trees) per source.
    let sources: Vec<(u64, usize)> = if files.is_empty() {
        params
            .topologies
            .iter()
            .map(|_| (params.nodes as u64, draws * orders))
            .collect()
    } else {
        let own = params.weights == crate::inputs::WeightChoice::File;
        files
            .iter()
            .map(|f| {
                (
                    f.file.tree.len() as u64,
                    if own { 1 } else { draws } * orders,
                )
            })
            .collect()
    };
    let trees: usize = sources.iter().map(|s| s.1).sum();
    let n = sources.iter().map(|s| s.0).max().unwrap_or(0);
    let file_vertices: u64 = files.iter().map(|f| f.file.tree.len() as u64).sum();
    let in_flight = in_flight(threads, trees);
    let per_tree = TREE_BUILD.max(TREE + WEIGHTS + eval.per_vertex(false));
    // A GPU evaluates batches of up to 2^22 vertices of trees as one forest; computing the
    // exact reference too, it holds each op's references of the batch until assessed.
    let references =
        match params.exact_on == crate::Device::Gpu && params.reference == ReferenceKind::Exact {
            true => params.ops.len() as f64 * REFERENCE_EXACT,
            false => 0.0,
        };
    let gpu_batch = if gpu {
        (n.max(1 << 22) as f64) * (TREE + WEIGHTS + GPU_HOST + references)
    } else {
        0.0
    };
    let rows = (trees * params.ops.len() * params.algos.len()) as f64;
    let total = process(threads)
        + eval.fixed()
        + in_flight as f64 * n as f64 * per_tree
        + gpu_batch
        + file_vertices as f64 * FILE
        + rows * ROW;
    let per_vertex_op = SECONDS_PER_VERTEX_REFERENCE
        + params
            .algos
            .iter()
            .map(|&a| a.descriptor().cost.seconds)
            .sum::<f64>();
    let vertices: f64 = sources.iter().map(|&(v, k)| v as f64 * k as f64).sum();
    SweepPlan {
        memory: Estimate::new(
            total,
            in_flight as f64 * n as f64,
            model::ALLOCATOR_PER_VERTEX,
            format!(
                "{trees} tree{} of {}{n} vertices, {in_flight} at once ({})",
                plural(trees),
                if sources.iter().all(|s| s.0 == n) {
                    ""
                } else {
                    "up to "
                },
                eval.describe()
            ),
        ),
        seconds: vertices * params.ops.len() as f64 * per_vertex_op / threads.max(1) as f64,
        threads,
    }
}

/// `accuracy bench`: generated trees up to `max_n` vertices and tree files of `file_vertices`
/// vertices in all, on the GPU.
pub fn bench(max_n: u64, file_vertices: u64) -> Estimate {
    use model::*;
    let per_vertex = TREE_BUILD.max(TREE + WEIGHTS + GPU_HOST + 2.0 * WEIGHTS);
    let total = process(threads())
        + GPU_DRIVER
        + max_n.max(file_vertices) as f64 * per_vertex
        + file_vertices as f64 * (FILE + TREE);
    Estimate {
        bytes: bytes(total),
        what: format!("trees of up to {} vertices", max_n.max(file_vertices)),
        eager: false,
    }
}

/// The bytes a tree reader may allocate ([`generators::io::ReadOptions::memory_limit`]): what
/// is available less the process's own part.
pub fn reader_limit() -> Option<u64> {
    available().map(|a| a.bytes.saturating_sub(bytes(process(threads()))))
}

mod limits;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_names_the_estimate_and_the_limit() {
        let algos = Algorithm::ALL;
        let e = run(
            1 << 31,
            "star",
            &Evaluation {
                algos: &algos,
                ops: 2,
                reference: ReferenceKind::Exact,
                gpu: false,
            },
            false,
            false,
            2,
        );
        let limit = Some(Available {
            bytes: 3_800_000_000,
            source: Source::CgroupV2,
        });
        let msg = check_against("run", &e, limit).unwrap_err().to_string();
        assert!(
            msg.starts_with("run: needs about ")
                && msg.ends_with(&format!(
                    " GB for 2147483648 vertices (star, {} algorithms, 2 ops); 3.8 GB available (cgroup memory.max)",
                    Algorithm::ALL.len()
                )),
            "{msg}"
        );
        assert!(check_against("run", &e, None).is_ok());
    }

    #[test]
    fn one_algorithm_at_a_time() {
        let algos = Algorithm::ALL;
        let e = Evaluation {
            algos: &algos,
            ops: 2,
            reference: ReferenceKind::Exact,
            gpu: false,
        };
        // The costliest algorithm alone sets the evaluation's part.
        let costliest = Algorithm::ALL
            .iter()
            .map(|&a| model::evaluation_peak(a))
            .fold(0.0, f64::max);
        let slack = model::ALLOCATOR_PER_VERTEX;
        assert_eq!(
            e.per_vertex(false),
            model::REFERENCE_EXACT + costliest + slack
        );
        // A grid keeps the 15 other outcomes and the first op's reference.
        assert_eq!(
            e.per_vertex(true),
            15.0 * model::OUTCOME + 2.0 * model::REFERENCE_EXACT + costliest + slack
        );
        // With one algorithm, its own peak, or the reference's computation where that is
        // larger.
        let one = Evaluation {
            algos: &[Algorithm::PARALLEL],
            ..e
        };
        assert_eq!(
            one.per_vertex(false),
            (model::REFERENCE_EXACT + model::evaluation_peak(Algorithm::PARALLEL))
                .max(model::REFERENCE_EXACT_PEAK)
                + slack
        );
    }

    /// One tree evaluated in at most two steps counts the few-step retention, more steps the
    /// many-step one; a sweep of one algorithm counts the many-step one (tree after tree).
    #[test]
    fn retention_follows_the_steps() {
        let one = Evaluation {
            algos: &[Algorithm::PARALLEL],
            ops: 2,
            reference: ReferenceKind::Exact,
            gpu: false,
        };
        let two = Evaluation {
            algos: &[Algorithm::PARALLEL, Algorithm::SEQUENTIAL],
            ..one
        };
        assert_eq!(
            one.one_tree_retention(),
            model::ALLOCATOR_PER_VERTEX_FEW_STEPS
        );
        assert_eq!(two.one_tree_retention(), model::ALLOCATOR_PER_VERTEX);
        let n = 100_000u64;
        let per_vertex = |e: &Evaluation<'_>| {
            (run(n, "chain", e, false, false, 2).bytes as f64 - process(2)) / n as f64
        };
        let counted =
            |e: &Evaluation<'_>| model::TREE + model::WEIGHTS + e.allocations_of(false, true);
        assert!(
            (per_vertex(&one) - counted(&one) - model::ALLOCATOR_PER_VERTEX_FEW_STEPS).abs() < 1e-3
        );
        assert!((per_vertex(&two) - counted(&two) - model::ALLOCATOR_PER_VERTEX).abs() < 1e-3);
    }

    /// A big run counts on freed pages given back at once, and says so; a small one does not.
    #[test]
    fn big_estimates_count_on_eager_purging() {
        let algos = Algorithm::ALL;
        let eval = Evaluation {
            algos: &algos,
            ops: 2,
            reference: ReferenceKind::Exact,
            gpu: false,
        };
        let small = run(100_000, "profile", &eval, false, false, 2);
        assert!(!small.eager && small.bytes < EAGER_PURGE_FROM);
        let n = 16_240_000u64;
        let big = run(n, "profile", &eval, false, false, 2);
        assert!(big.eager);
        // Generated weights: finite.
        let kept = process(2)
            + n as f64 * (model::TREE + model::WEIGHTS + eval.per_vertex_of(false, true));
        let saved = n as f64 * (model::ALLOCATOR_PER_VERTEX - model::ALLOCATOR_PER_VERTEX_EAGER);
        assert_eq!(big.bytes, bytes(kept - saved));
    }
}
