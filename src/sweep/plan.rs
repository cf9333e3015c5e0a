//! What a sweep will take, before it starts: its peak memory (the model of `crate::memory`)
//! and its time on the threads it has.

use super::SweepParams;
use crate::memory::{Estimate, Evaluation, in_flight, plural, process};
use analysis::ReferenceKind;
use analysis::format::duration;
use generators::io::human_bytes;

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
pub fn plan(
    params: &SweepParams,
    files: &[crate::inputs::LoadedTree],
    gpu: bool,
    threads: usize,
) -> SweepPlan {
    use crate::memory::model::*;
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
            ALLOCATOR_PER_VERTEX,
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
