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
use analysis::{Algorithm, ReferenceKind};
use generators::io::human_bytes;

/// The model's constants (bytes per vertex unless said otherwise), in one place.
///
/// Per-vertex figures come from a counting allocator (`RAYON_NUM_THREADS=1 cargo bench --bench
/// memory -- 500000`: the peak and held bytes of each step on six topologies
/// and four weight models, the largest of each taken). The fixed and per-thread parts come from
/// peak RSS (`/usr/bin/time -f %M accuracy run --topology chain --nodes N` with
/// `RAYON_NUM_THREADS=T` for N = 1, 10^4, 10^5, 3·10^5, 10^6 and T = 1, 2, 8, 16): what the RSS
/// exceeded the allocations by. The algorithms' peaks (their descriptors' `peak_bytes`) were
/// measured again with `cargo bench --bench memory -- 200000` once the vectorial bounds
/// streamed their scan (and vectorial-exact at 10 limbs, its widest weights); the ratios
/// below predate that (`tests/limits.rs` checks the model still bounds
/// a measured peak within 1 to 2 times). With all seven algorithms and both ops the model
/// gave 1.17 to 1.25 times the measured peak at 10^6 vertices (T = 1, 2, 16), 1.0 to 1.2 times
/// at 10^5.
/// Each command's estimate against its peak RSS (2 threads): `run --tree` (a parent array of
/// 10^6 vertices) 1.5 GB / 1.28 GB; `score` on it 571 / 451 MB; `sweep --nodes 1000000
/// --trees 2 --cond 1e5` 1.5 / 1.29 GB; a sweep of 20 trees of 10^5 vertices, 4 algorithms
/// 333 / 244 MB; `bounds-table --nodes 100000 --trees 2 --cond 1e2,1e8` 2.7 / 1.72 GB;
/// `check` 828 / 560 MB; `bench --min-log2 20 --max-log2 20` (lavapipe) 524 / 404 MB;
/// `gen --n 50000000` 258 / 208 MB.
pub mod model {
    /// The process before any tree: binary, libraries, first allocations (peak RSS of
    /// `accuracy run --nodes 1`: 11.2 MB).
    pub const FIXED: f64 = 12e6;
    /// The allocator's caches (mimalloc keeps freed pages per thread): peak RSS exceeded the
    /// allocations by up to 36 MB with one thread and 150 MB with 16, at 10^4 to 3·10^5
    /// vertices; 35 MB plus 11 MB per thread covers every size measured.
    pub const ALLOCATOR: f64 = 35e6;
    pub const ALLOCATOR_PER_THREAD: f64 = 11e6;
    /// Pages of an evaluation's freed per-node arrays that the allocator keeps (its purge
    /// delay, a second): with one algorithm evaluated at a time, peak RSS exceeded the model's
    /// allocations by 42 (profile, 16.24·10^6 vertices), 60 (profile, 2^22) and 69 to 82
    /// (chain, 10^6, four runs on a loaded machine) bytes per vertex; 100 covers them with a
    /// margin. (Measured before the vectorial bounds streamed; the chain at 10^6 now peaks at
    /// 323 MB against an estimate of 370.)
    pub const ALLOCATOR_PER_VERTEX: f64 = 100.0;
    /// The same once freed pages are given back at once ([`super::EAGER_PURGE_FROM`]): peak
    /// RSS of `run --topology profile` (all algorithms) exceeded the counted allocations (the
    /// tree, the weights, 120.5 for the evaluation) and the fixed part by 45 (2^22 vertices:
    /// 964 MB) and 17 (16,240,000: 3.09 GB) bytes per vertex. The evaluation's own constant
    /// (the costliest topology's, 153 with the reference) leaves 32 more on such trees: the
    /// estimates were 1.12 and 1.29 times those peaks.
    pub const ALLOCATOR_PER_VERTEX_EAGER: f64 = 40.0;
    /// A tree (parents, CSR children, depths, sizes, orders, Euler positions, levels): 40 to
    /// 44 held; 57 at the peak of its construction.
    pub const TREE: f64 = 44.0;
    pub const TREE_BUILD: f64 = 57.0;
    /// f32 weights (gensum's generation allocates nothing more).
    pub const WEIGHTS: f64 = 4.0;
    /// One op's reference, held (exact: fixed-point values of 1 to 4 limbs, their f64
    /// rounding, Σ|terms|; double-double: 24) and at the peak of its computation.
    pub const REFERENCE_EXACT: f64 = 32.0;
    pub const REFERENCE_EXACT_PEAK: f64 = 78.0;
    pub const REFERENCE_DD: f64 = 24.0;
    pub const REFERENCE_DD_PEAK: f64 = 45.0;
    /// One algorithm's outcome on one op, held: f32 values, per-node errors, four bounds
    /// (60; 68 when a vector grew by doubling).
    pub const OUTCOME: f64 = 68.0;
    /// The dump's per-op scan prefix and its temporaries.
    pub const DUMP: f64 = 24.0;
    /// A tree file held after reading (its tree and weights, labels), besides the tree a
    /// command evaluates.
    pub const FILE: f64 = 64.0;
    /// The GPU backend: the driver (fixed) and the host-side buffers of one kernel's tree
    /// layout and results (measured on lavapipe, whose device memory is host memory too: all
    /// five GPU algorithms on both ops added 363 MB at 10^6 vertices).
    pub const GPU_DRIVER: f64 = 128e6;
    pub const GPU_HOST: f64 = 256.0;
    /// `score`: the results file's vertex keys (a hash map of strings) and per-op values.
    pub const SCORE_KEYS: f64 = 64.0;
    pub const SCORE_RESULTS: f64 = 8.0;
    /// `bounds-table`, `check`: the per-node lists a grid cell keeps (lost bits, bound bits,
    /// two tightness; four extra-bits differences for vectorial algorithms), f32 each, doubled
    /// for vector growth and the pooled copies of the report.
    pub const GRID_CELL: f64 = 32.0;
    pub const GRID_CELL_VECTORIAL: f64 = 64.0;
    /// A sweep's result row, held until the summary is written (bytes per row).
    pub const ROW: f64 = 512.0;
    /// One algorithm's peak on one op, its outcome included (the largest over the topologies):
    /// the `peak_bytes` of its descriptor, measured with the counting allocator above.
    pub fn evaluation_peak(a: analysis::Algorithm) -> f64 {
        a.descriptor().cost.peak_bytes
    }
    /// Evaluation time of one vertex by one algorithm on one op, one thread (seconds: its
    /// kernel, errors and bounds): the `seconds` of its descriptor, measured as
    /// `RAYON_NUM_THREADS=1 cargo bench --bench evaluation -- whole` (the whole evaluation of
    /// one algorithm and op on a 2^18-vertex `profile` tree): the mean of rootfix and leaffix,
    /// less the exact reference's 0.12 µs (0.32 µs for parallel to 1.76 for
    /// vectorial-compensated). Checked against sweeps of 2 threads: 400 chains of 10^5 vertices
    /// (3 algorithms) took 66 s against an estimate of 95; two `profile` trees of 2^22, 38.6 s
    /// against 19 (bigger trees miss the caches more). The exact reference (0.12 µs) and the
    /// tree's generation (`gen --n 1000000` took 0.19 s) per vertex and op:
    pub const SECONDS_PER_VERTEX_REFERENCE: f64 = 0.22e-6;
}

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
/// (the `accuracy` binary's allocator module says what each costs).
pub const EAGER_PURGE_FROM: u64 = 1 << 30;

