//! The accuracy oracle for treefix results we did not compute: another program's per-vertex
//! f32 rootfix or leaffix values, judged against the exact reference — errors, lost bits,
//! ulps, flags — and against error bounds: the order-independent ones ([`any_order`]), which
//! any correct f32 sum of each node's own terms meets, and each of our algorithms' a priori
//! bounds. `accuracy score` prints it ([`mod@print`]); the Python package returns it.

pub mod any_order;
pub mod dump;
pub mod graded;
pub mod json;
pub mod precision;
pub mod print;
pub mod results;

use crate::Error;
use analysis::bounds;
use analysis::measure_in::bits_out_of;
use analysis::metrics::ErrorSummary;
use analysis::orders::Walker;
use analysis::records::fields::number_or_string;
use analysis::{Algorithm, ErrorClass, Op, Reference, ReferenceKind};
use any_order::{OrderBound, OrderVerdict};
use generators::{Arithmetic, Precision, Tree};
use graded::{CarriedAsF32, Graded};
use rayon::prelude::*;
use rug::Float;
use serde::Serialize;

/// What to judge the results by.
#[derive(Debug, Clone)]
pub struct ScoreOptions {
    pub reference: ReferenceKind,
    /// A node losing more bits than this fails (a node whose exact value is 0 and whose result
    /// is not loses them all, as does a NaN or ±∞ where a finite value exists).
    pub max_lost_bits: Option<f64>,
    /// A node more than this many f32 ulps from the correctly rounded result fails.
    pub max_ulps: Option<u64>,
    /// Whose a priori bounds the results are compared with (default: none; each costs a
    /// replay of the algorithm and its bounds over the tree, several times the score itself).
    pub algorithms: Vec<Algorithm>,
    /// The format the weights and results are stored in, and the one the kernel added in.
    pub arithmetic: Arithmetic,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        ScoreOptions {
            reference: ReferenceKind::Exact,
            max_lost_bits: None,
            max_ulps: None,
            algorithms: Vec::new(),
            arithmetic: Arithmetic::F32,
        }
    }
}

impl ScoreOptions {
    /// A one-line error for a gate that is no number of bits.
    pub fn check(&self) -> Result<(), Error> {
        if let Some(b) = self.max_lost_bits
            && (b.is_nan() || b < 0.0)
        {
            return Err(Error::Usage(format!(
                "--max-lost-bits {b}: expected a number of bits ≥ 0"
            )));
        }
        let storage = self.arithmetic.storage;
        if storage == Precision::F64 && !self.algorithms.is_empty() {
            return Err(Error::Usage(
                "our algorithms' bounds judge results of f16, bf16 and f32 weights: f64 results are judged by the order-independent bounds (any-order, balanced)"
                    .into(),
            ));
        }
        if storage != Precision::F32 && self.reference == ReferenceKind::Dd {
            return Err(Error::Usage(format!(
                "--reference dd rounds correctly to f32 only: grade {storage} results against the exact reference"
            )));
        }
        if let Some(a) = self.algorithms.iter().find(|a| !a.runs_in(self.arithmetic)) {
            return Err(Error::Usage(format!(
                "{a} adds in {} only: its bounds do not judge a kernel {}",
                a.hooks()
                    .accumulates_in
                    .iter()
                    .map(|p| p.name())
                    .collect::<Vec<_>>()
                    .join(", "),
                self.arithmetic.describe()
            )));
        }
        Ok(())
    }
}

/// The judgement of every op given.
#[derive(Debug, Clone, Serialize)]
pub struct Score {
    pub n: usize,
    pub height: u32,
    #[serde(serialize_with = "number_or_string")]
    pub achieved_cond: f64,
    pub reference: ReferenceKind,
    /// The storage format, then `+` the accumulation format where it is wider (`bf16+f32`).
    pub arithmetic: String,
    pub max_lost_bits_gate: Option<f64>,
    pub max_ulps_gate: Option<u64>,
    pub ops: Vec<OpScore>,
}

