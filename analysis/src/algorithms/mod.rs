//! The algorithm registry: every treefix algorithm is one [`Descriptor`] in a file of its own,
//! and every part of the toolkit reads them from [`Algorithm::ALL`] — the CLI's defaults and
//! help, the sweep's table, the GPU dispatch, `bench`'s traffic model,
//! `check`'s suite, the memory and time model, and the algorithm tables of the docs (a test
//! checks them).
//!
//! A descriptor holds what makes an algorithm: its names, its family, its *summation order*
//! (one generic function of [`crate::orders`], instantiated by its hooks on f32 for the CPU
//! twin and on the bound types for the a priori and running bounds, so the twin and its
//! bounds cannot drift apart), its GPU kernel if it has one, and its measured cost. How an
//! algorithm is drawn is the reports crate's business (its style table), not the registry's.
//!
//! # Adding an algorithm (docs/design.md §5, "Adding an algorithm")
//!
//! 1. Write its order in `crate::orders` (generic over [`crate::scan_value::ScanValue`]).
//! 2. Write its descriptor in a new file of this module: names, family, hooks instantiating
//!    that order, cost, and its GPU kernel ([`GpuKernel`]) or `None`.
//! 3. Add it to [`Algorithm::ALL`] below, and its look (colour, marker) to the reports
//!    crate's style table (a test there fails until every algorithm has one).
//! 4. Add its row to the algorithm tables of README.md and docs/design.md §5
//!    (`tests/registry.rs` fails until both list [`Algorithm::ALL`] in its order).
//! 5. With a kernel: its recipe of [`Step`]s (stage files of `shaders/`, entry points, what
//!    each covers, the timed phases; the host runs what it says, and a unit test of
//!    `src/gpu/` compares its recording with it), a new stage file if it needs one, and, for
//!    a new layout, the host code in `src/gpu/`.
//! 6. Measure its cost: `peak_bytes` with `cargo bench --bench memory`,
//!    `seconds` with `cargo bench --bench evaluation -- whole` (`src/memory.rs` says how).
//! 7. Tests: `tests/bounds.rs` and `tests/gpu/` take it from [`Algorithm::ALL`]; record its
//!    lost bits with `accuracy check --update`.

mod bounded;
mod contraction;
mod parallel;
mod sequential;
mod stage;
mod vectorial;
mod vectorial_chained;
mod vectorial_compensated;
mod vectorial_exact;
mod vectorial_seqscan;

pub use stage::{Entry, Over, RELABEL, SCAN_TILED, Stage, Step, phases, stages};

use crate::Op;
use crate::bounds::Walked;
use crate::orders::Walker;
use crate::scan_plan::Plan;
use generators::{Arithmetic, Precision, Tree};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// One treefix algorithm: everything the toolkit needs to run, bound, time and draw it.
#[derive(Debug)]
pub struct Descriptor {
    /// The name on the command line and in every file (`vectorial-chained`).
    pub name: &'static str,
    /// Three letters for table headers (`vch`).
    pub short: &'static str,
    pub family: Family,
    /// What it adds, in one line (the docs' algorithm tables repeat it).
    pub summary: &'static str,
    /// Its part in the seed paper's experiments, if any.
    pub paper: Option<PaperRole>,
    /// Whether every result is, by construction, the exact value rounded to nearest f32 (0
    /// lost bits, 0 ulps at every node): such an algorithm meets any accuracy threshold without
    /// being run, so the report can name it where a sweep left it out, and the main job runs it.
    pub correctly_rounded: bool,
    pub hooks: Hooks,
    /// Its GPU kernel; `None`: CPU only.
    pub gpu: Option<GpuKernel>,
    pub cost: Cost,
}

/// How an algorithm orders its additions, broadly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Along the tree: path recursions and child gathers (sequential, parallel).
    Tree,
    /// Euler tour + scan + read (the paper's vectorial algorithm and its variants).
    EulerTour,
    /// Rake and compress.
    Contraction,
}

