//! Error statistics over the nodes of one run, and the vectorial algorithm's own conditioning.

use crate::Op;
use crate::orders::euler;
use crate::reference::{ErrorClass, NodeError, lost_bits};
use crate::scan_plan;
use crate::scan_value::Abs;
use crate::stats::Ranks;
use generators::Tree;
use serde::{Deserialize, Serialize};

/// Summary of the per-node errors of one (tree, algorithm, op).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ErrorSummary {
    /// Over the nodes with a relative error: finite results, and non-finite ones (+∞).
    pub max_rel_error: f64,
    pub median_rel_error: f64,
    pub p99_rel_error: f64,
    /// +∞ when any result is NaN or ±∞ where a finite one exists.
    pub max_lost_bits: f64,
    /// Nodes whose exact value is zero while the computed one is not.
    pub flagged_nodes: usize,
    /// The largest absolute error among flagged nodes (0 if none).
    pub max_flagged_abs_error: f64,
    /// Nodes whose result is NaN or ±∞ where the exact value's rounding is finite: each an
    /// infinite loss ([`ErrorClass::NonFinite`]).
    pub nonfinite_nodes: usize,
    /// Nodes whose exact value lies beyond f32's range and whose result is its rounding, ±∞
    /// ([`ErrorClass::Overflow`]); left out of the statistics.
    pub beyond_range_nodes: usize,
}

impl ErrorSummary {
    /// Nearest-rank percentiles over the nodes with a relative error ([`NodeError::has_rel`]).
    pub fn from_errors(errors: &[NodeError]) -> ErrorSummary {
        // Allocated once: a filtered collect would grow it by doubling.
        let mut rel = Ranks::with_capacity(errors.len());
        rel.fill(errors.iter().filter(|e| e.has_rel()).map(|e| e.rel));
        let mut counts = ErrorCounts::default();
        errors.iter().for_each(|e| counts.add(e));
        ErrorSummary::of(&mut rel, counts)
    }

    /// [`ErrorSummary::from_errors`] of errors given as arrays, one element per node (a
    /// flagged node's `rel` is not read).
    pub fn from_parts(rel: &[f64], abs: &[f64], class: &[ErrorClass]) -> ErrorSummary {
        let mut ranks = Ranks::with_capacity(rel.len());
        let has_rel = |c: &ErrorClass| matches!(c, ErrorClass::Relative | ErrorClass::NonFinite);
        ranks.fill(
            rel.iter()
                .zip(class)
                .filter(|(_, c)| has_rel(c))
                .map(|(&r, _)| r),
        );
        let mut counts = ErrorCounts::default();
        for ((&rel, &abs), &class) in rel.iter().zip(abs).zip(class) {
            counts.add(&NodeError { rel, abs, class });
        }
        ErrorSummary::of(&mut ranks, counts)
    }

    /// The summary of errors given by their relative errors `rel` (those of the nodes with
    /// one, reordered here) and their counts.
    pub fn of(rel: &mut Ranks, counts: ErrorCounts) -> ErrorSummary {
        let (max, p99, median) = percentiles(rel);
        ErrorSummary {
            max_rel_error: max,
            median_rel_error: median,
            p99_rel_error: p99,
            max_lost_bits: lost_bits(max),
            flagged_nodes: counts.flagged,
            max_flagged_abs_error: counts.max_flagged_abs,
            nonfinite_nodes: counts.nonfinite,
            beyond_range_nodes: counts.beyond_range,
        }
    }
}

/// What [`ErrorSummary`] counts of the errors, taken one error at a time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ErrorCounts {
    pub flagged: usize,
    pub max_flagged_abs: f64,
    pub nonfinite: usize,
    pub beyond_range: usize,
}

impl ErrorCounts {
    #[inline]
    pub fn add(&mut self, e: &NodeError) {
        match e.class {
            ErrorClass::Flagged => {
                self.flagged += 1;
                self.max_flagged_abs = self.max_flagged_abs.max(e.abs);
            }
            ErrorClass::NonFinite => self.nonfinite += 1,
            ErrorClass::Overflow => self.beyond_range += 1,
            ErrorClass::Relative => {}
        }
    }

    /// These counts and `other`'s together.
    pub fn merge(self, other: ErrorCounts) -> ErrorCounts {
        ErrorCounts {
            flagged: self.flagged + other.flagged,
            max_flagged_abs: self.max_flagged_abs.max(other.max_flagged_abs),
            nonfinite: self.nonfinite + other.nonfinite,
            beyond_range: self.beyond_range + other.beyond_range,
        }
    }
}

/// (max, p99, median) of `rel` by nearest rank in the order of `f64::total_cmp` (0s when
/// empty): each the element a sort would put at its rank, found by selection. The p99
/// selection leaves the lower ranks below it, where the median is then selected, and the
/// higher ones above it, where the max is.
fn percentiles(ranks: &mut Ranks) -> (f64, f64, f64) {
    let len = ranks.values_mut().len();
    if len == 0 {
        return (0.0, 0.0, 0.0);
    }
    let rank = |p: f64| ((p * len as f64).ceil() as usize).clamp(1, len);
    let (k99, k50) = (rank(0.99) - 1, rank(0.5) - 1);
    if let Some([max, p99, median]) = ranks.ranks_nonneg([len - 1, k99, k50]) {
        return (max, p99, median);
    }
    let rel = ranks.values_mut();
    let (below, &mut p99, above) = rel.select_nth_unstable_by(k99, f64::total_cmp);
    let max = above
        .iter()
        .copied()
        .fold(p99, |m, x| if x.total_cmp(&m).is_gt() { x } else { m });
    let median = if k50 == k99 {
        p99
    } else {
        *below.select_nth_unstable_by(k50, f64::total_cmp).1
    };
    (max, p99, median)
}

