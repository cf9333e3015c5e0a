//! A sweep on a GPU: consecutive trees run as one forest per dispatch (the same bits as one
//! tree at a time), then the CPU evaluates the batch in parallel against those results.

use super::params::{Job, SweepParams};
use super::run::{Evaluation, Outcome};
use super::tree::{Built, assess, build};
use crate::Error;
use crate::experiment::Backend;
use crate::inputs::LoadedTree;
use analysis::{Algorithm, Op};
use rayon::prelude::*;
use std::sync::mpsc::Sender;

/// Evaluates `todo` batch by batch, sending each tree's outcome with its position in `todo`;
/// stops between batches once the evaluation is stopped, and after a batch whose forests
/// failed.
pub(super) fn evaluate(e: &Evaluation<'_>, todo: &[Job], tx: Sender<Outcome>) {
    let (params, files) = (e.params, e.files);
    let mut first = 0;
    for batch in batches(params, files, todo) {
        if e.stopped() {
            return;
        }
        let built: Vec<Result<Built<'_>, Error>> = batch
            .par_iter()
            .map(|job| build(params, files, job))
            .collect();
        let computed = match Precomputed::compute(params, &built, e.backend, e.backend_name) {
            Ok(c) => c,
            Err(e) => {
                // The trees before this batch are written; the error ends the sweep.
                let _ = tx.send((first, Err(e)));
                return;
            }
        };
        batch
            .par_iter()
            .zip(built)
            .enumerate()
            .for_each_with(tx.clone(), |tx, (k, (job, b))| {
                let done = b.and_then(|b| {
                    assess(params, job, b, &computed.tree(k, e.backend), e.backend_name)
                });
                e.tree_done(job);
                let _ = tx.send((first + k, done));
            });
        first += batch.len();
    }
}

/// Consecutive jobs of at most 2^22 vertices together (the sizes of generated trees and files
/// are known before building them), so a batch's forest stays well inside any GPU's limits.
fn batches<'j>(params: &SweepParams, files: &[LoadedTree], todo: &'j [Job]) -> Vec<&'j [Job]> {
    const MAX_VERTICES: usize = 1 << 22;
    let size = |job: &Job| job.vertices(params, files);
    let mut out = Vec::new();
    let (mut start, mut total) = (0, 0);
    for (i, job) in todo.iter().enumerate() {
        if i > start && total + size(job) > MAX_VERTICES {
            out.push(&todo[start..i]);
            (start, total) = (i, 0);
        }
        total += size(job);
    }
    if start < todo.len() {
        out.push(&todo[start..]);
    }
    out
}

/// One result vector per tree of a batch, for one (algorithm, op).
type PerTree = ((Algorithm, Op), Vec<Vec<f32>>);

/// A batch's GPU results, computed as forests: per (algorithm, op), one result per tree.
struct Precomputed {
    name: String,
    values: Vec<PerTree>,
}

impl Precomputed {
    fn compute(
        params: &SweepParams,
        built: &[Result<Built<'_>, Error>],
        backend: &dyn Backend,
        backend_name: &str,
    ) -> Result<Precomputed, Error> {
        let jobs: Vec<(&generators::Tree, &[f32])> = built
            .iter()
            .flatten()
            .map(|b| (&b.tree, b.weights.as_slice()))
            .collect();
        let mut values = Vec::new();
        for &op in &params.ops {
            for &algo in params.algos.iter().filter(|a| a.has_gpu_kernel()) {
                let mut results = backend.compute_many(&jobs, algo, op)?.into_iter();
                // Trees that failed to build get no result (their error is reported instead).
                let per_job = built
                    .iter()
                    .map(|b| match b {
                        Ok(_) => results.next().unwrap_or_default(),
                        Err(_) => Vec::new(),
                    })
                    .collect();
                values.push(((algo, op), per_job));
            }
        }
        Ok(Precomputed {
            name: backend_name.to_string(),
            values,
        })
    }

    /// The backend as seen by tree `k` of the batch; `real` computes what was not batched
    /// (the exact reference, when the GPU computes it).
    fn tree<'a>(&'a self, k: usize, real: &'a dyn Backend) -> OneTree<'a> {
        OneTree {
            batch: self,
            k,
            real,
        }
    }
}

/// One tree's precomputed GPU results, served as a [`Backend`].
struct OneTree<'a> {
    batch: &'a Precomputed,
    k: usize,
    real: &'a dyn Backend,
}

impl Backend for OneTree<'_> {
    fn describe(&self) -> String {
        self.batch.name.clone()
    }
    fn compute(
        &self,
        _tree: &generators::Tree,
        _w: &[f32],
        algo: Algorithm,
        op: Op,
    ) -> Result<Vec<f32>, Error> {
        self.batch
            .values
            .iter()
            .find(|(key, _)| *key == (algo, op))
            .map(|(_, v)| v[self.k].clone())
            .ok_or_else(|| Error::Gpu(format!("no batched result for {algo} {op}")))
    }
    fn exact_reference(
        &self,
        tree: &generators::Tree,
        w: &[f32],
        op: Op,
    ) -> Result<Option<analysis::Reference>, Error> {
        self.real.exact_reference(tree, w, op)
    }
}