/// The algorithms of the seed paper's experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaperRole {
    /// The sequential CPU baseline (speed-ups are over it).
    Baseline,
    /// Algorithm 1, level-synchronous BFS.
    Algorithm1,
    /// Algorithm 2, Euler tour + scan.
    Algorithm2,
}

/// The summation order, instantiated: each hook runs the algorithm's one generic order on
/// another value type, on a tree's [`Walker`] (which builds what the orders share once per
/// tree, and counts the walks).
#[derive(Debug, Clone, Copy)]
pub struct Hooks {
    /// The CPU twin: the order on f32 (what the GPU kernel returns, bit for bit).
    pub twin: fn(&Walker, &[f32], Op) -> Vec<f32>,
    /// The twin in another arithmetic: the same order on the partial sums of its
    /// accumulation format, each result stored in its storage format (carried as the f32
    /// that holds it). Called only for an arithmetic of [`Hooks::accumulates_in`] whose
    /// storage f32 carries.
    pub twin_in: fn(&Walker, &[f32], Op, Arithmetic) -> Vec<f32>,
    /// The accumulation formats its order is written for.
    pub accumulates_in: &'static [Precision],
    /// The twin on f64 weights, adding in f64 (f64 storage, CPU only: WGSL has no f64); None
    /// where its order is not written for f64 weights yet.
    pub twin_f64: Option<TwinF64>,
    /// The order walked once on bound values: the twin's additions replayed with their
    /// running bounds, and the a priori bounds at λ, per node (`crate::bounds::walk`).
    pub walk: fn(&Walker, &[f32], Op, f64, Arithmetic) -> Walked,
}

/// A twin on f64 weights, adding in f64.
pub type TwinF64 = fn(&Walker, &[f64], Op) -> Vec<f64>;

/// Every accumulation format: the orders generic over the partial sums' type run in each.
pub const ANY_ACCUMULATION: &[Precision] = &Precision::ALL;

/// Bytes a kernel moves per stage on a tree with these weights.
pub type Traffic = fn(Op, &[f32]) -> Vec<(&'static str, u64)>;

/// A GPU kernel, as data: the host code (`src/gpu/`) uploads a forest in its layout and runs
/// its recipe there.
#[derive(Debug, Clone, Copy)]
pub struct GpuKernel {
    pub layout: GpuLayout,
    /// Its recipe: the steps the host dispatches for it, in order (a scan layout's stages
    /// compiled after the prelude of its storage format and scan word, the host's table of
    /// variants).
    pub recipe: &'static [Step],
    /// Bytes the kernel must move at least on a tree with these weights (one per vertex), per
    /// stage (each input read once, each output written once): the model behind `bench`'s
    /// GB/s. The weights set the exact scan's limbs; the others need only their count.
    pub traffic: Traffic,
    /// 32-bit words per vertex of its largest device buffer on a tree with these weights: its
    /// size limit on a device ([`max_vertices`]) and the size of a sweep's forests.
    pub words_per_vertex: fn(&[f32]) -> u64,
}

impl GpuKernel {
    /// The stages its recipe dispatches, each once, sorted.
    pub fn stages(&self) -> Vec<Stage> {
        stages(self.recipe)
    }

    /// Its timed phases, in order.
    pub fn phases(&self) -> Vec<&'static str> {
        phases(self.recipe)
    }
}

/// Which of the host's kernel layouts runs an algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuLayout {
    /// Breadth-first relabelling, one pass per level (or run of narrow levels).
    Levels,
    /// Preorder relabelling, the Euler tour scanned with `plan` on `word`s, the weights and
    /// results stored as `storage`.
    Scan {
        storage: Storage,
        word: ScanWord,
        plan: Plan,
    },
    /// The order traced into levels of independent additions, one dispatch per level.
    Program,
}

/// The format a kernel's weights and results are stored in on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Storage {
    F32,
}