/// How one op's results fare: errors, ulps, and which bounds they stay within.
#[derive(Debug, Clone, Serialize)]
pub struct OpScore {
    pub op: Op,
    #[serde(serialize_with = "number_or_string")]
    pub max_rel_error: f64,
    #[serde(serialize_with = "number_or_string")]
    pub median_rel_error: f64,
    #[serde(serialize_with = "number_or_string")]
    pub p99_rel_error: f64,
    /// The most bits any node loses: `inf` where a result is NaN or ±∞ though a finite value
    /// exists, or non-zero where the exact value is 0 (a flagged node).
    #[serde(serialize_with = "number_or_string")]
    pub max_lost_bits: f64,
    #[serde(serialize_with = "number_or_string")]
    pub median_lost_bits: f64,
    #[serde(serialize_with = "number_or_string")]
    pub p99_lost_bits: f64,
    /// Largest distance in ulps of the storage format from the correctly rounded result;
    /// `"inf"` when a result
    /// is NaN or an infinity where a finite one exists.
    #[serde(serialize_with = "ulps_or_inf")]
    pub max_ulps: Option<u64>,
    pub flagged_nodes: usize,
    #[serde(serialize_with = "number_or_string")]
    pub max_flagged_abs_error: f64,
    pub nonfinite_nodes: usize,
    /// Nodes whose exact value lies beyond the storage format's range.
    pub overflow_nodes: usize,
    pub worst: Worst,
    /// Nodes above the lost-bits / ulps gate (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes_over_max_lost_bits: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes_over_max_ulps: Option<usize>,
    /// The order-independent bounds: any order, then a balanced one.
    pub order_bounds: Vec<OrderVerdict>,
    /// Our algorithms' a priori bounds.
    pub algorithms: Vec<Verdict>,
    /// Every node's figures.
    #[serde(skip)]
    pub nodes: Nodes,
    /// The formats the results were judged in (the document's `arithmetic` names them).
    #[serde(skip)]
    pub arithmetic: Arithmetic,
}

/// Per-node figures of one op, indexed by vertex.
#[derive(Debug, Clone, Default)]
pub struct Nodes {
    /// The results judged (each exact as an f64).
    pub values: Vec<f64>,
    /// The exact value rounded to nearest in the storage format (the correctly rounded
    /// result).
    pub reference: Vec<f64>,
    /// |x̂ − x| (+∞ for a non-finite result).
    pub abs_error: Vec<f64>,
    /// |x̂ − x| / |x|: +∞ for a non-finite result and for a non-zero result where x = 0; 0 for
    /// an exact value beyond f32's range rounded correctly.
    pub rel_error: Vec<f64>,
    /// `max(0, log2(rel) + p)`, p the storage format's precision: +∞ where `rel_error` is.
    pub lost_bits: Vec<f64>,
    /// Distance in ulps of the storage format from `reference_f32`; None: infinitely far (a NaN, or an infinity
    /// where a finite value exists).
    pub ulps: Vec<Option<u64>>,
    pub class: Vec<ErrorClass>,
    /// κ_v = Σ|terms| / |x| (∞ where x = 0).
    pub cond: Vec<f64>,
    /// The order-independent bounds, as [`OrderBound::ALL`].
    pub order_bounds: Vec<Vec<f64>>,
}

/// The node that loses the most bits (then the largest relative error; the lowest id on
/// ties).
#[derive(Debug, Clone, Serialize)]
pub struct Worst {
    pub vertex: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// κ_v of its sum.
    #[serde(serialize_with = "number_or_string")]
    pub cond: f64,
}

/// Whether the results stay within one of our algorithms' a priori bounds.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub algorithm: Algorithm,
    pub a_priori_violations: usize,
    pub sharp_violations: usize,
    #[serde(serialize_with = "number_or_string")]
    pub max_bound_lost_bits: f64,
    /// Nodes where f32 overflows in that algorithm's order or the exact value is beyond
    /// range: no bound of it applies there.
    pub overflow_nodes: usize,
    pub within: bool,
}

fn ulps_or_inf<S: serde::Serializer>(x: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(k) => s.serialize_u64(*k),
        None => s.serialize_str("inf"),
    }
}

