//! Error bounds that hold whatever order a kernel adds a node's own terms in (docs/design.md
//! §9.9): the yardstick for kernels we did not write, whose order we do not know.
//!
//! A node's sum has m terms (rootfix: the depth + 1 weights of its path; leaffix: the weights
//! of its subtree). Any binary tree of f32 additions over exactly those terms — sequential,
//! reversed, pairwise, children in any order, partial sums shared between nodes — makes each
//! term go through at most m − 1 additions, so the error is at most γ_{m−1}·Σ|terms|. A
//! balanced tree of additions makes each go through at most ⌈log₂ m⌉: γ_{⌈log₂ m⌉}·Σ|terms|.
//!
//! In another arithmetic γ is the accumulation format's; where the results are stored in a
//! narrower format, the store rounds the sum s̃ once more: |RN_S(s̃) − x| ≤ |s̃ − x| + u_S·|s̃|
//! ≤ γ·Σ + u_S·(1 + γ)·Σ, since |x| ≤ Σ|terms|. A single term is stored as given: no error.

use super::graded::Graded;
use analysis::bounds::{add_up, gamma_in, mul_up, next_up};
use analysis::{Op, ReferenceKind};
use generators::exact_sum::EXACT_PREC;
use generators::{Arithmetic, Precision, Tree};
use rayon::prelude::*;
use rug::Float;
use serde::Serialize;

/// Which order-independent bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OrderBound {
    /// γ_k·Σ|terms| with k = m − 1: any order of the node's own additions.
    AnyOrder,
    /// γ_k·Σ|terms| with k = ⌈log₂ m⌉: a balanced (pairwise) order over the node's terms.
    Balanced,
}

impl OrderBound {
    pub const ALL: [OrderBound; 2] = [OrderBound::AnyOrder, OrderBound::Balanced];

    /// The name in tables, files and Python (`any-order`, `balanced`).
    pub fn name(self) -> &'static str {
        match self {
            OrderBound::AnyOrder => "any-order",
            OrderBound::Balanced => "balanced",
        }
    }

    /// How it is formed, for the verdict line.
    pub fn formula(self, op: Op) -> &'static str {
        match (self, op) {
            (OrderBound::AnyOrder, Op::Rootfix) => "γ_k·Σ|terms|, k = depth",
            (OrderBound::AnyOrder, Op::Leaffix) => "γ_k·Σ|terms|, k = subtree size − 1",
            (OrderBound::Balanced, Op::Rootfix) => "γ_k·Σ|terms|, k = ⌈log₂(depth + 1)⌉",
            (OrderBound::Balanced, Op::Leaffix) => "γ_k·Σ|terms|, k = ⌈log₂(subtree size)⌉",
        }
    }

    /// The longest chain of additions a term can go through in a sum of `terms` terms.
    pub fn chain(self, terms: u64) -> u64 {
        match self {
            OrderBound::AnyOrder => terms.saturating_sub(1),
            OrderBound::Balanced => match terms {
                0 | 1 => 0,
                m => u64::from(64 - (m - 1).leading_zeros()),
            },
        }
    }
}

impl std::str::FromStr for OrderBound {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        OrderBound::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown bound '{s}' (expected any-order or balanced)"))
    }
}

/// The number of terms of each node's sum: depth + 1 (rootfix) or subtree size (leaffix), read
/// from the tree's own arrays.
#[derive(Debug, Clone, Copy)]
pub struct Terms<'a> {
    counts: &'a [u32],
    /// 1 for rootfix (a path of depth d has d + 1 weights), 0 for leaffix.
    plus: u64,
}

