//! The model's constants (bytes per vertex unless said otherwise), in one place.
//!
//! Per-vertex figures come from a counting allocator (`RAYON_NUM_THREADS=1 cargo bench --bench
//! memory -- 500000`: the peak and held bytes of each step on six topologies
//! and four weight models, the largest of each taken). The fixed and per-thread parts come from
//! peak RSS (`/usr/bin/time -f %M accuracy run --topology chain --nodes N` with
//! `RAYON_NUM_THREADS=T` for N = 1, 10^4, 10^5, 3·10^5, 10^6 and T = 1, 2, 8, 16): what the RSS
//! exceeded the allocations by. The algorithms' peaks are their descriptors' `peak_bytes`
//! (`cargo bench --bench memory -- 200000`, vectorial-exact at 10 limbs, its widest weights).
//! `tests/limits.rs` and `tests/memory.rs` check that the model bounds measured peaks within 1
//! to 2 times; each command's estimate against its peak: docs/measurements.md, "The memory
//! model against measured peaks".

/// The process before any tree: binary, libraries, first allocations (peak RSS of
/// `accuracy run --nodes 1`: 11.2 MB).
pub const FIXED: f64 = 12e6;
/// The allocator's caches (mimalloc keeps freed pages per thread): peak RSS exceeded the
/// allocations by up to 36 MB with one thread and 150 MB with 16, at 10^4 to 3·10^5
/// vertices; 35 MB plus 11 MB per thread covers every size measured.
pub const ALLOCATOR: f64 = 35e6;
pub const ALLOCATOR_PER_THREAD: f64 = 11e6;
/// Pages of an evaluation's freed per-node arrays that the allocator keeps (its purge
/// delay, a second). How many steps' freed arrays are still resident depends on how many
/// steps fit in the delay, so on timing, and the shorter the steps the more of them: with one
/// algorithm evaluated at a time, peak RSS exceeded the model's allocations by 42 (profile,
/// 16.24·10^6 vertices), 60 (profile, 2^22) and 69 to 82 (chain, 10^6, four runs on a loaded
/// machine) bytes per vertex; with all algorithms (parallel sharing sequential's walk, the
/// Euler-tour walks not loading weights by vertex), `run --topology chain --nodes 300000
/// --cond 1e5` (release, 2 threads) peaked at 193.5 and 201.8 MB, above the fixed part and
/// the counted allocations (tree 45, weights 4, evaluation 227.4 bytes per vertex: `cargo
/// bench --bench memory` with `RAYON_NUM_THREADS=2`); 180 covers them.
pub const ALLOCATOR_PER_VERTEX: f64 = 180.0;
/// The same for an evaluation of at most two steps (one algorithm, one or both ops): the second
/// step's arrays have the first's sizes, and mimalloc gives it the first's freed pages. Peak
/// RSS of `run --cond 1e5 --algos parallel` (release, 2 threads), against the fixed part and
/// the counted allocations (tree 44, weights 4, the widest exact reference 48, parallel's peak
/// 116: 212 per vertex): both ops, chain 1, 2 and 4·10^6 vertices 237, 233 and 208 bytes per
/// vertex in all, star 265, 222 and 204, random-recursive at 2·10^6 160 (the counts and the
/// fixed part, 281, 247 and 229 per vertex at those sizes, cover every one); rootfix alone,
/// chain 235 and 208, star 166 and 146 at 1 and 4·10^6. The test build's chain at 2·10^6 came to
/// 252, 5 above the counts; 45 covers it with the margin the many-step figure has.
pub const ALLOCATOR_PER_VERTEX_FEW_STEPS: f64 = 45.0;
/// The same once freed pages are given back at once ([`super::EAGER_PURGE_FROM`]), where peak
/// RSS stays at or below the counted allocations and the fixed part (nothing, γ̃ included, is
/// kept per thread for the process): `run --cond 1e8` (all algorithms,
/// 2 threads) of a chain of 2^22 vertices peaked at 1.150 GB, 8 bytes per vertex below its
/// counts (tree 44, weights 4, evaluation 217.9), and of a `profile` tree at 684.6 MB, far
/// below (contraction's output and slots are reserved whole but touched, and given back, a
/// page at a time); at 16,240,000 vertices 4.27 and 2.61 GB. 20 keeps a margin on the chain,
/// the hungriest topology, whose evaluation (217.9) comes within 4 % of the model's (230 with
/// the reference): the estimates are 1.12 times the chain's peaks at both sizes, and 1.88 and
/// 1.83 times `profile`'s (the estimate does not depend on the topology).
pub const ALLOCATOR_PER_VERTEX_EAGER: f64 = 20.0;
/// A tree (parents, CSR children, depths, sizes, orders, Euler positions, levels): 40 to
/// 44 held; 57 at the peak of its construction.
pub const TREE: f64 = 44.0;
pub const TREE_BUILD: f64 = 57.0;
/// f32 weights (gensum's generation allocates nothing more).
pub const WEIGHTS: f64 = 4.0;
/// One op's reference, held and at the peak of its computation. Exact: the widest case, which
/// the weights' exponent span decides at run time, not their count — values over the whole f32
/// range (`ExactSum`, 48 bytes) and Σ|terms| held (56: the roundings are made when read), and
/// while they are computed, the running (value, Σ|terms|) pair of every vertex besides (96
/// more: 152).
/// Measured: `run --topology chain --algos parallel --ops rootfix` with gensum weights at
/// κ = 1e3 takes the whole range from 6.5·10^6 vertices on, and its peak RSS grows by 56 bytes
/// per vertex there against `--reference dd` (169.6 → 225.3 B per vertex); counting only the
/// 1 to 4 limbs of narrower spans (32 held, 78 at the peak) would let a run of 1.7·10^7
/// vertices under `ulimit -v 4000000` through to abort on that pair vector.
/// Double-double: 24 held, 45 at the peak.
pub const REFERENCE_EXACT: f64 = 56.0;
pub const REFERENCE_EXACT_PEAK: f64 = 152.0;
/// The exact reference where every weight is finite (generated weights always are): the
/// weights' fixed-point scale, at most 5 limbs — the values (40) and Σ|terms| (8) held (48),
/// and while they are computed on several threads, the walk's (value, Σ|terms|) pair per
/// vertex of the blocks' root paths besides (80 more: 128; every vertex on a chain, a few per
/// block on bushy trees). Counted from the layouts, as the whole-range case is.
pub const REFERENCE_EXACT_FINITE: f64 = 48.0;
pub const REFERENCE_EXACT_PEAK_FINITE: f64 = 128.0;
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
/// `score`: the results file's vertex keys (a hash map of strings) and per-op values: an
/// `Option<f64>` slot per vertex while read, the f64 values made from them, and for the formats
/// f32 carries their f32 copy.
pub const SCORE_KEYS: f64 = 64.0;
pub const SCORE_RESULTS: f64 = 24.0;
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