/// What a scan kernel adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScanWord {
    F32,
    /// (hi, lo) pairs of f32.
    FloatFloat,
    /// Fixed-point integers of L u32 words, L from the weights (`generators::fixed::Scale`).
    Exact,
}

impl ScanWord {
    /// 32-bit words per partial sum; `limbs`: the exact word's L (ignored by the others).
    pub fn words(self, limbs: usize) -> usize {
        match self {
            ScanWord::F32 => 1,
            ScanWord::FloatFloat => 2,
            ScanWord::Exact => limbs,
        }
    }
}

/// The most vertices whose largest buffer, of `words_per_vertex` 32-bit words per vertex, fits
/// in `max_binding` bytes (a device's storage binding limit).
pub fn max_vertices(max_binding: u64, words_per_vertex: u64) -> u64 {
    max_binding / (4 * words_per_vertex.max(1))
}

/// The Euler-tour vector's words per vertex: 2n positions of one `word` each (the exact
/// word's L from the weights' scale).
fn tour_words(word: ScanWord, w: &[f32]) -> u64 {
    let limbs = generators::fixed::Scale::for_weights(w).map_or(1, |s| s.gpu_words());
    2 * word.words(limbs) as u64
}

/// Measured cost per vertex of one op on one thread: the memory and time model's inputs
/// (`src/memory.rs` says how they were measured).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    /// Peak bytes while evaluated (its outcome included), the largest over the topologies and
    /// ops of `RAYON_NUM_THREADS=1 cargo bench --bench memory` (chain is the widest for most:
    /// its depth-long stacks of partial sums).
    pub peak_bytes: f64,
    /// Seconds: the kernel, errors and bounds.
    pub seconds: f64,
}