impl<'a> Terms<'a> {
    pub fn of(tree: &'a Tree, op: Op) -> Terms<'a> {
        match op {
            Op::Rootfix => Terms {
                counts: tree.depths(),
                plus: 1,
            },
            Op::Leaffix => Terms {
                counts: tree.subtree_sizes(),
                plus: 0,
            },
        }
    }

    /// Node v's number of terms.
    #[inline]
    pub fn of_node(self, v: usize) -> u64 {
        u64::from(self.counts[v]) + self.plus
    }

    pub fn len(self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(self) -> bool {
        self.counts.is_empty()
    }
}

/// Every node's bound, rounded upward: γ_k (upward) times Σ|terms| (the reference's f64,
/// moved one ulp up so that it is at least the exact Σ|terms|), the product one ulp up. With
/// the double-double reference Σ|terms| is itself an f64 sum, so it is raised by 2^-30
/// relative first (far more than 2^24 f64 additions can lose): the bound is then as good as
/// that reference, no better.
pub fn node_bounds(
    bound: OrderBound,
    terms: Terms<'_>,
    reference: &impl Graded,
    arith: Arithmetic,
) -> Vec<f64> {
    let slack = match reference.kind() {
        ReferenceKind::Exact => 1.0,
        ReferenceKind::Dd => 1.0 + 1.0 / (1u64 << 30) as f64,
    };
    (0..terms.len())
        .into_par_iter()
        .map(|v| {
            let k = bound.chain(terms.of_node(v));
            let abs = reference.abs_sum(v);
            if k == 0 || abs == 0.0 {
                return 0.0;
            }
            let g = gamma_in(k, arith.accumulate.u());
            if !g.is_finite() {
                return f64::INFINITY;
            }
            let sum = next_up(next_up(abs) * slack);
            let added = next_up(g * sum);
            if !arith.is_mixed() {
                return added;
            }
            // The store's rounding: u_S·(1 + γ)·Σ more.
            let stored = mul_up(arith.storage.u(), mul_up(add_up(1.0, g), sum));
            add_up(added, stored)
        })
        .collect()
}

/// How one op's results fare against one order-independent bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderVerdict {
    pub bound: OrderBound,
    /// Nodes whose error exceeds the bound (a non-finite result always does).
    pub violations: usize,
    /// The largest `lost_bits(bound / |x|)`: the most bits the bound allows any node to lose.
    #[serde(serialize_with = "analysis::records::fields::number_or_string")]
    pub max_bound_lost_bits: f64,
    /// Nodes left out: the exact value is beyond f32's range, or Σ|terms| (with the bound's
    /// growth) reaches it, so that some order of additions overflows.
    pub overflow_nodes: usize,
    /// No violation.
    pub within: bool,
}

/// The results against `bounds` (one per node), with `abs_error` the f64 errors and each
/// node's exact value rounded to f64 (`exact_f64`) and to the storage format (`rounded`).
pub fn verdict(
    bound: OrderBound,
    bounds: &[f64],
    abs_error: &[f64],
    (reference, exact_f64, rounded): (&impl Graded, &[f64], &[f64]),
    storage: Precision,
) -> OrderVerdict {
    let overflow = storage.overflow_threshold();
    // Per node: (left out, above its bound, the bits the bound allows); on every core.
    let per_node = (0..bounds.len()).into_par_iter().map_init(
        || Float::new(EXACT_PREC),
        |scratch, v| {
            let (b, e) = (bounds[v], abs_error[v]);
            let abs = reference.abs_sum(v);
            let x = exact_f64[v];
            if rounded[v].is_infinite() || abs + b >= overflow {
                return (1, 0, 0.0);
            }
            let above = reference.exceeds(v, e, b, scratch);
            // The bits the bound allows grow with b / |x|: the largest ratio gives the most
            // bits, taken once at the end (a logarithm per node cost more than the rest).
            let ratio = if x != 0.0 { b / x.abs() } else { 0.0 };
            (0, usize::from(above), ratio)
        },
    );
    let (overflow_nodes, violations, max_ratio) = per_node.reduce(
        || (0, 0, 0.0f64),
        |a, b| (a.0 + b.0, a.1 + b.1, a.2.max(b.2)),
    );
    let mut out = OrderVerdict {
        bound,
        violations,
        max_bound_lost_bits: storage.lost_bits(max_ratio),
        overflow_nodes,
        within: true,
    };
    out.within = out.violations == 0;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_are_the_longest_paths_through_additions() {
        let any: Vec<u64> = (1..=9).map(|m| OrderBound::AnyOrder.chain(m)).collect();
        assert_eq!(any, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
        let balanced: Vec<u64> = (1..=9).map(|m| OrderBound::Balanced.chain(m)).collect();
        assert_eq!(balanced, [0, 1, 2, 2, 3, 3, 3, 3, 4]);
    }

    #[test]
    fn the_threshold_is_where_f32_rounds_to_infinity() {
        let t = Precision::F32.overflow_threshold();
        assert_eq!(t, 2f64.powi(128) * (1.0 - 2f64.powi(-25)));
        assert_eq!(t as f32, f32::INFINITY);
        assert_eq!(analysis::bounds::next_down(t) as f32, f32::MAX);
    }
}
