//! A sweep's batches: on a GPU, consecutive trees run as one forest per dispatch (the same
//! bits as one tree at a time), with their exact references when the GPU computes them (from
//! the same upload), before the CPU assesses each tree against those values; on the CPU, the
//! trees are built and evaluated one by one, all in one batch.

use super::params::{Job, SweepParams};
use super::tree::{Built, TreeDone, assess_with, build, evaluate_tree};
use crate::experiment::{Backend, Computed};
use crate::inputs::LoadedTree;
use crate::{Device, Error};
use analysis::ReferenceKind;
use rayon::prelude::*;
use std::time::Instant;

/// What the trees of a batch are evaluated with.
pub(super) struct Batching<'a> {
    pub params: &'a SweepParams,
    pub files: &'a [LoadedTree],
    pub backend: &'a dyn Backend,
    pub backend_name: &'a str,
}

/// One tree of a batch, ready to be assessed.
pub(super) enum Pending<'a> {
    /// Built and evaluated when assessed (the CPU twins compute as they go).
    Build,
    /// Built, its kernels' values computed in the batch.
    Computed(Box<(Result<Built<'a>, Error>, Computed)>),
}

impl<'a> Batching<'a> {
    /// Consecutive jobs of at most 2^22 vertices together on a GPU (the sizes of generated
    /// trees and files are known before building them), so a batch's forest stays well inside
    /// any GPU's limits; every job in one batch on the CPU.
    pub fn batches<'j>(&self, todo: &'j [Job]) -> Vec<&'j [Job]> {
        if self.backend.device() == Device::Cpu {
            return vec![todo];
        }
        const MAX_VERTICES: usize = 1 << 22;
        let size = |job: &Job| job.vertices(self.params, self.files);
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

    /// The batch's trees, each with the values computed for it: on a GPU, the trees built in
    /// parallel, then each (algorithm, op) with a kernel run on all of them as forests, then
    /// (exact reference) each op's references from those forests, still uploaded.
    pub fn prepare(&self, batch: &[Job]) -> Result<Vec<Pending<'a>>, Error> {
        if self.backend.device() == Device::Cpu {
            return Ok(batch.iter().map(|_| Pending::Build).collect());
        }
        let (params, files) = (self.params, self.files);
        let built: Vec<Result<Built<'a>, Error>> = batch
            .par_iter()
            .map(|job| build(params, files, job))
            .collect();
        let mut computed: Vec<Computed> = batch.iter().map(|_| Computed::default()).collect();
        let jobs: Vec<(&generators::Tree, &[f32])> = built
            .iter()
            .flatten()
            .map(|b| (&b.tree, b.weights.as_slice()))
            .collect();
        let vertices = jobs.iter().map(|(t, _)| t.len()).sum::<usize>().max(1) as f64;
        for &op in &params.ops {
            for &algo in params.algos.iter().filter(|a| a.has_gpu_kernel()) {
                let t0 = Instant::now();
                let mut results = self.backend.compute_many(&jobs, algo, op)?.into_iter();
                let seconds = t0.elapsed().as_secs_f64();
                // Trees that failed to build get no values (their error is reported instead);
                // each built tree's share of the time is its share of the vertices.
                for (b, c) in built.iter().zip(&mut computed) {
                    if let Ok(b) = b {
                        let values = results.next().unwrap_or_default();
                        c.insert(algo, op, values, seconds * b.tree.len() as f64 / vertices);
                    }
                }
            }
            if params.reference == ReferenceKind::Exact {
                // A tree without one (a −0 weight) gets the CPU's when assessed.
                let mut references = self.backend.exact_references(&jobs, op)?.into_iter();
                for (b, c) in built.iter().zip(&mut computed) {
                    if b.is_ok()
                        && let Some(r) = references.next().flatten()
                    {
                        c.insert_reference(op, r);
                    }
                }
            }
        }
        Ok(built
            .into_iter()
            .zip(computed)
            .map(|(b, c)| Pending::Computed(Box::new((b, c))))
            .collect())
    }

    /// Evaluates one tree of a batch.
    pub fn assess(&self, pending: Pending<'_>, job: &Job) -> Result<TreeDone, Error> {
        let (params, backend, name) = (self.params, self.backend, self.backend_name);
        match pending {
            Pending::Build => evaluate_tree(params, self.files, job, backend, name),
            Pending::Computed(pair) => {
                let (built, computed) = *pair;
                built.and_then(|b| assess_with(params, job, b, computed, backend, name))
            }
        }
    }
}
