//! `bench.csv`: one row per topology × n × op × algorithm × backend (`accuracy bench --out`).
//!
//! Baselines measured in the same run use `algorithm` = `copy` (device-to-device copy kernel),
//! `upload` or `download` (host↔device buffer copies), with `op` empty.

use super::fields::field_names;
use serde::{Deserialize, Serialize};

/// The file's name in a bench output directory.
pub const FILE: &str = "bench.csv";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchRecord {
    /// Topology family with parameters (`star`, `kary:4`), or a file's name for `--tree FILE`.
    pub topology: String,
    pub n: usize,
    pub height: u32,
    /// `rootfix`, `leaffix`, or empty for a baseline row.
    pub op: String,
    pub algorithm: String,
    /// `gpu: <adapter> (<api>, <driver>)` or `cpu`.
    pub backend: String,
    /// Kernel time (GPU timestamps where available): median, min, max over the repetitions.
    pub compute_s: f64,
    pub compute_min_s: f64,
    pub compute_max_s: f64,
    /// Weights up plus results down (not the tree upload): median, min, max.
    pub transfer_s: f64,
    pub transfer_min_s: f64,
    pub transfer_max_s: f64,
    /// Bytes moved by the kernels (compute) or across the bus (baselines), per call.
    pub bytes_moved: u64,
    pub reps: usize,
}

impl BenchRecord {
    /// Every column of `bench.csv`, in file order.
    pub fn columns() -> &'static [&'static str] {
        field_names::<BenchRecord>()
    }

    /// Compute nanoseconds per vertex (median).
    pub fn compute_ns_per_vertex(&self) -> f64 {
        crate::format::ns_per_vertex(self.compute_s, self.n)
    }
}

/// Whether a `backend` column names the CPU twin (`cpu`, or empty in a baseline row) rather
/// than a GPU adapter.
pub fn is_cpu_backend(backend: &str) -> bool {
    backend == "cpu" || backend.is_empty()
}

/// What a bench.csv offers for pricing one op of a sweep: times only on the sweep's own trees
/// (topology and size), so that every ratio compares the same work.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Matched {
    /// Per algorithm asked for: its time per vertex (the median over the matched trees) and
    /// the backend that ran it; GPU kernels' rows when it has any (a CPU twin's time is never
    /// a GPU price). `None` where it lacks a matched tree.
    pub times: Vec<Option<(f64, String)>>,
    /// The sweep's trees (topology, n) that no algorithm was timed on.
    pub missing_trees: Vec<(String, usize)>,
    /// Algorithms timed on some matched trees but not all, or on none.
    pub missing_algorithms: Vec<String>,
}

/// The times of `algorithms` on `op` in `records`, on the sweep's `trees` (topology, n).
pub fn times_on(
    records: &[BenchRecord],
    algorithms: &[String],
    op: &str,
    trees: &[(String, usize)],
) -> Matched {
    let on = |r: &BenchRecord, t: &(String, usize)| r.topology == t.0 && r.n == t.1;
    // Per algorithm: its rows on the sweep's trees, of one kind (GPU kernels' when any).
    let rows: Vec<Vec<&BenchRecord>> = algorithms
        .iter()
        .map(|a| {
            let all: Vec<&BenchRecord> = records
                .iter()
                .filter(|r| r.algorithm == *a && r.op == op && trees.iter().any(|t| on(r, t)))
                .collect();
            let gpu = all.iter().any(|r| !is_cpu_backend(&r.backend));
            all.into_iter()
                .filter(|r| is_cpu_backend(&r.backend) != gpu)
                .collect()
        })
        .collect();
    let (matched, missing_trees): (Vec<_>, Vec<_>) = trees
        .iter()
        .cloned()
        .partition(|t| rows.iter().flatten().any(|r| on(r, t)));
    let mut out = Matched {
        missing_trees,
        ..Matched::default()
    };
    for (a, mine) in algorithms.iter().zip(&rows) {
        let per_tree: Option<Vec<f64>> = matched
            .iter()
            .map(|t| {
                let mut v: Vec<f64> = mine
                    .iter()
                    .filter(|r| on(r, t))
                    .map(|r| r.compute_s / r.n as f64)
                    .collect();
                crate::stats::median(&mut v)
            })
            .collect();
        let time = per_tree
            .filter(|v| !v.is_empty())
            .and_then(|mut v| crate::stats::median(&mut v))
            .map(|t| (t, mine[0].backend.clone()));
        if time.is_none() {
            out.missing_algorithms.push(a.clone());
        }
        out.times.push(time);
    }
    out
}
/// An algorithm's time per vertex on `op` in a bench.csv, and the backend that ran it: GPU
/// kernels' rows when there are any (a CPU twin's time is never a GPU price), at the largest n
/// timed, the median over the topologies timed at that n.
pub fn time_per_vertex(
    records: &[BenchRecord],
    algorithm: &str,
    op: &str,
) -> Option<(f64, String)> {
    let is_cpu = |r: &BenchRecord| is_cpu_backend(&r.backend);
    let all: Vec<&BenchRecord> = records
        .iter()
        .filter(|r| r.algorithm == algorithm && r.op == op && r.n > 0)
        .collect();
    let gpu = all.iter().any(|r| !is_cpu(r));
    let mine: Vec<&BenchRecord> = all.into_iter().filter(|r| is_cpu(r) != gpu).collect();
    let n = mine.iter().map(|r| r.n).max()?;
    let mut per_vertex: Vec<f64> = mine
        .iter()
        .filter(|r| r.n == n)
        .map(|r| r.compute_s / r.n as f64)
        .collect();
    let backend = mine.iter().find(|r| r.n == n)?.backend.clone();
    Some((crate::stats::median(&mut per_vertex)?, backend))
}
