//! One experiment: a seeded weighted tree, every requested algorithm and operation, and the
//! errors of each against a reference.

use crate::{Device, Error};
use analysis::algorithms::Family;
use analysis::bounds::{BoundSummary, LAMBDA, NodeBounds};
use analysis::measure::{Measures, measure};
use analysis::metrics::ErrorSummary;
use analysis::orders::Walker;
use analysis::{Algorithm, NodeError, Op, Reference, ReferenceKind};
use generators::{Arithmetic, ChildOrder, Topology, Tree, WeightModel};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;

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
    /// Where it computes: on [`Device::Cpu`] the results are the CPU twins' own (then there
    /// is nothing to compare them with).
    fn device(&self) -> Device;
    /// The f32 results of `op` by `algo` on every vertex.
    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error>;
    /// The results of `op` by `algo` in `arith` (weights and results of its storage format,
    /// carried as f32): bit for bit the twin in that arithmetic ([`Algorithm::twin_in`]). A
    /// backend that adds in f32 only says so.
    fn compute_in(
        &self,
        tree: &Tree,
        w: &[f32],
        algo: Algorithm,
        (op, arith): (Op, Arithmetic),
    ) -> Result<Vec<f32>, Error> {
        match arith == Arithmetic::F32 {
            true => self.compute(tree, w, algo, op),
            false => Err(Error::Usage(format!(
                "{} computes in f32 only, not in {}",
                self.describe(),
                arith.describe()
            ))),
        }
    }
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
    /// [`Backend::exact_reference`] of every job, in job order (a backend may compute them
    /// together: the GPU scans the forests its kernels ran on).
    fn exact_references(
        &self,
        jobs: &[(&Tree, &[f32])],
        op: Op,
    ) -> Result<Vec<Option<Reference>>, Error> {
        jobs.iter()
            .map(|&(tree, w)| self.exact_reference(tree, w, op))
            .collect()
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

/// Results computed before the evaluation, for the evaluation to assess instead of computing
/// them (a GPU batch's forests): per (algorithm, op), one tree's values and the seconds its
/// share of the batch took; per op, the tree's exact reference. Each is taken once, by key.
#[derive(Default)]
pub struct Computed {
    values: HashMap<(Algorithm, Op), (Vec<f32>, f64)>,
    references: HashMap<Op, Reference>,
}

impl Computed {
    /// Gives the values of `algo` on `op`, computed in `seconds`.
    pub fn insert(&mut self, algo: Algorithm, op: Op, values: Vec<f32>, seconds: f64) {
        self.values.insert((algo, op), (values, seconds));
    }

    /// Takes the values of `algo` on `op`, if they were given.
    fn take(&mut self, algo: Algorithm, op: Op) -> Option<(Vec<f32>, f64)> {
        self.values.remove(&(algo, op))
    }

    /// Gives the exact reference of `op`.
    pub fn insert_reference(&mut self, op: Op, reference: Reference) {
        self.references.insert(op, reference);
    }

    /// Takes the exact reference of `op`, if it was given.
    fn take_reference(&mut self, op: Op) -> Option<Reference> {
        self.references.remove(&op)
    }
}

/// The CPU twins.
pub struct Cpu;

impl Backend for Cpu {
    fn describe(&self) -> String {
        "cpu".into()
    }
    fn device(&self) -> Device {
        Device::Cpu
    }
    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error> {
        Ok(algo.twin(tree, w, op))
    }
    fn compute_in(
        &self,
        tree: &Tree,
        w: &[f32],
        algo: Algorithm,
        (op, arith): (Op, Arithmetic),
    ) -> Result<Vec<f32>, Error> {
        refuse_outside(algo, arith)?;
        Ok(algo.twin_in(&Walker::new(tree), w, op, arith))
    }
}

/// An error where `algo`'s order is not written for `arith` ([`Algorithm::runs_in`]).
pub fn refuse_outside(algo: Algorithm, arith: Arithmetic) -> Result<(), Error> {
    match algo.runs_in(arith) {
        true => Ok(()),
        false => Err(Error::Usage(format!(
            "{algo} does not run in {}: it adds in {}",
            arith.describe(),
            algo.hooks()
                .accumulates_in
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// What is kept of one algorithm's outcome on one op once its per-node data is gone: the
/// summaries every table, row and verdict reads.
#[derive(Debug, Clone)]
pub struct Measured {
    pub algorithm: Algorithm,
    pub op: Op,
    pub summary: ErrorSummary,
    /// The errors against the bounds: violations, tightness.
    pub bound_summary: BoundSummary,
    /// Nodes where the backend's result differs from its CPU twin's bits (a bug), as the
    /// bounds' replay of the twin's additions finds them; `None` when the results are the
    /// twin's own.
    pub gpu_mismatches: Option<usize>,
    /// The largest distance, in ulps, from the correctly rounded result (+∞ for a non-finite
    /// one).
    pub max_ulps: f64,
    /// Seconds the values took: the backend's kernel, else the CPU twin (no reference, errors
    /// or bounds), the report's measure of what an algorithm costs.
    pub compute_s: f64,
}

/// One algorithm's results and errors on one operation, node by node.
#[derive(Clone)]
pub struct Outcome {
    pub measured: Measured,
    pub values: Vec<f32>,
    /// Shared, not copied, with the outcome of an algorithm that walked the same order on
    /// the same values (parallel's and sequential's are one).
    pub errors: Arc<Vec<NodeError>>,
    /// Per-node error bounds of this algorithm's summation tree (analysis::bounds).
    pub bounds: Arc<NodeBounds>,
}

impl std::ops::Deref for Outcome {
    type Target = Measured;
    fn deref(&self) -> &Measured {
        &self.measured
    }
}

impl Outcome {
    /// This outcome as `algorithm`'s, whose order is this one's and whose results, computed
    /// in `compute_s` seconds (on the backend or not), are these same bits.
    fn reused_as(self, algorithm: Algorithm, compute_s: f64, on_backend: bool) -> Outcome {
        Outcome {
            measured: Measured {
                algorithm,
                compute_s,
                gpu_mismatches: on_backend.then_some(self.bounds.replay_mismatches),
                ..self.measured
            },
            ..self
        }
    }
}

/// All outcomes of one operation with their shared reference.
pub struct OpResults {
    pub op: Op,
    pub reference: Reference,
    pub outcomes: Vec<Outcome>,
}

/// The summaries of every outcome of `results`, op by op.
pub fn measured(results: &[OpResults]) -> impl Iterator<Item = &Measured> {
    results
        .iter()
        .flat_map(|r| r.outcomes.iter().map(|o| &o.measured))
}

/// Where a streaming evaluation puts its outcomes, each as it is complete: a consumer takes
/// from its per-node data what it keeps (dump rows, a sample, a grid cell) and drops the rest,
/// so one tree's evaluation holds the per-node data of the outcomes in flight only.
pub trait Sink {
    /// One outcome of the op being evaluated, in the order of the algorithms given.
    fn outcome(&mut self, reference: &Reference, outcome: Outcome) -> Result<(), Error>;
    /// The op's outcomes are all given; its reference is no longer needed by the evaluation.
    fn op_done(&mut self, op: Op, reference: Reference) -> Result<(), Error>;
}

/// A sink that keeps everything: every op's reference and outcomes.
#[derive(Default)]
struct Collect {
    outcomes: Vec<Outcome>,
    done: Vec<OpResults>,
}

impl Sink for Collect {
    fn outcome(&mut self, _reference: &Reference, outcome: Outcome) -> Result<(), Error> {
        self.outcomes.push(outcome);
        Ok(())
    }
    fn op_done(&mut self, op: Op, reference: Reference) -> Result<(), Error> {
        self.done.push(OpResults {
            op,
            reference,
            outcomes: std::mem::take(&mut self.outcomes),
        });
        Ok(())
    }
}

/// A sink that keeps the summaries only (what `run` and a sweep's rows print).
#[derive(Default)]
pub struct Summaries {
    pub measured: Vec<Measured>,
}

impl Sink for Summaries {
    fn outcome(&mut self, _reference: &Reference, outcome: Outcome) -> Result<(), Error> {
        self.measured.push(outcome.measured);
        Ok(())
    }
    fn op_done(&mut self, _op: Op, _reference: Reference) -> Result<(), Error> {
        Ok(())
    }
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
    Ok(evaluate_to::<Collect>(tree, w, ops, algos, reference, backend)?.done)
}

/// [`evaluate_weighted`]'s summaries alone, one per op × algorithm, in order: no node's data
/// is kept past its algorithm (what `run` prints, and what the benchmarks time of it).
pub fn evaluate_summaries(
    tree: &Tree,
    w: &[f32],
    ops: &[Op],
    algos: &[Algorithm],
    reference: ReferenceKind,
    backend: &dyn Backend,
) -> Result<Vec<Measured>, Error> {
    Ok(evaluate_to::<Summaries>(tree, w, ops, algos, reference, backend)?.measured)
}

/// [`evaluate_into`] a fresh sink of kind `S`, without progress, returned once full.
fn evaluate_to<S: Sink + Default>(
    tree: &Tree,
    w: &[f32],
    ops: &[Op],
    algos: &[Algorithm],
    reference: ReferenceKind,
    backend: &dyn Backend,
) -> Result<S, Error> {
    let mut sink = S::default();
    evaluate_into(tree, w, ops, algos, reference, backend, &|_| {}, &mut sink)?;
    Ok(sink)
}

/// Evaluates every algorithm on every op, giving each outcome to `sink` as it is complete and
/// calling `done` with a label ("rootfix reference", "rootfix vectorial") as each step
/// finishes.
///
/// The ops run one after another, each with its own reference, dropped when the op is done,
/// and so do the algorithms, each outcome reaching the sink before the next algorithm starts:
/// the per-node data alive at once is one op's reference and one algorithm's evaluation. The
/// threads work inside an evaluation instead (the scan plan's tiles, the vectorial reads, the
/// per-node errors), each piece computed exactly as alone, so the results are those of a
/// sequential evaluation.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_into(
    tree: &Tree,
    w: &[f32],
    ops: &[Op],
    algos: &[Algorithm],
    reference: ReferenceKind,
    backend: &dyn Backend,
    done: &(dyn Fn(&str) + Sync),
    sink: &mut dyn Sink,
) -> Result<(), Error> {
    let mut walker = Walker::new(tree);
    let computed = &mut Computed::default();
    evaluate_walked(
        &mut walker,
        w,
        ops,
        algos,
        reference,
        backend,
        computed,
        done,
        sink,
    )
}

/// [`evaluate_into`] on a tree's [`Walker`]: each (algorithm, op) takes its values from
/// `computed`, else runs its kernel once (the backend's, else its CPU twin, timed), and walks
/// its order once, on values that carry the
/// twin's additions and every bound together; contraction's schedule is built once for the
/// tree. The walker counts the walks (a test holds it to one per algorithm and op).
#[allow(clippy::too_many_arguments)]
pub fn evaluate_walked(
    walker: &mut Walker,
    w: &[f32],
    ops: &[Op],
    algos: &[Algorithm],
    reference: ReferenceKind,
    backend: &dyn Backend,
    computed: &mut Computed,
    done: &(dyn Fn(&str) + Sync),
    sink: &mut dyn Sink,
) -> Result<(), Error> {
    let tree = walker.tree();
    let on_backend = |a: Algorithm| a.has_gpu_kernel() && backend.device() == Device::Gpu;
    // The walker's rake-and-compress schedule is dropped on the last op, after the last
    // algorithm that reads it.
    let last_scheduled = algos
        .iter()
        .rposition(|a| a.family() == Family::Contraction);
    for (k, &op) in ops.iter().enumerate() {
        let from_backend = match reference {
            ReferenceKind::Exact => match computed.take_reference(op) {
                Some(given) => Some(given),
                None => backend.exact_reference(tree, w, op)?,
            },
            ReferenceKind::Dd => None,
        };
        let reference = from_backend.unwrap_or_else(|| Reference::compute(reference, tree, w, op));
        done(&format!("{op} reference"));
        // Each walk's buffers go to the next walk of this op instead of back to the system
        // (page faults); kept only while the op's algorithms walk, not beside the reference's
        // computation or the op's summaries.
        let spares = analysis::bounds::keep_spares();
        // The last outcome, kept while the next algorithm walks the same order: on the same
        // values its bounds and measures are that outcome's, shared (its per-node arrays are
        // `Arc`s) rather than walked and measured again (parallel after sequential; a GPU
        // result that differs from its twin's bits is walked and measured as usual).
        let mut shared: Option<Outcome> = None;
        for (i, &algorithm) in algos.iter().enumerate() {
            let values = match computed.take(algorithm, op) {
                Some(given) => given,
                None => {
                    let t0 = std::time::Instant::now();
                    let values = match on_backend(algorithm) {
                        true => backend.compute(tree, w, algorithm, op)?,
                        false => algorithm.twin_on(walker, w, op),
                    };
                    (values, t0.elapsed().as_secs_f64())
                }
            };
            let outcome = match shared.take() {
                Some(prev)
                    if prev.algorithm.same_walk(algorithm)
                        && same_bits(&prev.values, &values.0) =>
                {
                    prev.reused_as(algorithm, values.1, on_backend(algorithm))
                }
                _ => evaluate_one(
                    walker,
                    w,
                    (algorithm, op),
                    &reference,
                    (backend, on_backend(algorithm), values),
                )?,
            };
            if algos
                .get(i + 1)
                .is_some_and(|next| next.same_walk(algorithm))
            {
                shared = Some(outcome.clone());
            }
            if k + 1 == ops.len() && Some(i) == last_scheduled {
                walker.forget_schedule();
            }
            done(&format!("{op} {algorithm}"));
            sink.outcome(&reference, outcome)?;
        }
        drop(spares);
        sink.op_done(op, reference)?;
    }
    Ok(())
}

/// Whether two results are the same bits at every node.
fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// One algorithm's outcome: its results (the backend's, else its CPU twin's, computed in
/// `compute_s` seconds) against the reference, and its bounds, from one walk of its order.
fn evaluate_one(
    walker: &Walker,
    w: &[f32],
    (algorithm, op): (Algorithm, Op),
    reference: &Reference,
    (backend, on_backend, (values, compute_s)): (&dyn Backend, bool, (Vec<f32>, f64)),
) -> Result<Outcome, Error> {
    let tree = walker.tree();
    if values.len() != tree.len() {
        return Err(Error::Gpu(format!(
            "{} returned {} values of {algorithm} {op} for {} vertices",
            backend.describe(),
            values.len(),
            tree.len()
        )));
    }
    // The walk replays the algorithm's f32 additions (its twin's bits, by the same generic
    // order): a backend's result is checked against that, without running the twin.
    let bounds = NodeBounds::of(algorithm.walk(walker, w, op, LAMBDA), &values);
    let Measures {
        errors,
        summary,
        bound_summary,
        max_ulps,
    } = measure(reference, &values, &bounds);
    let gpu_mismatches = on_backend.then_some(bounds.replay_mismatches);
    Ok(Outcome {
        measured: Measured {
            algorithm,
            op,
            summary,
            bound_summary,
            gpu_mismatches,
            max_ulps,
            compute_s,
        },
        values,
        errors: Arc::new(errors),
        bounds: Arc::new(bounds),
    })
}

/// The backend-vs-twin mismatches of evaluated results, one line per op × algorithm with any;
/// the count is the total over all nodes.
pub fn mismatch_report<'a>(
    context: &str,
    measured: impl IntoIterator<Item = &'a Measured>,
) -> (usize, Vec<String>) {
    let mut total = 0;
    let mut lines = Vec::new();
    for o in measured {
        if let Some(k) = o.gpu_mismatches.filter(|&k| k > 0) {
            total += k;
            lines.push(format!(
                "{context} {} {}: {k} node(s) differ from the CPU twin",
                o.op, o.algorithm
            ));
        }
    }
    (total, lines)
}

/// Exact condition number of the whole weight vector (the root's leaffix).
pub fn achieved_cond(w: &[f32]) -> f64 {
    analysis::exact::cond(w)
}