/// An algorithm: a handle on its descriptor (copied, compared and hashed by name, ordered as
/// in [`Algorithm::ALL`]).
#[derive(Clone, Copy)]
pub struct Algorithm(&'static Descriptor);

impl Algorithm {
    pub const SEQUENTIAL: Algorithm = Algorithm(&sequential::DESCRIPTOR);
    pub const PARALLEL: Algorithm = Algorithm(&parallel::DESCRIPTOR);
    pub const VECTORIAL: Algorithm = Algorithm(&vectorial::DESCRIPTOR);
    pub const VECTORIAL_SEQSCAN: Algorithm = Algorithm(&vectorial_seqscan::DESCRIPTOR);
    pub const VECTORIAL_CHAINED: Algorithm = Algorithm(&vectorial_chained::DESCRIPTOR);
    pub const VECTORIAL_COMPENSATED: Algorithm = Algorithm(&vectorial_compensated::DESCRIPTOR);
    pub const CONTRACTION: Algorithm = Algorithm(&contraction::DESCRIPTOR);
    pub const VECTORIAL_EXACT: Algorithm = Algorithm(&vectorial_exact::DESCRIPTOR);

    /// Every algorithm, in the order of tables, legends and files.
    pub const ALL: [Algorithm; 8] = [
        Algorithm::SEQUENTIAL,
        Algorithm::PARALLEL,
        Algorithm::VECTORIAL,
        Algorithm::VECTORIAL_SEQSCAN,
        Algorithm::VECTORIAL_CHAINED,
        Algorithm::VECTORIAL_COMPENSATED,
        Algorithm::CONTRACTION,
        Algorithm::VECTORIAL_EXACT,
    ];

    pub fn descriptor(self) -> &'static Descriptor {
        self.0
    }
    pub fn name(self) -> &'static str {
        self.0.name
    }
    pub fn short(self) -> &'static str {
        self.0.short
    }
    pub fn family(self) -> Family {
        self.0.family
    }
    pub fn hooks(self) -> Hooks {
        self.0.hooks
    }
    pub fn gpu(self) -> Option<&'static GpuKernel> {
        self.0.gpu.as_ref()
    }
    /// Whether the algorithm is an Euler tour + scan (the paper's "vectorial" family).
    pub fn is_vectorial(self) -> bool {
        self.0.family == Family::EulerTour
    }
    /// Whether a GPU kernel exists for this algorithm (the others are CPU-only by definition).
    pub fn has_gpu_kernel(self) -> bool {
        self.0.gpu.is_some()
    }
    /// The f32 results of `op` on every vertex, computed on the CPU by the algorithm's order
    /// (its twin).
    pub fn twin(self, tree: &Tree, w: &[f32], op: Op) -> Vec<f32> {
        self.twin_on(&Walker::new(tree), w, op)
    }
    /// [`Algorithm::twin`] on a tree's walker, which shares what the orders need of the tree
    /// between the algorithms and ops evaluated on it.
    pub fn twin_on(self, walker: &Walker, w: &[f32], op: Op) -> Vec<f32> {
        assert_eq!(walker.tree().len(), w.len(), "one weight per vertex");
        walker.count_twin();
        (self.0.hooks.twin)(walker, w, op)
    }
    /// Whether the algorithm runs in `arith` on weights carried as f32: its order is written
    /// for the accumulation format, and the storage format travels as f32 (f64 storage is
    /// [`Algorithm::twin_f64`]'s).
    pub fn runs_in(self, arith: Arithmetic) -> bool {
        arith.storage.fits_in(Precision::F32)
            && self.0.hooks.accumulates_in.contains(&arith.accumulate)
    }
    /// Whether the algorithm runs on f64 weights, storing and adding f64 (on the CPU only).
    pub fn runs_in_f64(self) -> bool {
        self.0.hooks.twin_f64.is_some()
    }
    /// The results of `op` on f64 weights when the algorithm stores and adds f64; None where
    /// its order is not written for f64 weights ([`Algorithm::runs_in_f64`]).
    pub fn twin_f64(self, walker: &Walker, w: &[f64], op: Op) -> Option<Vec<f64>> {
        assert_eq!(walker.tree().len(), w.len(), "one weight per vertex");
        let twin = self.0.hooks.twin_f64?;
        walker.count_twin();
        Some(twin(walker, w, op))
    }
    /// The results of `op` when the algorithm adds in `arith` (weights of its storage format,
    /// carried as f32; results likewise): in f32 its twin, bit for bit.
    ///
    /// # Panics
    /// Where it does not run in `arith` ([`Algorithm::runs_in`]).
    pub fn twin_in(self, walker: &Walker, w: &[f32], op: Op, arith: Arithmetic) -> Vec<f32> {
        if arith == Arithmetic::F32 {
            return self.twin_on(walker, w, op);
        }
        assert!(
            self.runs_in(arith),
            "{} does not run in {}",
            self.name(),
            arith.name()
        );
        assert_eq!(walker.tree().len(), w.len(), "one weight per vertex");
        walker.count_twin();
        (self.0.hooks.twin_in)(walker, w, op, arith)
    }
    /// The order walked once: the twin's values replayed with their running bounds, and the
    /// a priori bounds at `lambda` (docs/design.md §9).
    pub fn walk(self, walker: &Walker, w: &[f32], op: Op, lambda: f64) -> Walked {
        self.walk_in(walker, w, op, lambda, Arithmetic::F32)
    }
    /// The order walked once in `arith`: the twin's values ([`Algorithm::twin_in`], bit for
    /// bit) with their running bounds, and the a priori bounds at `lambda`, each with the
    /// accumulation format's unit and the store's rounding (docs/design.md §9.10).
    pub fn walk_in(
        self,
        walker: &Walker,
        w: &[f32],
        op: Op,
        lambda: f64,
        arith: Arithmetic,
    ) -> Walked {
        assert_eq!(walker.tree().len(), w.len(), "one weight per vertex");
        assert!(
            self.runs_in(arith),
            "{} does not run in {}",
            self.name(),
            arith.name()
        );
        (self.0.hooks.walk)(walker, w, op, lambda, arith)
    }
    /// Whether the two walk the same order (parallel performs sequential's additions, one
    /// level at a time, and its descriptor names the same walk): on the same values, their
    /// bounds and measures are equal. Compared by the walk's address: two walks the compiler
    /// merged compute the same thing, and one it duplicated only costs a second walk.
    pub fn same_walk(self, other: Algorithm) -> bool {
        std::ptr::fn_addr_eq(self.0.hooks.walk, other.0.hooks.walk)
    }
    /// The algorithm with this part in the seed paper.
    pub fn with_role(role: PaperRole) -> Algorithm {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.0.paper == Some(role))
            .expect("every paper role has an algorithm")
    }
    /// The seed paper's algorithms (sequential, parallel, vectorial): its Fig. 10's series.
    pub fn paper() -> Vec<Algorithm> {
        Algorithm::ALL
            .into_iter()
            .filter(|a| a.0.paper.is_some())
            .collect()
    }
    /// `sweep`'s default: the paper's algorithms and every correctly rounded one, so that the
    /// report's answer can name an algorithm that meets a tight threshold.
    pub fn main_job() -> Vec<Algorithm> {
        Algorithm::ALL
            .into_iter()
            .filter(|a| a.0.paper.is_some() || a.0.correctly_rounded)
            .collect()
    }
    /// Whether every result is the exact value rounded to nearest f32, by construction.
    pub fn correctly_rounded(self) -> bool {
        self.0.correctly_rounded
    }
    /// Its one-line summary in plain words (the docs' tables keep the markdown).
    pub fn summary_text(self) -> String {
        self.0.summary.replace(['`', '*'], "")
    }
    /// Every name, in [`Algorithm::ALL`]'s order (for `--algos` help and errors).
    pub fn names() -> Vec<&'static str> {
        Algorithm::ALL.iter().map(|a| a.name()).collect()
    }
    fn index(self) -> usize {
        Algorithm::ALL
            .iter()
            .position(|a| a.0.name == self.0.name)
            .expect("every descriptor is listed in ALL")
    }
}

