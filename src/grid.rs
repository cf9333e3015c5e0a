//! A seeded grid of instances (topologies × target condition numbers × trees) evaluated against
//! the exact reference, pooled per cell: the shared machinery of `accuracy bounds-table` and
//! `accuracy check`, and the per-node predicted-versus-measured extra bits of vectorial.

use crate::Error;
use crate::experiment::{self, Backend, InstanceSpec, OpResults, Outcome};
use crate::format::sci;
use crate::verdict::{self, Violations};
use analysis::algorithms::PaperRole;
use analysis::bounds::NodeBounds;
use analysis::bounds::{bound_lost_bits, extra_bits, tightness};
pub use analysis::records::bounds_table::GridParams;
use analysis::{Algorithm, Op, Reference, ReferenceKind};
use generators::Topology;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// Key of one cell: (topology index, cond index, op, algorithm).
pub type CellKey = (usize, usize, Op, Algorithm);

/// What one cell accumulates over its trees.
#[derive(Debug, Default, Clone)]
pub struct Cell {
    pub trees: usize,
    pub nodes: usize,
    pub max_lost_bits: f64,
    pub max_bound_lost_bits: f64,
    /// |error| / deterministic bound of every node of every tree.
    pub tightness: Vec<f32>,
    /// Lost bits of every node with x ≠ 0, measured and allowed by the a priori bound.
    pub lost_bits: Vec<f32>,
    pub bound_lost_bits: Vec<f32>,
    pub bound_violations: usize,
    pub running_violations: usize,
    pub prob_violations: usize,
    pub sharp_violations: usize,
    /// Largest lost bits allowed by the sharp bound, and its tightness per node.
    pub max_sharp_lost_bits: f64,
    pub sharp_tightness: Vec<f32>,
    /// Vectorial algorithms: predicted − measured extra lost bits over parallel at every node
    /// with x ≠ 0, predicted from each bound ([`PREDICTORS`]).
    pub extra_diff: [Vec<f32>; 4],
    pub achieved_conds: Vec<f64>,
}

/// The bounds whose ratio (vectorial over parallel) predicts the extra lost bits: the a
/// priori bound (known before the run, the natural predictor), the sharp a priori bound,
/// the probabilistic bound, the (a posteriori) running error bound.
pub const PREDICTORS: [&str; 4] = ["bound", "sharp", "prob", "running"];

fn predictor(b: &NodeBounds, which: usize, v: usize) -> f64 {
    let b = b[v];
    match which {
        0 => b.det,
        1 => b.sharp,
        2 => b.prob,
        _ => b.running,
    }
}

/// Fraction of |predicted − measured| ≤ 1 bit, and the median of predicted − measured.
pub fn agreement(diff: &mut [f32]) -> Option<(f64, f64)> {
    if diff.is_empty() {
        return None;
    }
    let agree = diff.iter().filter(|d| d.abs() <= 1.0).count() as f64 / diff.len() as f64;
    let (median, _) = median_max(diff);
    Some((agree, median))
}

impl Cell {
    fn merge(&mut self, o: Cell) {
        self.trees += o.trees;
        self.nodes += o.nodes;
        self.max_lost_bits = self.max_lost_bits.max(o.max_lost_bits);
        self.max_bound_lost_bits = self.max_bound_lost_bits.max(o.max_bound_lost_bits);
        self.tightness.extend(o.tightness);
        self.lost_bits.extend(o.lost_bits);
        self.bound_lost_bits.extend(o.bound_lost_bits);
        self.bound_violations += o.bound_violations;
        self.running_violations += o.running_violations;
        self.prob_violations += o.prob_violations;
        self.sharp_violations += o.sharp_violations;
        self.max_sharp_lost_bits = self.max_sharp_lost_bits.max(o.max_sharp_lost_bits);
        self.sharp_tightness.extend(o.sharp_tightness);
        for (a, b) in self.extra_diff.iter_mut().zip(o.extra_diff) {
            a.extend(b);
        }
        self.achieved_conds.extend(o.achieved_conds);
    }
}

