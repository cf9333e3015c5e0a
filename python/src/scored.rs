//! `Score` and `OpScore`: what `score` makes of results, with every per-node figure as a
//! numpy array.

use crate::convert::{self, Owned};
use analysis::ErrorClass;
use pyo3::prelude::*;
use std::collections::BTreeMap;
use treefix_accuracy::OrderBound;
use treefix_accuracy::score::json;

/// How one op's results fare. The per-node arrays are indexed by vertex.
#[pyclass(module = "treefix_accuracy", frozen, get_all)]
pub struct OpScore {
    /// "rootfix" or "leaffix".
    pub op: String,
    /// The most bits any node loses (inf: a NaN or ±inf where a finite value exists, or a
    /// non-zero result where the exact value is 0).
    pub max_lost_bits: f64,
    pub median_lost_bits: f64,
    pub p99_lost_bits: f64,
    pub max_rel_error: f64,
    pub median_rel_error: f64,
    pub p99_rel_error: f64,
    /// The largest distance in f32 ulps from the correctly rounded result (inf: infinitely
    /// far).
    pub max_ulps: f64,
    /// Nodes whose exact value is 0 and whose result is not.
    pub flagged_nodes: usize,
    /// Nodes whose result is NaN or ±inf where a finite value exists.
    pub nonfinite_nodes: usize,
    /// Nodes whose exact value lies beyond f32's range.
    pub overflow_nodes: usize,
    /// The vertex losing the most bits (the lowest id on ties), its label and its κ_v.
    pub worst_vertex: usize,
    pub worst_label: Option<String>,
    pub worst_cond: f64,
    /// Per node: bits lost, max(0, log2(rel_error) + 24) (float64; inf where rel_error is).
    pub lost_bits: Owned<f64>,
    /// Per node: distance in f32 ulps from the correctly rounded result (float64, inf:
    /// infinitely far).
    pub ulps: Owned<f64>,
    /// Per node: |result - exact| / |exact| (inf for a flagged or non-finite node).
    pub rel_error: Owned<f64>,
    /// Per node: |result - exact|.
    pub abs_error: Owned<f64>,
    /// Per node: the correctly rounded result (float64 for f64 results, else float32).
    pub reference: Py<PyAny>,
    /// Per node: κ_v = Σ|terms| / |Σ terms| (inf where the sum is 0).
    pub cond: Owned<f64>,
    /// Per node flags (bool): exact value 0 and a non-zero result; NaN or ±inf where a
    /// finite value exists; exact value beyond f32's range.
    pub flagged: Owned<bool>,
    pub nonfinite: Owned<bool>,
    pub beyond_range: Owned<bool>,
    /// Per node: the order-independent bounds γ_k·Σ|terms| (any order: k = depth or subtree
    /// size - 1; balanced: k = ⌈log2 of the number of terms⌉).
    pub any_order_bound: Owned<f64>,
    pub balanced_bound: Owned<f64>,
    /// Whether the results stay within each bound: "any-order", "balanced", then each of
    /// our algorithms' bounds asked for by name (within: no node above its a priori bound
    /// nor above its sharp one).
    pub within: BTreeMap<String, bool>,
    /// Nodes above each bound, by the same names.
    pub violations: BTreeMap<String, usize>,
    /// Nodes above the max_lost_bits / max_ulps gates given to score (None without one).
    pub nodes_over_max_lost_bits: Option<usize>,
    pub nodes_over_max_ulps: Option<usize>,
    /// This op's lines of the tables `accuracy score` prints.
    pub summary: String,
}

#[pymethods]
impl OpScore {
    fn __repr__(&self) -> String {
        format!(
            "OpScore(op={:?}, max_lost_bits={}, max_ulps={}, worst_vertex={}, within any-order={})",
            self.op,
            self.max_lost_bits,
            self.max_ulps,
            self.worst_vertex,
            self.within.get("any-order").copied().unwrap_or(false)
        )
    }
}

/// What `score` makes of the results of each op given.
#[pyclass(module = "treefix_accuracy", frozen)]
pub struct Score {
    #[pyo3(get)]
    pub n: usize,
    #[pyo3(get)]
    pub height: u32,
    /// κ of the whole weight vector.
    #[pyo3(get)]
    pub achieved_cond: f64,
    #[pyo3(get)]
    pub rootfix: Option<Py<OpScore>>,
    #[pyo3(get)]
    pub leaffix: Option<Py<OpScore>>,
    /// Whether the gates given to score (max_lost_bits, max_ulps) held: True without one,
    /// whatever the bounds say (they are in within). assert_accurate without a gate checks
    /// within="any-order" instead, so it may raise where passed is True.
    #[pyo3(get)]
    pub passed: bool,
    /// The failed gates, one phrase each.
    #[pyo3(get)]
    pub failures: Vec<String>,
    /// The tables as `accuracy score` prints them.
    #[pyo3(get)]
    pub summary: String,
    /// `accuracy score --json`'s document.
    json: String,
}

