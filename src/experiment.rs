//! One experiment: a seeded weighted tree, every requested algorithm and operation, and the
//! errors of each against a reference.

use crate::Error;
use crate::kernels;
use analysis::bounds::{self, BoundSummary, NodeBounds};
use analysis::metrics::ErrorSummary;
use analysis::{Algorithm, NodeError, Op, Reference, ReferenceKind};
use generators::{ChildOrder, Topology, Tree, WeightModel};
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
    /// The f32 results of `op` by `algo` on every vertex.
    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error>;
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
    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error> {
        Ok(kernels::cpu(tree, w, algo, op))
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
    let (tree, w) = (&instance.tree, &instance.weights);
    let mut scratch = Float::new(generators::exact_sum::EXACT_PREC);
    ops.iter()
        .map(|&op| {
            let reference = Reference::compute(reference, tree, w, op);
            let outcomes = algos
                .iter()
                .map(|&algorithm| {
                    let values = if algorithm.has_gpu_kernel() {
                        backend.compute(tree, w, algorithm, op)?
                    } else {
                        kernels::cpu(tree, w, algorithm, op)
                    };
                    let errors: Vec<NodeError> = values
                        .iter()
                        .enumerate()
                        .map(|(v, &x)| reference.error(v, x, &mut scratch))
                        .collect();
                    let summary = ErrorSummary::from_errors(&errors);
                    let bounds = bounds::node_bounds(tree, w, algorithm, op, &values);
                    let bound_summary =
                        bounds::summarize(&reference, &values, &errors, &bounds, &mut scratch);
                    Ok(Outcome {
                        algorithm,
                        op,
                        values,
                        errors,
                        summary,
                        bounds,
                        bound_summary,
                    })
                })
                .collect::<Result<Vec<_>, Error>>()?;
            Ok(OpResults {
                op,
                reference,
                outcomes,
            })
        })
        .collect()
}

/// Exact condition number of the whole weight vector (the root's leaffix).
pub fn achieved_cond(w: &[f32]) -> f64 {
    generators::exact_sum::condition_number(w)
}