impl PartialEq for Algorithm {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}
impl Eq for Algorithm {}
impl Hash for Algorithm {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.name.hash(state)
    }
}
impl PartialOrd for Algorithm {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Algorithm {
    fn cmp(&self, other: &Self) -> Ordering {
        self.index().cmp(&other.index())
    }
}
impl fmt::Debug for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
impl Serialize for Algorithm {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
impl<'de> Deserialize<'de> for Algorithm {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}
crate::op::name_impls!(Algorithm, "algorithm");

/// The Euler-tour kernels' traffic (the scan's write fused into level 0): the scan reads the
/// tour (2 words per vertex) and w and writes level 0 (2 elements); the read reads the
/// positions (2 words), S at open (rootfix) or at close and open − 1 (leaffix), and writes
/// the results. `E` bytes per element.
fn scan_traffic<const E: u64>(op: Op, w: &[f32]) -> Vec<(&'static str, u64)> {
    scan_traffic_of(E, op, w.len() as u64)
}

/// [`scan_traffic`] with `e` bytes per element, on n vertices.
fn scan_traffic_of(e: u64, op: Op, n: u64) -> Vec<(&'static str, u64)> {
    let reads = if op == Op::Rootfix { 1 } else { 2 };
    vec![("scan", (12 + 2 * e) * n), ("read", (12 + reads * e) * n)]
}

/// The exact scan's traffic: 4 bytes per limb of the weights' scale.
fn exact_traffic(op: Op, w: &[f32]) -> Vec<(&'static str, u64)> {
    let limbs = generators::fixed::Scale::for_weights(w).map_or(0, |s| s.gpu_words() as u64);
    scan_traffic_of(4 * limbs, op, w.len() as u64)
}

#[cfg(test)]
#[path = "tests/binary64.rs"]
mod binary64_tests;
#[cfg(test)]
mod formats_tests;
