//! `DIR/summary.json`: what ran, where, how long, and the worst loss per algorithm and op.

use super::params::SweepParams;
use crate::verdict::Violations;
use analysis::records::results::ResultRow;
use serde::Serialize;

/// Wall time spent in each phase, summed over trees (seconds).
#[derive(Debug, Default, Clone, Serialize)]
pub struct Timings {
    pub generate_s: f64,
    pub evaluate_s: f64,
    pub wall_s: f64,
    /// Per algorithm and op: the time its values took (kernel or CPU twin, without reference,
    /// errors and bounds) over the trees this run evaluated (the report's relative cost).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kernels: Vec<KernelTime>,
}

/// The time one algorithm's values took on one op, summed over trees.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct KernelTime {
    pub algorithm: String,
    pub op: String,
    /// `cpu` (the twin) or the adapter that ran the kernel.
    pub backend: String,
    pub compute_s: f64,
    pub trees: usize,
    pub vertices: usize,
}

impl Timings {
    /// Adds one tree's (or one shard's) kernel times.
    pub fn add_kernels(&mut self, more: impl IntoIterator<Item = KernelTime>) {
        for k in more {
            match self
                .kernels
                .iter_mut()
                .find(|x| x.algorithm == k.algorithm && x.op == k.op && x.backend == k.backend)
            {
                Some(x) => {
                    x.compute_s += k.compute_s;
                    x.trees += k.trees;
                    x.vertices += k.vertices;
                }
                None => self.kernels.push(k),
            }
        }
    }
}

/// What `summary.json` holds.
#[derive(Debug, Serialize)]
pub(super) struct Summary<'a> {
    pub tool: &'static str,
    pub version: &'static str,
    pub command_line: Vec<String>,
    pub params: &'a SweepParams,
    pub backend: String,
    pub trees: usize,
    pub resumed_trees: usize,
    pub timings: Timings,
    pub threads: usize,
    pub worst: Vec<Worst>,
    pub environment: crate::environment::Environment,
}

/// The largest loss per (algorithm, op) over the sweep.
#[derive(Debug, Serialize)]
pub(super) struct Worst {
    algorithm: String,
    op: String,
    /// `"inf"` when a result was NaN or ±∞ (JSON has no infinity).
    #[serde(serialize_with = "analysis::records::fields::number_or_string")]
    max_lost_bits: f64,
    #[serde(serialize_with = "analysis::records::fields::number_or_string")]
    max_rel_error: f64,
    /// Nodes whose result is NaN or ±∞ where a finite one exists.
    nonfinite_nodes: usize,
    /// Nodes where f32 overflows (left out of the bound checks).
    overflow_nodes: usize,
    /// Nodes whose exact value is 0 but computed value is not, and their largest |error|.
    flagged_nodes: usize,
    max_flagged_abs_error: f64,
    /// Nodes where a backend's result differed from its CPU twin (absent on the CPU).
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_mismatches: Option<usize>,
}

pub(super) fn worst(params: &SweepParams, rows: &[ResultRow]) -> Vec<Worst> {
    let mut out = Vec::new();
    for op in &params.ops {
        for algo in &params.algos {
            let mine = rows
                .iter()
                .filter(|r| r.op == op.name() && r.algorithm == algo.name());
            let mut w = Worst {
                algorithm: algo.to_string(),
                op: op.to_string(),
                max_lost_bits: 0.0,
                max_rel_error: 0.0,
                flagged_nodes: 0,
                max_flagged_abs_error: 0.0,
                gpu_mismatches: None,
                nonfinite_nodes: 0,
                overflow_nodes: 0,
            };
            for r in mine {
                w.max_lost_bits = w.max_lost_bits.max(r.max_lost_bits);
                w.max_rel_error = w.max_rel_error.max(r.max_rel_error);
                w.flagged_nodes += r.flagged_nodes;
                w.nonfinite_nodes += r.nonfinite_nodes.unwrap_or(0);
                w.overflow_nodes += r.overflow_nodes.unwrap_or(0);
                w.max_flagged_abs_error = w
                    .max_flagged_abs_error
                    .max(r.max_flagged_abs_error.unwrap_or(0.0));
                if let Some(k) = r.gpu_mismatches {
                    w.gpu_mismatches = Some(w.gpu_mismatches.unwrap_or(0) + k);
                }
            }
            out.push(w);
        }
    }
    out
}

/// The trees of `rows` with deterministic-bound violations, one line each, marked with `note`
/// (their nodes were printed by the run that found them).
pub(super) fn violations_in_rows(rows: &[ResultRow], note: &str) -> Violations {
    let mut violations = Violations::default();
    for r in rows
        .iter()
        .filter(|r| r.deterministic_violations().unwrap_or(0) > 0)
    {
        violations.count += r.deterministic_violations().unwrap_or(0);
        violations.lines.push(format!(
            "tree {} (seed {}) {} {}: {} a priori, {} sharp and {} running-bound violations ({note})",
            r.tree,
            r.seed,
            r.op,
            r.algorithm,
            r.bound_violations.unwrap_or(0),
            r.sharp_violations.unwrap_or(0),
            r.running_violations.unwrap_or(0)
        ));
    }
    violations
}
