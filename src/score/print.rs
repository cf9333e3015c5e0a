//! The tables of a [`Score`], as `accuracy score` prints them and Python's `summary` holds
//! them.

use super::any_order::OrderBound;
use super::{OpScore, Score};
use crate::format::sci;
use generators::Arithmetic;

/// A distance in ulps (`inf` for an infinite one).
pub fn ulps_text(u: Option<u64>) -> String {
    u.map_or("inf".into(), |u| u.to_string())
}

impl Score {
    /// The errors table, the bounds table and the verdict lines.
    pub fn tables(&self) -> String {
        errors_table(&self.ops) + &verdicts_table(&self.ops) + &verdict_lines(&self.ops)
    }
}

/// The errors of each op: what `run` prints for our algorithms.
pub fn errors_table(scores: &[OpScore]) -> String {
    let mut out = match scores.first().map(|s| s.arithmetic) {
        Some(a) if a != Arithmetic::F32 => format!(
            "in {}: lost bits out of {s}'s {} bits, ulps of {s}; {}\n",
            a.describe(),
            a.storage.p(),
            if a.storage == generators::Precision::F64 {
                "the order-independent bounds with f64's u"
            } else {
                "our algorithms' bounds with its additions and its store"
            },
            s = a.storage
        ),
        _ => String::new(),
    };
    out += &format!(
        "{:<8} {:>10} {:>10} {:>10} {:>8} {:>9} {:>7} {:>12} {:>9} {:>8} {:>10}  worst vertex\n",
        "op",
        "max rel",
        "median",
        "p99",
        "max bits",
        "max ulps",
        "flagged",
        "flagged abs",
        "nonfinite",
        "overflow",
        "κ_v worst"
    );
    for s in scores {
        let label = s.worst.label.as_ref().map(|l| format!(" ({l})"));
        out += &format!(
            "{:<8} {:>10} {:>10} {:>10} {:>8.2} {:>9} {:>7} {:>12} {:>9} {:>8} {:>10}  {}{}\n",
            s.op.name(),
            sci(s.max_rel_error),
            sci(s.median_rel_error),
            sci(s.p99_rel_error),
            s.max_lost_bits,
            ulps_text(s.max_ulps),
            s.flagged_nodes,
            sci(s.max_flagged_abs_error),
            s.nonfinite_nodes,
            s.overflow_nodes,
            sci(s.worst.cond),
            s.worst.vertex,
            label.unwrap_or_default()
        );
    }
    out
}

/// Which bounds the results stay within: the order-independent ones, then our algorithms'.
pub fn verdicts_table(scores: &[OpScore]) -> String {
    let mut out =
        String::from("which error bounds do the results stay within? (nodes above each bound)\n");
    out += &format!(
        "{:<8} {:<21} {:>10} {:>10} {:>10} {:>8}  verdict\n",
        "op", "bound", "a priori", "sharp", "bound bits", "overflow"
    );
    for s in scores {
        for v in &s.order_bounds {
            out += &format!(
                "{:<8} {:<21} {:>10} {:>10} {:>10.2} {:>8}  {}\n",
                s.op.name(),
                v.bound.name(),
                v.violations,
                "-",
                v.max_bound_lost_bits,
                v.overflow_nodes,
                within(v.within)
            );
        }
        for v in &s.algorithms {
            out += &format!(
                "{:<8} {:<21} {:>10} {:>10} {:>10.2} {:>8}  {}\n",
                s.op.name(),
                v.algorithm.name(),
                v.a_priori_violations,
                v.sharp_violations,
                v.max_bound_lost_bits,
                v.overflow_nodes,
                within(v.within)
            );
        }
    }
    if scores
        .iter()
        .any(|s| s.algorithms.iter().any(|v| v.overflow_nodes > 0))
        || scores
            .iter()
            .any(|s| s.order_bounds.iter().any(|v| v.overflow_nodes > 0))
    {
        let a = scores.first().map_or(Arithmetic::F32, |s| s.arithmetic);
        out += &if a == Arithmetic::F32 {
            "overflow: nodes where f32 overflows in that order (or the exact value is beyond f32's range); its bounds, which assume no overflow, are not applied there\n".to_string()
        } else {
            format!(
                "overflow: nodes where the bound reaches {s}'s range (or the exact value is beyond it; in {acc}, γ_k is infinite once k·u ≥ 1: k ≥ 2^{p}): no bound is applied there\n",
                s = a.storage,
                acc = a.accumulate,
                p = a.accumulate.p()
            )
        };
    }
    out
}

fn within(w: bool) -> &'static str {
    if w { "within" } else { "outside" }
}

/// One line per op: the bound it was held to, and what the verdict means.
pub fn verdict_lines(scores: &[OpScore]) -> String {
    let mut out = String::new();
    for s in scores {
        let any = s.order_bound(OrderBound::AnyOrder);
        let balanced = s.order_bound(OrderBound::Balanced);
        let line = if any.within {
            let tighter = if balanced.within {
                format!(
                    ", and within the balanced-order bound ({})",
                    OrderBound::Balanced.formula(s.op)
                )
            } else {
                String::new()
            };
            format!(
                "{}: within the order-independent bound ({}): what {} additions of each \
                 node's own terms, in any order, can give{tighter}\n",
                s.op,
                s.arithmetic.accumulate,
                OrderBound::AnyOrder.formula(s.op)
            )
        } else {
            format!(
                "{}: OUTSIDE the order-independent bound ({}) at {} node(s): no order of \
                 {} additions of each node's own terms gives these results (a scan and a \
                 subtraction, another precision, or a wrong value)\n",
                s.op,
                OrderBound::AnyOrder.formula(s.op),
                any.violations,
                s.arithmetic.accumulate
            )
        };
        out += &line;
    }
    out
}