#[pymethods]
impl Score {
    fn __repr__(&self) -> String {
        let passed = if self.passed { "True" } else { "False" };
        format!("Score(n={}, passed={passed})", self.n)
    }

    /// The document `accuracy score --json` writes for the same tree, weights and results:
    /// the same fields and numbers; "tree" and "results" name what Python was given, and
    /// "precision" (how many digits a results file was printed with) is absent.
    fn to_json(&self) -> String {
        self.json.clone()
    }

    fn __str__(&self) -> String {
        self.summary.clone()
    }
}

/// The Python view of a library score; `tree` and `results` name the inputs in its JSON.
pub fn to_py(
    py: Python<'_>,
    s: &treefix_accuracy::Score,
    (tree, results): (String, String),
) -> PyResult<Score> {
    let mut rootfix = None;
    let mut leaffix = None;
    for o in &s.ops {
        let one = op_score(py, o)?;
        match o.op {
            analysis::Op::Rootfix => rootfix = Some(Py::new(py, one)?),
            analysis::Op::Leaffix => leaffix = Some(Py::new(py, one)?),
        }
    }
    let failures = s.failures();
    Ok(Score {
        n: s.n,
        height: s.height,
        achieved_cond: s.achieved_cond,
        rootfix,
        leaffix,
        passed: failures.is_empty(),
        failures,
        summary: s.tables(),
        json: json::to_json(&json::document(s, tree, results, None)),
    })
}

fn op_score(py: Python<'_>, o: &treefix_accuracy::OpScore) -> PyResult<OpScore> {
    let nodes = &o.nodes;
    let flag = |c: ErrorClass| -> Owned<bool> {
        convert::owned(py, nodes.class.iter().map(|&k| k == c).collect())
    };
    let bound = |b: OrderBound| -> Vec<f64> {
        let i = OrderBound::ALL
            .iter()
            .position(|&x| x == b)
            .expect("listed");
        nodes.order_bounds[i].clone()
    };
    let mut within = BTreeMap::new();
    let mut violations = BTreeMap::new();
    for v in &o.order_bounds {
        within.insert(v.bound.name().to_string(), v.within);
        violations.insert(v.bound.name().to_string(), v.violations);
    }
    for v in &o.algorithms {
        within.insert(v.algorithm.name().to_string(), v.within);
        violations.insert(
            v.algorithm.name().to_string(),
            v.a_priori_violations.max(v.sharp_violations),
        );
    }
    let one = std::slice::from_ref(o);
    Ok(OpScore {
        op: o.op.name().to_string(),
        max_lost_bits: o.max_lost_bits,
        median_lost_bits: o.median_lost_bits,
        p99_lost_bits: o.p99_lost_bits,
        max_rel_error: o.max_rel_error,
        median_rel_error: o.median_rel_error,
        p99_rel_error: o.p99_rel_error,
        max_ulps: o.max_ulps.map_or(f64::INFINITY, |u| u as f64),
        flagged_nodes: o.flagged_nodes,
        nonfinite_nodes: o.nonfinite_nodes,
        overflow_nodes: o.overflow_nodes,
        worst_vertex: o.worst.vertex,
        worst_label: o.worst.label.clone(),
        worst_cond: o.worst.cond,
        lost_bits: convert::owned(py, nodes.lost_bits.clone()),
        ulps: convert::owned(
            py,
            nodes
                .ulps
                .iter()
                .map(|u| u.map_or(f64::INFINITY, |u| u as f64))
                .collect(),
        ),
        rel_error: convert::owned(py, nodes.rel_error.clone()),
        abs_error: convert::owned(py, nodes.abs_error.clone()),
        reference: match o.arithmetic.storage {
            generators::Precision::F64 => convert::array(py, nodes.reference.clone()).into_any(),
            _ => {
                let carried: Vec<f32> = nodes.reference.iter().map(|&x| x as f32).collect();
                convert::array(py, carried).into_any()
            }
        }
        .unbind(),
        cond: convert::owned(py, nodes.cond.clone()),
        flagged: flag(ErrorClass::Flagged),
        nonfinite: flag(ErrorClass::NonFinite),
        beyond_range: flag(ErrorClass::Overflow),
        any_order_bound: convert::owned(py, bound(OrderBound::AnyOrder)),
        balanced_bound: convert::owned(py, bound(OrderBound::Balanced)),
        within,
        violations,
        nodes_over_max_lost_bits: o.nodes_over_max_lost_bits,
        nodes_over_max_ulps: o.nodes_over_max_ulps,
        summary: treefix_accuracy::score::print::errors_table(one)
            + &treefix_accuracy::score::print::verdicts_table(one)
            + &treefix_accuracy::score::print::verdict_lines(one),
    })
}