/// Judges `results` (per op, one value per vertex, of the storage format f32 carries: f16,
/// bf16 or f32) computed on `tree` from `weights`. `label` names a vertex for the worst-node
/// line (a tree file's label). f64 results are [`score_f64`]'s.
pub fn score(
    tree: &Tree,
    weights: &[f32],
    results: &[(Op, &[f32])],
    options: &ScoreOptions,
    label: &dyn Fn(usize) -> Option<String>,
) -> Result<Score, Error> {
    options.check()?;
    let storage = options.arithmetic.storage;
    if storage == Precision::F64 {
        return Err(Error::Usage(
            "f64 results are graded from f64 values: score_f64 (Python: float64 arrays)".into(),
        ));
    }
    check_shapes(
        tree,
        weights.len(),
        results.iter().map(|(op, v)| (*op, v.len())),
    )?;
    if let Some((v, x)) = storage.first_outside(weights) {
        return Err(Error::Usage(format!(
            "the weight of vertex {v}, {x}, is no {storage} value: give the weights the kernel read"
        )));
    }
    for (op, values) in results {
        if let Some((v, x)) = storage.first_outside(values) {
            return Err(Error::Usage(format!(
                "the {op} result of vertex {v}, {x}, is no {storage} value: give the results as the kernel stored them, or name their format (--precision)"
            )));
        }
    }
    let ops = results
        .iter()
        .map(|&(op, values)| {
            let graded = CarriedAsF32 {
                reference: Reference::compute(options.reference, tree, weights, op),
                values,
            };
            let ours = |nodes: &Nodes| {
                if options.algorithms.is_empty() {
                    return Vec::new();
                }
                let errors: Vec<analysis::NodeError> =
                    (0..nodes.class.len()).map(|v| nodes.error(v)).collect();
                our_bounds(tree, weights, op, (&graded, &errors), options)
            };
            score_op(tree, op, &graded, options, ours, label)
        })
        .collect();
    Ok(Score {
        n: tree.len(),
        height: tree.height(),
        achieved_cond: crate::experiment::achieved_cond(weights),
        reference: options.reference,
        arithmetic: options.arithmetic.name(),
        max_lost_bits_gate: options.max_lost_bits,
        max_ulps_gate: options.max_ulps,
        ops,
    })
}

/// [`score`] for f64 results of f64 weights (a kernel that stores and adds f64), against the
/// exact reference: errors, lost bits out of 53, f64 ulps and the order-independent bounds
/// with f64's u. Our algorithms' bounds are not judged (they are written for weights f32
/// carries), nor the double-double reference (it rounds correctly to f32 only).
pub fn score_f64(
    tree: &Tree,
    weights: &[f64],
    results: &[(Op, &[f64])],
    options: &ScoreOptions,
    label: &dyn Fn(usize) -> Option<String>,
) -> Result<Score, Error> {
    options.check()?;
    if options.arithmetic != Arithmetic::same(Precision::F64) {
        return Err(Error::Usage(format!(
            "f64 values given for results stored as {}: give them as the kernel stored them",
            options.arithmetic.describe()
        )));
    }
    check_shapes(
        tree,
        weights.len(),
        results.iter().map(|(op, v)| (*op, v.len())),
    )?;
    let ops = results
        .iter()
        .map(|&(op, values)| {
            let graded = graded::F64 {
                reference: analysis::exact::sums_f64(tree, weights, op),
                values,
            };
            score_op(tree, op, &graded, options, |_| Vec::new(), label)
        })
        .collect();
    Ok(Score {
        n: tree.len(),
        height: tree.height(),
        achieved_cond: analysis::exact::cond_f64(weights),
        reference: options.reference,
        arithmetic: options.arithmetic.name(),
        max_lost_bits_gate: options.max_lost_bits,
        max_ulps_gate: options.max_ulps,
        ops,
    })
}

/// A value of `storage` printed to round-trip: as the f32 that carries it, or as an f64.
pub fn value_text(storage: Precision, x: f64) -> String {
    match storage {
        Precision::F64 => crate::format::f64_shortest(x),
        _ => crate::format::f32_shortest(x as f32),
    }
}

/// One weight and one result per vertex, each op given once.
fn check_shapes(
    tree: &Tree,
    weights: usize,
    results: impl Iterator<Item = (Op, usize)>,
) -> Result<(), Error> {
    let n = tree.len();
    if weights != n {
        return Err(Error::Usage(format!(
            "{weights} weights for a tree of {n} vertices: one weight per vertex"
        )));
    }
    let mut seen = Vec::new();
    for (op, len) in results {
        if len != n {
            return Err(Error::Usage(format!(
                "{len} {op} results for a tree of {n} vertices: one result per vertex"
            )));
        }
        if seen.contains(&op) {
            return Err(Error::Usage(format!("two sets of {op} results")));
        }
        seen.push(op);
    }
    Ok(())
}

