//! `accuracy spatial`'s memory preflight (`crate::memory`): before a tree is laid out, its
//! peak is estimated from its size, the curves, the ops and the queries, and a run that would
//! not fit is refused with one line (exit 2) instead of failing on an allocation seconds in.
//!
//! Per tree, one layout at a time: the tree, its weights, the tree renamed and its weights by
//! position stay while the lost bits are evaluated (`run`'s evaluation of the five counted
//! algorithms, [`crate::memory::Evaluation`]) and then while the patterns are counted, the
//! larger of the two setting the peak. [`COUNT`] keeps the estimate above the peaks measured
//! on three topologies with a margin (docs/measurements.md, "The memory model against measured
//! peaks"); `tests/spatial_cli.rs::the_memory_model_bounds_a_measured_peak` holds it within
//! 1–2× of a measured peak.

use crate::memory::{self, Estimate, Evaluation, model};
use analysis::ReferenceKind;
use analysis::spatial::ALGORITHMS;

/// Bytes per vertex the counts of one layout on one curve take at their peak, beyond the
/// trees and weights (the counters of the patterns counted at once, the contraction schedule,
/// the virtual tree, the construction's list ranking of 2n entries).
pub const COUNT: f64 = 450.0;
/// Bytes per vertex and further curve (its cells and its share of every energy count).
pub const PER_CURVE: f64 = 16.0;
/// Bytes per batched-LCA query: the pair, its answer, its two places in the held lists.
pub const PER_QUERY: f64 = 24.0;

/// The peak of `accuracy spatial` on its largest tree of `n` vertices (`name`: its topology or
/// file), on `curves` curves, evaluating `ops` ops, with `queries` LCA queries.
pub fn estimate(n: u64, name: &str, curves: usize, ops: usize, queries: u64) -> Estimate {
    let threads = memory::threads();
    let eval = Evaluation {
        algos: &ALGORITHMS,
        ops,
        reference: ReferenceKind::Exact,
        gpu: false,
    };
    // The tree and its weights, and one layout's renamed tree and weights.
    let held = 2.0 * (model::TREE + model::WEIGHTS) + 4.0;
    let counts = COUNT + PER_CURVE * curves.saturating_sub(1) as f64;
    let per_vertex = held + eval.per_vertex_of(false, true).max(counts);
    let fixed = model::FIXED + model::ALLOCATOR + model::ALLOCATOR_PER_THREAD * threads as f64;
    let total = fixed + n as f64 * per_vertex + queries as f64 * PER_QUERY;
    Estimate {
        bytes: total.ceil().min(u64::MAX as f64) as u64,
        what: format!(
            "{n} vertices ({name}, {curves} curve{}, {ops} op{}{})",
            plural(curves),
            plural(ops),
            match queries {
                0 => String::new(),
                q => format!(", {q} LCA queries"),
            }
        ),
        eager: total >= memory::EAGER_PURGE_FROM as f64,
    }
}

fn plural(k: usize) -> &'static str {
    if k == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2^31 vertices needs far more than any machine this runs on; the estimate grows with the
    /// curves and the queries.
    #[test]
    fn the_estimate_grows_with_what_is_asked() {
        let e = estimate(1 << 31, "chain", 1, 2, 0);
        assert!(e.bytes > 1 << 40, "{}", e.bytes);
        assert!(
            e.what
                .starts_with("2147483648 vertices (chain, 1 curve, 2 ops")
        );
        assert!(estimate(1000, "chain", 4, 2, 0).bytes > estimate(1000, "chain", 1, 2, 0).bytes);
        assert!(estimate(1000, "chain", 1, 2, 10).bytes > estimate(1000, "chain", 1, 2, 0).bytes);
    }
}