/// [`analysis::stats::percentile`] of f32 values (widened exactly: the same order), 0 for no
/// data.
pub fn percentile(v: &mut [f32], p: f64) -> f64 {
    let mut wide: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
    analysis::stats::percentile(&mut wide, p).unwrap_or(0.0)
}

/// [`analysis::stats::median_max`] of f32 values (widened exactly: the same order).
pub fn median_max(v: &mut [f32]) -> (f64, f64) {
    let mut wide: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
    analysis::stats::median_max(&mut wide)
}

/// The evaluated grid.
pub struct Grid {
    pub params: GridParams,
    pub cells: BTreeMap<CellKey, Cell>,
    /// Every evaluated instance, in grid order.
    pub instances: Vec<InstanceInfo>,
    pub violations: Violations,
    pub wall_s: f64,
}

/// Which instance a grid evaluated, with a fingerprint of its exact inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceInfo {
    pub topology: String,
    pub target_cond: f64,
    pub tree: usize,
    pub seed: u64,
    pub achieved_cond: f64,
    /// FNV-1a 64 of the parent array and the weights' bits: equal fingerprints mean the
    /// same tree and the same f32 weights.
    pub fingerprint: String,
}

/// FNV-1a 64 over the parent array and the bits of the weights (little-endian), in hex.
pub fn fingerprint(tree: &generators::Tree, w: &[f32]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let bytes = tree
        .parents()
        .iter()
        .flat_map(|p| p.to_le_bytes())
        .chain(w.iter().flat_map(|x| x.to_bits().to_le_bytes()));
    for b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The outcome the vectorial algorithms are compared with: the paper's Algorithm 1
/// (parallel), or its sequential baseline (the same additions) when that was not run.
pub fn baseline_outcome(r: &OpResults) -> Option<&Outcome> {
    let base = baseline_algorithm(r.outcomes.iter().map(|o| o.algorithm))?;
    r.outcomes.iter().find(|o| o.algorithm == base)
}

/// Which of `algos` the vectorial algorithms are compared with ([`baseline_outcome`]).
pub fn baseline_algorithm(algos: impl Iterator<Item = Algorithm> + Clone) -> Option<Algorithm> {
    [PaperRole::Algorithm1, PaperRole::Baseline]
        .into_iter()
        .map(Algorithm::with_role)
        .find(|&a| algos.clone().any(|b| b == a))
}

/// Predicted and measured extra lost bits of an algorithm over the baseline at a node of
/// exact value x, from each one's (bound, |error|) there: `extra_bits` of the bounds and of the
/// errors. None when x = 0.
pub fn node_extra_bits(
    x: f64,
    (bound, abs): (f64, f64),
    (base_bound, base_abs): (f64, f64),
) -> Option<(f64, f64)> {
    Some((
        extra_bits(bound, base_bound, x)?,
        extra_bits(abs, base_abs, x)?,
    ))
}

/// [`node_extra_bits`] of `o` over `base` at node v, predicted by bound `which` of
/// [`PREDICTORS`].
pub fn node_extra_bits_by(
    reference: &Reference,
    o: &Outcome,
    base: &Outcome,
    v: usize,
    which: usize,
) -> Option<(f64, f64)> {
    node_extra_bits(
        reference.value_f64(v),
        (predictor(&o.bounds, which, v), o.errors[v].abs),
        (predictor(&base.bounds, which, v), base.errors[v].abs),
    )
}

/// Evaluates every instance of the grid (in parallel) against the exact reference.
pub fn evaluate_grid(params: &GridParams, backend: &dyn Backend) -> Result<Grid, Error> {
    let start = Instant::now();
    let mut jobs = Vec::new();
    for (ti, topology) in params.topologies.iter().enumerate() {
        for (ci, &cond) in params.conds.iter().enumerate() {
            for k in 0..params.trees {
                jobs.push((ti, ci, k, params.instance_seed(topology, cond, k)));
            }
        }
    }
    type Part = (Vec<(CellKey, Cell)>, InstanceInfo, Violations);
    let parts: Vec<Result<Part, Error>> = jobs
        .par_iter()
        .map(|&(ti, ci, k, seed)| {
            let spec = InstanceSpec {
                topology: params.topologies[ti],
                n: params.nodes,
                weights: params.weights,
                target_cond: params.conds[ci],
                child_order: params.child_order,
                seed,
            };
            let instance = spec.generate()?;
            let achieved = experiment::achieved_cond(&instance.weights);
            let info = InstanceInfo {
                topology: spec.topology.to_string(),
                target_cond: spec.target_cond,
                tree: k,
                seed,
                achieved_cond: achieved,
                fingerprint: fingerprint(&instance.tree, &instance.weights),
            };
            let results = experiment::evaluate(
                &instance,
                &params.ops,
                &params.algos,
                ReferenceKind::Exact,
                backend,
            )?;
            let context = format!(
                "{} κ={} tree {k} (seed {seed}, n={})",
                spec.topology,
                sci(spec.target_cond),
                spec.n
            );
            let bad = verdict::violations(&context, experiment::measured(&results));
            let mut cells = Vec::new();
            for r in &results {
                let base = baseline_outcome(r);
                for o in &r.outcomes {
                    let cell = cell_of(r, o, base, achieved);
                    cells.push(((ti, ci, r.op, o.algorithm), cell));
                }
            }
            Ok((cells, info, bad))
        })
        .collect();
    let mut cells: BTreeMap<CellKey, Cell> = BTreeMap::new();
    let mut all_bad = Violations::default();
    let mut instances = Vec::new();
    for part in parts {
        let (part_cells, info, bad) = part?;
        instances.push(info);
        all_bad.extend(bad);
        for (key, cell) in part_cells {
            cells.entry(key).or_default().merge(cell);
        }
    }
    Ok(Grid {
        params: params.clone(),
        cells,
        instances,
        violations: all_bad,
        wall_s: start.elapsed().as_secs_f64(),
    })
}

/// One outcome of one instance as a cell of the table: its lost bits, bounds, tightness and
/// violations, and for a vectorial algorithm its extra bits over the paper's baseline.
fn cell_of(r: &OpResults, o: &Outcome, base: Option<&Outcome>, achieved: f64) -> Cell {
    let s = &o.bound_summary;
    let mut cell = Cell {
        trees: 1,
        nodes: o.values.len(),
        max_lost_bits: o.summary.max_lost_bits,
        lost_bits: (0..o.values.len())
            .filter(|&v| r.reference.value_f64(v) != 0.0)
            .map(|v| o.errors[v].lost_bits() as f32)
            .collect(),
        bound_lost_bits: (0..o.values.len())
            .filter_map(|v| bound_lost_bits(o.bounds[v].det, r.reference.value_f64(v)))
            .map(|b| b as f32)
            .collect(),
        max_bound_lost_bits: s.max_bound_lost_bits,
        tightness: o
            .errors
            .iter()
            .zip(o.bounds.iter())
            .map(|(e, b)| tightness(e.abs, b.det) as f32)
            .collect(),
        bound_violations: s.bound_violations,
        running_violations: s.running_violations,
        prob_violations: s.prob_violations,
        sharp_violations: s.sharp_violations,
        max_sharp_lost_bits: s.max_sharp_lost_bits,
        sharp_tightness: o
            .errors
            .iter()
            .zip(o.bounds.iter())
            .map(|(e, b)| tightness(e.abs, b.sharp) as f32)
            .collect(),
        achieved_conds: vec![achieved],
        ..Cell::default()
    };
    if let (true, Some(base)) = (o.algorithm.is_vectorial(), base) {
        for (which, diffs) in cell.extra_diff.iter_mut().enumerate() {
            for v in 0..o.values.len() {
                if let Some((p, m)) = node_extra_bits_by(&r.reference, o, base, v, which) {
                    diffs.push((p - m) as f32);
                }
            }
        }
    }
    cell
}

/// The default topologies of the table (every family, default parameters).
pub fn default_topologies() -> Vec<Topology> {
    Topology::all_defaults()
}