/// Our algorithms' a priori bounds in the kernel's arithmetic, judged on the other program's
/// errors; where an algorithm's own order overflows (its replay is not finite), no bound of
/// it applies.
fn our_bounds(
    tree: &Tree,
    weights: &[f32],
    op: Op,
    (graded, errors): (&CarriedAsF32<'_>, &[analysis::NodeError]),
    options: &ScoreOptions,
) -> Vec<Verdict> {
    let mut scratch = Float::new(generators::exact_sum::EXACT_PREC);
    let storage = options.arithmetic.storage;
    options
        .algorithms
        .iter()
        .map(|&algorithm| {
            let walker = Walker::new(tree);
            let arith = options.arithmetic;
            let twin = algorithm.twin_in(&walker, weights, op, arith);
            let walked = algorithm.walk_in(&walker, weights, op, bounds::LAMBDA, arith);
            let b = bounds::NodeBounds::of(walked, &twin);
            let sum = bounds::summarize(&graded.reference, graded.values, errors, &b, &mut scratch);
            Verdict {
                algorithm,
                a_priori_violations: sum.bound_violations,
                sharp_violations: sum.sharp_violations,
                max_bound_lost_bits: bits_out_of(sum.max_bound_lost_bits, storage),
                overflow_nodes: sum.overflow.total(),
                within: sum.bound_violations == 0 && sum.sharp_violations == 0,
            }
        })
        .collect()
}

/// Every per-node figure in one pass over the nodes, each node's exact value rounded to f64
/// and to the storage format once: the nodes' figures (their order-free bounds left empty),
/// and the f64 roundings. No array besides those the score returns but the f64 roundings (the
/// kernel clearing fresh pages for per-node arrays was a large part of a score's time).
fn node_figures(graded: &impl Graded, n: usize, storage: Precision) -> (Vec<f64>, Nodes) {
    let lost_bits = |rel| storage.lost_bits(rel);
    let mut exact_f64 = vec![0.0; n];
    let mut nodes = Nodes {
        values: vec![0.0; n],
        reference: vec![0.0; n],
        abs_error: vec![0.0; n],
        rel_error: vec![0.0; n],
        lost_bits: vec![0.0; n],
        ulps: vec![None; n],
        class: vec![ErrorClass::Relative; n],
        cond: vec![0.0; n],
        order_bounds: Vec::new(),
    };
    (
        (
            &mut exact_f64[..],
            &mut nodes.reference[..],
            &mut nodes.values[..],
        ),
        &mut nodes.abs_error[..],
        &mut nodes.rel_error[..],
        &mut nodes.lost_bits[..],
        &mut nodes.ulps[..],
        &mut nodes.class[..],
        &mut nodes.cond[..],
    )
        .into_par_iter()
        .enumerate()
        .for_each(|(v, ((x, r, value), abs, rel, bits, ulps, class, cond))| {
            (*x, *r) = graded.roundings(v, storage);
            let e = graded.error(v, (*x, *r));
            *value = graded.value(v);
            *abs = e.abs;
            // A flagged node's relative error is |x̂| / 0: every bit is lost.
            *rel = if e.flagged() { f64::INFINITY } else { e.rel };
            *bits = lost_bits(*rel);
            *ulps = graded.ulps(v, *r, storage);
            *class = e.class;
            *cond = graded.cond(v);
        });
    (exact_f64, nodes)
}

/// One op's score. Every per-node pass runs on every core: the exact treefix it is priced
/// against uses them all. `ours` judges the errors by our algorithms' bounds.
fn score_op<G: Graded>(
    tree: &Tree,
    op: Op,
    graded: &G,
    options: &ScoreOptions,
    ours: impl FnOnce(&Nodes) -> Vec<Verdict>,
    label: &dyn Fn(usize) -> Option<String>,
) -> OpScore {
    let n = tree.len();
    let storage = options.arithmetic.storage;
    let lost_bits = |rel| storage.lost_bits(rel);
    let (exact_f64, nodes) = node_figures(graded, n, storage);
    let mut summary = ErrorSummary::from_parts(&nodes.rel_error, &nodes.abs_error, &nodes.class);
    summary.max_lost_bits = storage.lost_bits(summary.max_rel_error);
    let (rel_error, node_bits) = (&nodes.rel_error, &nodes.lost_bits);
    // A total order (ties to the lower vertex): the same worst vertex on any number of cores.
    let worst = (0..n)
        .into_par_iter()
        .max_by(|&x, &y| {
            (node_bits[x].total_cmp(&node_bits[y]))
                .then(rel_error[x].total_cmp(&rel_error[y]))
                .then(y.cmp(&x))
        })
        .unwrap_or(0);
    let terms = any_order::Terms::of(tree, op);
    let abs_error = &nodes.abs_error;
    let rounded = &nodes.reference;
    let order_node_bounds: Vec<Vec<f64>> = OrderBound::ALL
        .iter()
        .map(|&b| any_order::node_bounds(b, terms, graded, options.arithmetic))
        .collect();
    let order_bounds = OrderBound::ALL
        .iter()
        .zip(&order_node_bounds)
        .map(|(&b, nb)| {
            any_order::verdict(b, nb, abs_error, (graded, &exact_f64, rounded), storage)
        })
        .collect();
    let algorithms = ours(&nodes);
    let max_ulps = nodes
        .ulps
        .iter()
        .try_fold(0u64, |m, &u| u.map(|u| m.max(u)));
    let max_lost_bits = if summary.flagged_nodes > 0 {
        f64::INFINITY
    } else {
        summary.max_lost_bits
    };
    OpScore {
        op,
        max_rel_error: summary.max_rel_error,
        median_rel_error: summary.median_rel_error,
        p99_rel_error: summary.p99_rel_error,
        max_lost_bits,
        median_lost_bits: lost_bits(summary.median_rel_error),
        p99_lost_bits: lost_bits(summary.p99_rel_error),
        max_ulps,
        flagged_nodes: summary.flagged_nodes,
        max_flagged_abs_error: summary.max_flagged_abs_error,
        nonfinite_nodes: summary.nonfinite_nodes,
        overflow_nodes: rounded.par_iter().filter(|x| x.is_infinite()).count(),
        worst: Worst {
            vertex: worst,
            label: label(worst),
            cond: nodes.cond[worst],
        },
        nodes_over_max_lost_bits: options
            .max_lost_bits
            .map(|b| node_bits.iter().filter(|&&x| x > b).count()),
        nodes_over_max_ulps: options.max_ulps.map(|k| {
            nodes
                .ulps
                .iter()
                .filter(|u| u.is_none_or(|u| u > k))
                .count()
        }),
        order_bounds,
        algorithms,
        arithmetic: options.arithmetic,
        nodes: Nodes {
            order_bounds: order_node_bounds,
            ..nodes
        },
    }
}

impl Nodes {
    /// Node v's error as the reference gave it (a flagged node's relative error 0, not +∞).
    pub fn error(&self, v: usize) -> analysis::NodeError {
        let class = self.class[v];
        analysis::NodeError {
            rel: if class == ErrorClass::Flagged {
                0.0
            } else {
                self.rel_error[v]
            },
            abs: self.abs_error[v],
            class,
        }
    }
}

impl Score {
    /// The score of `op`, if its results were given.
    pub fn get(&self, op: Op) -> Option<&OpScore> {
        self.ops.iter().find(|s| s.op == op)
    }

    /// The gates that failed, one phrase each (empty: passed).
    pub fn failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for s in &self.ops {
            if let (Some(b), Some(k)) = (self.max_lost_bits_gate, s.nodes_over_max_lost_bits)
                && k > 0
            {
                let flagged = if s.flagged_nodes > 0 {
                    format!(
                        "; {} with exact value 0 and a non-zero result",
                        s.flagged_nodes
                    )
                } else {
                    String::new()
                };
                out.push(format!(
                    "{}: {k} node(s) lose more than --max-lost-bits {b} (max {:.2}{flagged})",
                    s.op, s.max_lost_bits
                ));
            }
            if let (Some(b), Some(k)) = (self.max_ulps_gate, s.nodes_over_max_ulps)
                && k > 0
            {
                out.push(format!(
                    "{}: {k} node(s) lie more than --max-ulps {b} from the correctly rounded result (max {})",
                    s.op,
                    print::ulps_text(s.max_ulps)
                ));
            }
        }
        out
    }

    pub fn passed(&self) -> bool {
        self.failures().is_empty()
    }
}

impl OpScore {
    /// The order-independent verdict of `bound`.
    pub fn order_bound(&self, bound: OrderBound) -> &OrderVerdict {
        self.order_bounds
            .iter()
            .find(|v| v.bound == bound)
            .expect("every order bound is judged")
    }
}
