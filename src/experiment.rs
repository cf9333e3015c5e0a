//! One experiment: a seeded weighted tree, every requested algorithm and operation, and the
//! errors of each against a reference.

use crate::Error;
use analysis::bounds::{self, BoundSummary, NodeBounds};
use analysis::metrics::ErrorSummary;
use analysis::{Algorithm, NodeError, Op, Reference, ReferenceKind};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use rayon::prelude::*;
use rug::Float;
use serde::{Deserialize, Serialize};

/// Everything that determines one weighted tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceSpec {
    pub topology: Topology,
    pub n: usize,
    pub weights: WeightModel,
    /// Target condition number (used by `gensum` only).
    pub target_cond: f64,
    pub child_order: ChildOrder,
    pub seed: u64,
}

/// A generated weighted tree.
pub struct Instance {
    pub spec: InstanceSpec,
    pub tree: Tree,
    pub weights: Vec<f32>,
}

impl InstanceSpec {
    /// The tree, then the weights, from one ChaCha20 stream seeded with `seed`: a row of
    /// results.csv is reproduced by `accuracy run` with the same options and seed.
    pub fn generate(&self) -> Result<Instance, Error> {
        if self.n == 0 {
            return Err(Error::Usage("--nodes must be at least 1".into()));
        }
        let mut rng = generators::rng(self.seed);
        let tree = self.topology.generate(self.n, self.child_order, &mut rng)?;
        let weights = self.weights.weights(self.n, self.target_cond, &mut rng)?;
        Ok(Instance {
            spec: self.clone(),
            tree,
            weights,
        })
    }
}

/// Where the f32 results come from.
pub trait Backend: Sync {
    /// Human-readable description (backend and adapter).
    fn describe(&self) -> String;
    /// Whether the results are the CPU twins' own (then there is nothing to compare them with).
    fn is_cpu(&self) -> bool {
        false
    }
    /// The f32 results of `op` by `algo` on every vertex.
    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error>;
    /// The exact reference of `op`, when this backend computes it (the GPU's exact scan, on
    /// request); `None`: the CPU computes it.
    fn exact_reference(
        &self,
        _tree: &Tree,
        _w: &[f32],
        _op: Op,
    ) -> Result<Option<Reference>, Error> {
        Ok(None)
    }
    /// [`Backend::compute`] on every job, results in job order: bit for bit those of one call
    /// per job (a backend may batch them; the GPU runs them as forests).
    fn compute_many(
        &self,
        jobs: &[(&Tree, &[f32])],
        algo: Algorithm,
        op: Op,
    ) -> Result<Vec<Vec<f32>>, Error> {
        jobs.iter()
            .map(|&(tree, w)| self.compute(tree, w, algo, op))
            .collect()
    }
}

/// The CPU twins.
pub struct Cpu;

impl Backend for Cpu {
    fn describe(&self) -> String {
        "cpu".into()
    }
    fn is_cpu(&self) -> bool {
        true
    }
    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error> {
        Ok(algo.twin(tree, w, op))
    }
}

/// One algorithm's results and errors on one operation.
pub struct Outcome {
    pub algorithm: Algorithm,
    pub op: Op,
    pub values: Vec<f32>,
    pub errors: Vec<NodeError>,
    pub summary: ErrorSummary,
    /// Per-node error bounds of this algorithm's summation tree (analysis::bounds).
    pub bounds: NodeBounds,
    /// The errors against the bounds: violations, tightness.
    pub bound_summary: BoundSummary,
    /// Nodes where the backend's result differs from its CPU twin's bits (a bug), as the
    /// bounds' replay of the twin's additions finds them; `None` when the results are the
    /// twin's own.
    pub gpu_mismatches: Option<usize>,
    /// Seconds the values took: the backend's kernel, else the CPU twin (no reference, errors
    /// or bounds), the report's measure of what an algorithm costs.
    pub compute_s: f64,
}

/// All outcomes of one operation with their shared reference.
pub struct OpResults {
    pub op: Op,
    pub reference: Reference,
    pub outcomes: Vec<Outcome>,
}

/// Runs every algorithm on every op and measures each against the reference.
pub fn evaluate(
    instance: &Instance,
    ops: &[Op],
    algos: &[Algorithm],
    reference: ReferenceKind,
    backend: &dyn Backend,
) -> Result<Vec<OpResults>, Error> {
    evaluate_weighted(
        &instance.tree,
        &instance.weights,
        ops,
        algos,
        reference,
        backend,
    )
}

/// [`evaluate`] on any weighted tree (one read from a file, say).
pub fn evaluate_weighted(
    tree: &Tree,
    w: &[f32],
    ops: &[Op],
    algos: &[Algorithm],
    reference: ReferenceKind,
    backend: &dyn Backend,
) -> Result<Vec<OpResults>, Error> {
    evaluate_with_progress(tree, w, ops, algos, reference, backend, &|_| {})
}

