//! One tree of a sweep: built (generated, or read and weighted), evaluated with every
//! algorithm and op, and turned into the rows and samples the sweep's files receive.

use super::params::{Job, Source, SweepParams};
use crate::Error;
use crate::experiment::{self, Backend, Computed, InstanceSpec, Measured, Outcome, Sink};
use crate::inputs::{LoadedTree, TreeInput, WeightChoice};
use crate::verdict::Violations;
use analysis::orders::Walker;
use analysis::records::results::ResultRow;
use analysis::{Op, Reference};
use std::time::Instant;

/// What one evaluated tree contributes to the sweep's files.
pub(super) struct TreeDone {
    pub rows: Vec<ResultRow>,
    pub sample: Vec<super::nodes_sample::NodeRecord>,
    pub violations: Violations,
    /// Nodes whose backend result differs from the CPU twin, with a line per op × algorithm.
    pub mismatches: (usize, Vec<String>),
    pub generate_s: f64,
    pub evaluate_s: f64,
    /// Each algorithm's time on each op (its kernel or CPU twin).
    pub kernels: Vec<super::summary::KernelTime>,
}

/// One weighted tree, built and named.
pub(super) struct Built<'a> {
    name: String,
    source: Option<&'a TreeInput>,
    pub tree: generators::Tree,
    pub weights: Vec<f32>,
    generate_s: f64,
}

/// Builds one weighted tree: generated, or read and weighted.
pub(super) fn build<'a>(
    params: &SweepParams,
    files: &'a [LoadedTree],
    job: &Job,
) -> Result<Built<'a>, Error> {
    let t0 = Instant::now();
    let (name, source, tree, weights) = match job.source {
        Source::Generated(topology) => {
            let WeightChoice::Model(weights) = params.weights else {
                return Err(Error::Usage(
                    "--weights file needs tree files (--tree FILE)".into(),
                ));
            };
            let spec = InstanceSpec {
                topology,
                n: params.nodes,
                weights,
                target_cond: job.target_cond,
                child_order: job.child_order,
                seed: job.seed,
            };
            let instance = spec.generate()?;
            (topology.to_string(), None, instance.tree, instance.weights)
        }
        Source::File(i) => {
            let file = &files[i];
            let tree = file.tree(job.child_order);
            let weights = match params.weights {
                WeightChoice::File => file.own_weights()?.to_vec(),
                WeightChoice::Model(m) => file.model_weights(
                    m,
                    tree.len(),
                    job.target_cond,
                    &mut generators::rng(job.seed),
                )?,
            };
            (file.name(), Some(&file.input), tree, weights)
        }
    };
    Ok(Built {
        name,
        source,
        tree,
        weights,
        generate_s: t0.elapsed().as_secs_f64(),
    })
}

/// Builds one tree and evaluates every algorithm and op on it.
pub(super) fn evaluate_tree(
    params: &SweepParams,
    files: &[LoadedTree],
    job: &Job,
    backend: &dyn Backend,
    backend_name: &str,
) -> Result<TreeDone, Error> {
    let built = build(params, files, job)?;
    assess_with(
        params,
        job,
        built,
        Computed::default(),
        backend,
        backend_name,
    )
}

