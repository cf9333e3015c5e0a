//! `run --json`'s document: the tree, and per op and algorithm the summaries that `run`'s
//! tables print.

use analysis::bounds::BoundSummary;
use analysis::metrics::ErrorSummary;
use analysis::records::fields::number_or_string;
use serde::Serialize;
use treefix_accuracy::experiment::{self, Measured};

#[derive(Serialize)]
pub struct RunJson<'a> {
    format_version: u32,
    tool: &'static str,
    version: &'static str,
    tree: TreeJson<'a>,
    results: Vec<ResultJson<'a>>,
}

#[derive(Serialize)]
struct TreeJson<'a> {
    /// The header line of the tables: the tree, where it came from, its weights.
    title: &'a str,
    n: usize,
    height: u32,
    mean_branching: f64,
    #[serde(serialize_with = "number_or_string")]
    achieved_cond: f64,
    seed: u64,
}

#[derive(Serialize)]
struct ResultJson<'a> {
    op: &'static str,
    algorithm: &'static str,
    errors: &'a ErrorSummary,
    bounds: &'a BoundSummary,
    /// The largest distance from the correctly rounded result, in ulps ("inf" for a
    /// non-finite result).
    #[serde(serialize_with = "number_or_string")]
    max_ulps: f64,
    /// Nodes where the GPU's bits differ from its CPU twin's (absent: the twin's own values).
    gpu_mismatches: Option<usize>,
    /// Seconds the values took (the GPU kernel's, else the CPU twin's).
    compute_s: f64,
}

pub fn document<'a>(
    title: &'a str,
    tree: &generators::Tree,
    weights: &[f32],
    seed: u64,
    measured: &'a [Measured],
) -> RunJson<'a> {
    RunJson {
        format_version: treefix_accuracy::FORMAT_VERSION,
        tool: "treefix-accuracy",
        version: env!("CARGO_PKG_VERSION"),
        tree: TreeJson {
            title,
            n: tree.len(),
            height: tree.height(),
            mean_branching: tree.mean_branching(),
            achieved_cond: experiment::achieved_cond(weights),
            seed,
        },
        results: measured
            .iter()
            .map(|m| ResultJson {
                op: m.op.name(),
                algorithm: m.algorithm.name(),
                errors: &m.summary,
                bounds: &m.bound_summary,
                max_ulps: m.max_ulps,
                gpu_mismatches: m.gpu_mismatches,
                compute_s: m.compute_s,
            })
            .collect(),
    }
}