/// [`evaluate_weighted`], calling `done` with a label ("rootfix reference", "rootfix
/// vectorial") as each step finishes. The backend's kernels run one after another (a device
/// runs them in turn); the CPU twins and every evaluation (errors, bounds) run in parallel
/// over the algorithms, each independent of the others, so the results are those of a
/// sequential evaluation.
pub fn evaluate_with_progress(
    tree: &Tree,
    w: &[f32],
    ops: &[Op],
    algos: &[Algorithm],
    reference: ReferenceKind,
    backend: &dyn Backend,
    done: &(dyn Fn(&str) + Sync),
) -> Result<Vec<OpResults>, Error> {
    let on_backend = |a: Algorithm| a.has_gpu_kernel() && !backend.is_cpu();
    ops.iter()
        .map(|&op| {
            let from_backend = match reference {
                ReferenceKind::Exact => backend.exact_reference(tree, w, op)?,
                ReferenceKind::Dd => None,
            };
            let reference =
                from_backend.unwrap_or_else(|| Reference::compute(reference, tree, w, op));
            done(&format!("{op} reference"));
            let from_backend = algos
                .iter()
                .map(|&a| {
                    on_backend(a)
                        .then(|| {
                            let t0 = std::time::Instant::now();
                            let values = backend.compute(tree, w, a, op)?;
                            Ok::<_, Error>((values, t0.elapsed().as_secs_f64()))
                        })
                        .transpose()
                })
                .collect::<Result<Vec<_>, Error>>()?;
            let outcomes = algos
                .par_iter()
                .zip(from_backend)
                .map_init(
                    || Float::new(generators::exact_sum::EXACT_PREC),
                    |scratch, (&algorithm, device)| {
                        let computed = (backend, device);
                        let outcome =
                            evaluate_one(tree, w, (algorithm, op), &reference, computed, scratch);
                        done(&format!("{op} {algorithm}"));
                        outcome
                    },
                )
                .collect::<Result<Vec<_>, Error>>()?;
            Ok(OpResults {
                op,
                reference,
                outcomes,
            })
        })
        .collect()
}

/// One algorithm's outcome: its results (the backend's, else its CPU twin's) against the
/// reference, and its bounds.
fn evaluate_one(
    tree: &Tree,
    w: &[f32],
    (algorithm, op): (Algorithm, Op),
    reference: &Reference,
    (backend, from_backend): (&dyn Backend, Option<(Vec<f32>, f64)>),
    scratch: &mut Float,
) -> Result<Outcome, Error> {
    let on_backend = from_backend.is_some();
    let t0 = std::time::Instant::now();
    let (values, compute_s) = match from_backend {
        Some((values, _)) if values.len() != tree.len() => {
            return Err(Error::Gpu(format!(
                "{} returned {} values of {algorithm} {op} for {} vertices",
                backend.describe(),
                values.len(),
                tree.len()
            )));
        }
        Some(values) => values,
        None => {
            let values = algorithm.twin(tree, w, op);
            (values, t0.elapsed().as_secs_f64())
        }
    };
    let errors: Vec<NodeError> = values
        .iter()
        .enumerate()
        .map(|(v, &x)| reference.error(v, x, scratch))
        .collect();
    let summary = ErrorSummary::from_errors(&errors);
    let bounds = bounds::node_bounds(tree, w, algorithm, op, &values);
    // The bounds replay the algorithm's f32 additions (its twin's bits, by the same generic
    // order): the backend's result is checked against that, without running the twin a
    // second time.
    let gpu_mismatches = on_backend.then_some(bounds.replay_mismatches);
    let bound_summary = bounds::summarize(reference, &values, &errors, &bounds, scratch);
    Ok(Outcome {
        algorithm,
        op,
        values,
        errors,
        summary,
        bounds,
        bound_summary,
        gpu_mismatches,
        compute_s,
    })
}

/// The backend-vs-twin mismatches of evaluated results, one line per op × algorithm with any;
/// the count is the total over all nodes.
pub fn mismatch_report(context: &str, results: &[OpResults]) -> (usize, Vec<String>) {
    let mut total = 0;
    let mut lines = Vec::new();
    for r in results {
        for o in &r.outcomes {
            if let Some(k) = o.gpu_mismatches.filter(|&k| k > 0) {
                total += k;
                lines.push(format!(
                    "{context} {} {}: {k} node(s) differ from the CPU twin",
                    r.op, o.algorithm
                ));
            }
        }
    }
    (total, lines)
}

/// Exact condition number of the whole weight vector (the root's leaffix).
pub fn achieved_cond(w: &[f32]) -> f64 {
    generators::exact_sum::condition_number(w)
}