/// Evaluates every algorithm and op on a built tree, assessing the values `computed` holds
/// (a GPU batch's) and computing the others with `backend`.
pub(super) fn assess_with(
    params: &SweepParams,
    job: &Job,
    built: Built<'_>,
    mut computed: Computed,
    backend: &dyn Backend,
    backend_name: &str,
) -> Result<TreeDone, Error> {
    let t1 = Instant::now();
    let achieved = experiment::achieved_cond(&built.weights);
    let mut kept = Kept {
        tree: job.index,
        measured: Vec::new(),
        sample: Vec::new(),
    };
    experiment::evaluate_walked(
        &mut Walker::new(&built.tree),
        &built.weights,
        &params.ops,
        &params.algos,
        params.reference,
        backend,
        &mut computed,
        &|_| {},
        &mut kept,
    )?;
    let t2 = Instant::now();
    let rows = rows(params, job, &built, achieved, &kept.measured, backend_name);
    let context = format!("tree {} ({}, seed {})", job.index, built.name, job.seed);
    Ok(TreeDone {
        rows,
        sample: kept.sample,
        violations: crate::verdict::violations(&context, &kept.measured),
        mismatches: experiment::mismatch_report(&context, &kept.measured),
        generate_s: built.generate_s,
        evaluate_s: (t2 - t1).as_secs_f64(),
        kernels: kept
            .measured
            .iter()
            .map(|o| super::summary::KernelTime {
                algorithm: o.algorithm.to_string(),
                op: o.op.to_string(),
                backend: row_backend(o.algorithm, backend_name),
                compute_s: o.compute_s,
                trees: 1,
                vertices: built.tree.len(),
            })
            .collect(),
    })
}

/// What a sweep keeps of a tree's outcomes: their summaries and a sample of their nodes.
struct Kept {
    tree: usize,
    measured: Vec<Measured>,
    sample: Vec<super::nodes_sample::NodeRecord>,
}

impl Sink for Kept {
    fn outcome(&mut self, reference: &Reference, outcome: Outcome) -> Result<(), Error> {
        self.sample
            .extend(super::nodes_sample::sample(self.tree, reference, &outcome));
        self.measured.push(outcome.measured);
        Ok(())
    }
    fn op_done(&mut self, _op: Op, _reference: Reference) -> Result<(), Error> {
        Ok(())
    }
}

/// The tree's rows of results.csv: one per op × algorithm, in evaluation order.
fn rows(
    params: &SweepParams,
    job: &Job,
    built: &Built<'_>,
    achieved: f64,
    measured: &[Measured],
    backend_name: &str,
) -> Vec<ResultRow> {
    let (tree, source) = (&built.tree, built.source);
    measured
        .iter()
        .map(|o| ResultRow {
            tree: job.index,
            topology: built.name.clone(),
            n: tree.len(),
            height: tree.height(),
            child_order: job.child_order.to_string(),
            weights: params.weights.to_string(),
            seed: job.seed,
            target_cond: job.target_cond,
            achieved_cond: achieved,
            algorithm: o.algorithm.to_string(),
            op: o.op.to_string(),
            backend: row_backend(o.algorithm, backend_name),
            reference: params.reference.name().into(),
            max_rel_error: o.summary.max_rel_error,
            median_rel_error: o.summary.median_rel_error,
            p99_rel_error: o.summary.p99_rel_error,
            max_lost_bits: o.summary.max_lost_bits,
            flagged_nodes: o.summary.flagged_nodes,
            bound_violations: Some(o.bound_summary.bound_violations),
            sharp_violations: Some(o.bound_summary.sharp_violations),
            running_violations: Some(o.bound_summary.running_violations),
            prob_violations: Some(o.bound_summary.prob_violations),
            median_tightness: Some(o.bound_summary.median_tightness),
            max_tightness: Some(o.bound_summary.max_tightness),
            max_bound_lost_bits: Some(o.bound_summary.max_bound_lost_bits),
            gpu_mismatches: o.gpu_mismatches,
            max_flagged_abs_error: Some(o.summary.max_flagged_abs_error),
            source: source.map(|s| s.path.display().to_string()),
            source_sha256: source.map(|s| s.sha256.clone()),
            nonfinite_nodes: Some(o.summary.nonfinite_nodes),
            overflow_nodes: Some(o.bound_summary.overflow.total()),
            max_ulps: Some(o.max_ulps),
        })
        .collect()
}

/// Where an algorithm ran: the backend if it has a kernel there, else the CPU.
fn row_backend(algorithm: analysis::Algorithm, backend_name: &str) -> String {
    if algorithm.has_gpu_kernel() {
        backend_name.to_string()
    } else {
        "cpu".into()
    }
}