impl Estimate {
    /// An estimate of `total` bytes when the allocator keeps freed pages, `vertices` of whose
    /// per-vertex arrays are alive at once; from [`EAGER_PURGE_FROM`] on, counted with freed
    /// pages given back at once.
    fn new(total: f64, vertices: f64, what: String) -> Estimate {
        use model::*;
        let eager = total >= EAGER_PURGE_FROM as f64;
        let total = match eager {
            true => total - vertices * (ALLOCATOR_PER_VERTEX - ALLOCATOR_PER_VERTEX_EAGER),
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
        use model::*;
        let (reference, reference_peak) = match self.reference {
            ReferenceKind::Exact => (REFERENCE_EXACT, REFERENCE_EXACT_PEAK),
            ReferenceKind::Dd => (REFERENCE_DD, REFERENCE_DD_PEAK),
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
        kept + (reference + largest).max(reference_peak) + gpu + ALLOCATOR_PER_VERTEX
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
    let per_vertex = TREE
        + WEIGHTS
        + eval.per_vertex(false)
        + if dump { DUMP } else { 0.0 }
        + if from_file { FILE } else { 0.0 };
    Estimate::new(
        process(threads) + eval.fixed() + n as f64 * per_vertex,
        n as f64,
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
    /// estimated peak memory 6.7 GB, time 14 h on 2 threads".
    pub fn describe(&self) -> String {
        format!(
            "sweep: {}: estimated peak memory {}, time {} on {} thread{}",
            self.memory.what,
            human_bytes(self.memory.bytes),
            human_seconds(self.seconds),
            self.threads,
            plural(self.threads)
        )
    }
}

/// `90 s`, `12 min`, `3.4 h`, `2.1 d`.
pub fn human_seconds(s: f64) -> String {
    if s < 120.0 {
        format!("{:.0} s", s.max(1.0))
    } else if s < 7200.0 {
        format!("{:.0} min", s / 60.0)
    } else if s < 172_800.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} d", s / 86_400.0)
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
    // A GPU evaluates batches of up to 2^22 vertices of trees as one forest.
    let gpu_batch = if gpu {
        (n.max(1 << 22) as f64) * (TREE + WEIGHTS + GPU_HOST)
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

/// The limits this system exposes, each read where it can be.
mod limits {
    use super::{Available, Source};
    #[cfg(target_os = "linux")]
    use std::path::{Path, PathBuf};

    pub(super) fn all() -> Vec<Available> {
        let mut out = Vec::new();
        #[cfg(target_os = "linux")]
        {
            out.extend(cgroup());
            out.extend(mem_available());
        }
        #[cfg(unix)]
        out.extend(address_space());
        out
    }

    /// `RLIMIT_AS` less the address space in use: the mappings that are not data (the
    /// binary, libraries, stacks' guard) and the data pages touched. Data reserved and not
    /// touched yet (the allocator reserves an arena of up to 1 GiB at its first allocation) is
    /// counted as available: the allocations to come land there first.
    #[cfg(unix)]
    fn address_space() -> Option<Available> {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given.
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0
            || r.rlim_cur == libc::RLIM_INFINITY
        {
            return None;
        }
        let kb = |f: &str| status_kb(f).unwrap_or(0);
        let used = (kb("VmSize:").saturating_sub(kb("VmData:")) + kb("RssAnon:")) * 1024;
        // rlim_t is u64 on Linux and macOS, not on every Unix.
        #[allow(clippy::unnecessary_cast)]
        let limit = r.rlim_cur as u64;
        Some(Available {
            bytes: limit.saturating_sub(used),
            source: Source::AddressSpace,
        })
    }

    #[cfg(all(unix, not(target_os = "linux")))]
    fn status_kb(_: &str) -> Option<u64> {
        None
    }

    /// A `kB` field of /proc/self/status.
    #[cfg(target_os = "linux")]
    fn status_kb(field: &str) -> Option<u64> {
        kb_field(&std::fs::read_to_string("/proc/self/status").ok()?, field)
    }

    #[cfg(target_os = "linux")]
    fn kb_field(text: &str, field: &str) -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(field))?;
        line[field.len()..].split_whitespace().next()?.parse().ok()
    }

    #[cfg(target_os = "linux")]
    fn mem_available() -> Option<Available> {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        Some(Available {
            bytes: kb_field(&text, "MemAvailable:")? * 1024,
            source: Source::MemAvailable,
        })
    }

    /// The tightest room of the process's cgroup and its ancestors (v2, else v1).
    #[cfg(target_os = "linux")]
    fn cgroup() -> Option<Available> {
        let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
        let v2 = membership.lines().find_map(|l| l.strip_prefix("0::"));
        let v1 = membership.lines().find_map(|l| {
            let mut f = l.splitn(3, ':');
            let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
            controllers
                .split(',')
                .any(|c| c == "memory")
                .then_some(path)
        });
        if let Some(path) = v2 {
            if let Some(dir) = cgroup_dir(&mounts, path, |fs, _| fs == "cgroup2") {
                let room = room(&dir, "memory.max", "memory.current", "inactive_file");
                if room.is_some() {
                    return room.map(|bytes| Available {
                        bytes,
                        source: Source::CgroupV2,
                    });
                }
            }
        }
        let path = v1?;
        let dir = cgroup_dir(&mounts, path, |fs, opts| {
            fs == "cgroup" && opts.split(',').any(|o| o == "memory")
        })?;
        room(
            &dir,
            "memory.limit_in_bytes",
            "memory.usage_in_bytes",
            "total_inactive_file",
        )
        .map(|bytes| Available {
            bytes,
            source: Source::CgroupV1,
        })
    }

    /// The directory of cgroup `path` under the hierarchy's mount (its mount root removed);
    /// the mount point itself where that directory is not visible (a cgroup namespace).
    #[cfg(target_os = "linux")]
    fn cgroup_dir(
        mounts: &str,
        path: &str,
        wanted: impl Fn(&str, &str) -> bool,
    ) -> Option<PathBuf> {
        for line in mounts.lines() {
            let (left, right) = line.split_once(" - ")?;
            let l: Vec<&str> = left.split(' ').collect();
            let r: Vec<&str> = right.split(' ').collect();
            if l.len() < 5 || r.len() < 3 || !wanted(r[0], r[2]) {
                continue;
            }
            let (root, mount) = (l[3], Path::new(l[4]));
            let rel = path
                .strip_prefix(root)
                .unwrap_or(path)
                .trim_start_matches('/');
            let dir = mount.join(rel);
            return Some(if dir.is_dir() {
                dir
            } else {
                mount.to_path_buf()
            });
        }
        None
    }

    /// min over `dir` and its ancestors with a limit of limit − (usage − inactive page cache).
    #[cfg(target_os = "linux")]
    fn room(dir: &Path, limit: &str, usage: &str, inactive: &str) -> Option<u64> {
        let read = |d: &Path, f: &str| std::fs::read_to_string(d.join(f)).ok();
        let mut best: Option<u64> = None;
        let mut d = Some(dir);
        while let Some(here) = d {
            // "max" (v2) and 2^63 rounded to pages (v1) mean no limit.
            let max = read(here, limit).and_then(|s| s.trim().parse::<u64>().ok());
            if let Some(max) = max.filter(|&m| m < 1 << 60) {
                let used = read(here, usage)
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .unwrap_or(0);
                let cache = read(here, "memory.stat")
                    .and_then(|s| {
                        s.lines().find_map(|l| {
                            let (k, v) = l.split_once(' ')?;
                            (k == inactive).then(|| v.trim().parse::<u64>().ok())?
                        })
                    })
                    .unwrap_or(0);
                let free = max.saturating_sub(used.saturating_sub(cache));
                best = Some(best.map_or(free, |b| b.min(free)));
            }
            d = here.parent().filter(|p| p.join(limit).exists());
        }
        best
    }

    #[cfg(all(test, target_os = "linux"))]
    mod tests {
        use super::*;

        #[test]
        fn fields_of_proc_files() {
            let text = "MemTotal:       24684092 kB\nMemAvailable:   23364560 kB\n";
            assert_eq!(kb_field(text, "MemAvailable:"), Some(23364560));
            assert_eq!(kb_field(text, "VmSize:"), None);
        }

        #[test]
        fn a_cgroup_directory_under_its_mount() {
            let top = std::env::temp_dir().join(format!("treefix-mount-{}", std::process::id()));
            std::fs::create_dir_all(top.join("a/b")).unwrap();
            let mounts = format!(
                "35 31 0:32 / {0} rw,relatime - cgroup cgroup rw,memory\n\
                 41 31 0:37 /a {0} rw,relatime - cgroup2 cgroup2 rw\n",
                top.display()
            );
            let v1 = |path: &str| {
                cgroup_dir(&mounts, path, |fs, o| {
                    fs == "cgroup" && o.split(',').any(|x| x == "memory")
                })
            };
            assert_eq!(v1("/a/b"), Some(top.join("a/b")));
            // Not visible here (a cgroup namespace): the mount point stands for it.
            assert_eq!(v1("/elsewhere"), Some(top.clone()));
            // The mount's root is removed from the path.
            let v2 = cgroup_dir(&mounts, "/a/a/b", |fs, _| fs == "cgroup2");
            std::fs::remove_dir_all(&top).unwrap();
            assert_eq!(v2, Some(top.join("a/b")));
        }

        #[test]
        fn a_limit_less_what_is_used() {
            let dir = std::env::temp_dir().join(format!("treefix-cgroup-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("memory.max"), "4000000000\n").unwrap();
            std::fs::write(dir.join("memory.current"), "1500000000\n").unwrap();
            std::fs::write(dir.join("memory.stat"), "anon 1\ninactive_file 500000000\n").unwrap();
            let r = room(&dir, "memory.max", "memory.current", "inactive_file");
            std::fs::remove_dir_all(&dir).unwrap();
            assert_eq!(r, Some(3_000_000_000));
        }
    }
}

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
        // With one algorithm, its own peak.
        let one = Evaluation {
            algos: &[Algorithm::PARALLEL],
            ..e
        };
        assert_eq!(
            one.per_vertex(false),
            model::REFERENCE_EXACT + model::evaluation_peak(Algorithm::PARALLEL) + slack
        );
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
        let kept = process(2) + n as f64 * (model::TREE + model::WEIGHTS + eval.per_vertex(false));
        let saved = n as f64 * (model::ALLOCATOR_PER_VERTEX - model::ALLOCATOR_PER_VERTEX_EAGER);
        assert_eq!(big.bytes, bytes(kept - saved));
    }
}
