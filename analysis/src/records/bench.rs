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
