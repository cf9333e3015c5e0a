//! Error statistics over the nodes of one run, and the vectorial algorithm's own conditioning.

use crate::algo::Op;
use crate::orders::{Abs, euler};
use crate::reference::{NodeError, lost_bits};
use crate::scan_plan;
use generators::Tree;
use serde::{Deserialize, Serialize};

/// Summary of the per-node errors of one (tree, algorithm, op).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ErrorSummary {
    pub max_rel_error: f64,
    pub median_rel_error: f64,
    pub p99_rel_error: f64,
    pub max_lost_bits: f64,
    /// Nodes whose exact value is zero while the computed one is not.
    pub flagged_nodes: usize,
    /// The largest absolute error among flagged nodes (0 if none).
    pub max_flagged_abs_error: f64,
}

impl ErrorSummary {
    /// Nearest-rank percentiles over the unflagged nodes.
    pub fn from_errors(errors: &[NodeError]) -> ErrorSummary {
        let mut rel: Vec<f64> = errors
            .iter()
            .filter(|e| !e.flagged)
            .map(|e| e.rel)
            .collect();
        // The k-th smallest (1-based) in the order `total_cmp`, by selection: the same
        // element a sort would put there, without sorting everything.
        let len = rel.len();
        let rank = |p: f64| ((p * len as f64).ceil() as usize).clamp(1, len);
        let mut kth = |k: usize| -> f64 { *rel.select_nth_unstable_by(k - 1, f64::total_cmp).1 };
        let (max, p99, median) = if len == 0 {
            (0.0, 0.0, 0.0)
        } else {
            (kth(len), kth(rank(0.99)), kth(rank(0.5)))
        };
        ErrorSummary {
            max_rel_error: max,
            median_rel_error: median,
            p99_rel_error: p99,
            max_lost_bits: lost_bits(max),
            flagged_nodes: errors.iter().filter(|e| e.flagged).count(),
            max_flagged_abs_error: errors
                .iter()
                .filter(|e| e.flagged)
                .map(|e| e.abs)
                .fold(0.0, f64::max),
        }
    }
}

/// Σ_{i ≤ p} |E_i| for every vertex, with p = `open[v]` (rootfix) or `close[v]` (leaffix): the
/// magnitude the vectorial scan really accumulates before it reaches v's answer, including the
/// ±w pairs of subtrees closed before v. Divided by |x_v| it is κ^E_v (docs/design.md §8.2).
pub fn scan_abs_prefix(tree: &Tree, w: &[f32], op: Op) -> Vec<f64> {
    // The Euler-tour write on magnitudes (|−w| = |w| at close for rootfix), scanned left to
    // right: magnitudes do not round in a way that matters here, so any scan order would do.
    let mut at: Vec<Abs<f64>> = euler::write(tree, w, op);
    scan_plan::sequential_scan(&mut at);
    let pos = match op {
        Op::Rootfix => tree.open(),
        Op::Leaffix => tree.close(),
    };
    pos.iter().map(|&p| at[p as usize].0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let errs: Vec<NodeError> = (1..=100)
            .map(|i| NodeError {
                rel: i as f64 * 1e-8,
                abs: 0.0,
                flagged: false,
            })
            .chain([NodeError {
                rel: 0.0,
                abs: 3.0,
                flagged: true,
            }])
            .collect();
        let s = ErrorSummary::from_errors(&errs);
        assert_eq!(s.max_rel_error, 1e-6);
        assert_eq!(s.median_rel_error, 50e-8);
        assert_eq!(s.p99_rel_error, 99e-8);
        assert_eq!(s.flagged_nodes, 1);
        assert_eq!(s.max_flagged_abs_error, 3.0);
    }

    #[test]
    fn scan_prefix_counts_closed_subtrees() {
        use generators::{ChildOrder, NO_PARENT};
        let t = Tree::from_parents(vec![NO_PARENT, 0, 1, 1, 1, 0], ChildOrder::Natural).unwrap();
        let w = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        // Vertex f (5) is reached after the whole subtree of b was opened and closed.
        assert_eq!(
            scan_abs_prefix(&t, &w, Op::Rootfix)[5],
            1.0 + 2.0 * (2.0 + 3.0 + 4.0 + 5.0) + 6.0
        );
        assert_eq!(
            scan_abs_prefix(&t, &w, Op::Leaffix)[1],
            1.0 + 2.0 + 3.0 + 4.0 + 5.0
        );
    }
}