/// The distance in f32 ulps between `a` and `b`: how many f32 values lie between them, plus
/// one (0 when equal, +0 and −0 included; 1 for neighbours; ±∞ counts as the value after
/// ±MAX). None when either is NaN, or one is infinite and the other not within one step of it
/// (an infinite distance).
/// [`ulps`] in the ulps of `storage` (values of it, carried as f32): their distance among
/// its values in order, ±∞ one past the largest finite ([`generators::Precision::ordinal`]).
pub fn ulps_in(storage: generators::Precision, a: f32, b: f32) -> Option<u64> {
    if storage == generators::Precision::F32 {
        return ulps(a, b);
    }
    if a.is_nan() || b.is_nan() {
        return None;
    }
    Some((storage.ordinal(a as f64) - storage.ordinal(b as f64)).unsigned_abs())
}

pub fn ulps(a: f32, b: f32) -> Option<u64> {
    if a.is_nan() || b.is_nan() {
        return None;
    }
    // f32 bit patterns ordered as integers: negatives mirrored below zero, ±0 both at 0.
    let key = |x: f32| {
        let bits = x.to_bits() as i64;
        if bits & 0x8000_0000 != 0 {
            -(bits & 0x7fff_ffff)
        } else {
            bits
        }
    };
    let d = key(a).abs_diff(key(b));
    if (a.is_infinite() || b.is_infinite()) && d > 1 {
        return None;
    }
    Some(d)
}

/// The largest [`ulps`] between `values` and the reference's correct rounding of each node
/// (∞ where a distance is infinite).
pub fn max_ulps(values: &[f32], reference: &crate::Reference) -> f64 {
    values
        .iter()
        .enumerate()
        .map(|(v, &x)| ulps(x, reference.rounded_f32(v)).map_or(f64::INFINITY, |d| d as f64))
        .fold(0.0, f64::max)
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

    fn node(rel: f64, abs: f64, class: ErrorClass) -> NodeError {
        NodeError { rel, abs, class }
    }

    #[test]
    fn percentiles() {
        let errs: Vec<NodeError> = (1..=100)
            .map(|i| node(i as f64 * 1e-8, 0.0, ErrorClass::Relative))
            .chain([node(0.0, 3.0, ErrorClass::Flagged)])
            .chain([node(0.0, f64::INFINITY, ErrorClass::Overflow)])
            .collect();
        let s = ErrorSummary::from_errors(&errs);
        assert_eq!(s.max_rel_error, 1e-6);
        assert_eq!(s.median_rel_error, 50e-8);
        assert_eq!(s.p99_rel_error, 99e-8);
        assert_eq!(s.flagged_nodes, 1);
        assert_eq!(s.max_flagged_abs_error, 3.0);
        assert_eq!((s.nonfinite_nodes, s.beyond_range_nodes), (0, 1));
    }

    /// One NaN result among finite ones: an infinite loss, never "0 lost bits".
    #[test]
    fn a_nonfinite_result_is_an_infinite_loss() {
        let errs: Vec<NodeError> = (1..=100)
            .map(|i| node(i as f64 * 1e-8, 0.0, ErrorClass::Relative))
            .chain([node(f64::INFINITY, f64::INFINITY, ErrorClass::NonFinite)])
            .collect();
        let s = ErrorSummary::from_errors(&errs);
        assert_eq!(s.max_rel_error, f64::INFINITY);
        assert_eq!(s.max_lost_bits, f64::INFINITY);
        assert_eq!(s.nonfinite_nodes, 1);
        assert_eq!(s.median_rel_error, 51e-8);
    }

    #[test]
    fn ulp_distances() {
        let next = |x: f32| f32::from_bits(x.to_bits() + 1);
        assert_eq!(ulps(1.0, 1.0), Some(0));
        assert_eq!(ulps(0.0, -0.0), Some(0));
        assert_eq!(ulps(1.0, next(1.0)), Some(1));
        assert_eq!(ulps(next(1.0), 1.0), Some(1));
        assert_eq!(ulps(f32::from_bits(1), -f32::from_bits(1)), Some(2));
        assert_eq!(ulps(f32::MAX, f32::INFINITY), Some(1));
        assert_eq!(ulps(-f32::MAX, f32::NEG_INFINITY), Some(1));
        assert_eq!(ulps(1.0, f32::INFINITY), None);
        assert_eq!(ulps(f32::INFINITY, f32::INFINITY), Some(0));
        assert_eq!(ulps(f32::NAN, 1.0), None);
        assert_eq!(ulps(1.0, 2.0), Some(1 << 23));
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
