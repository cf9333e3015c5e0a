//! Plain-language findings computed from the numbers of a report. A sentence names at most
//! three algorithms; comparisons across more go to the table of [`comparison`]. Algorithms
//! are named and described from the registry ([`analysis::Algorithm::ALL`]): an algorithm added
//! there appears here without a line of this file changing.

mod orders;
#[cfg(test)]
mod tests;

use super::answer::few;
use super::comparison::{self, Comparison, mean, median};
use super::data::{ReportData, ResultRow};
use super::fmt::sci;
use analysis::bounds::U;

/// The findings, most important first, as plain sentences.
pub fn findings(data: &ReportData) -> Vec<String> {
    let rows = &data.rows;
    if rows.is_empty() {
        return vec!["results.csv holds no results yet: nothing to compare.".into()];
    }
    let comparisons = comparison::comparisons(data);
    let mut out = Vec::new();
    out.extend(worst_case(rows));
    out.extend(nonfinite(rows));
    out.extend(overflow(rows));
    out.extend(gpu_mismatches(rows));
    out.extend(compared_at_high_cond(&comparisons));
    out.extend(orders::same_additions(data));
    out.extend(growth(&comparisons));
    out.push(beyond_u_kappa(rows));
    out.extend(bounds(rows));
    out.extend(gpu_equal(rows));
    out.extend(topologies(data));
    out.extend(orders::scan_variants(data));
    out.extend(orders::contraction(data));
    out.extend(orders::child_orders(data));
    out.extend(flagged(rows));
    out
}

/// "vectorial rootfix", each once, in order of appearance.
fn who(rows: &[&ResultRow]) -> Vec<String> {
    let mut who: Vec<String> = Vec::new();
    for r in rows {
        let k = format!("{} {}", r.algorithm, r.op);
        if !who.contains(&k) {
            who.push(k);
        }
    }
    who
}

/// The worst case of the sweep.
fn worst_case(rows: &[ResultRow]) -> Option<String> {
    if rows
        .iter()
        .all(|r| r.max_rel_error == 0.0 && r.flagged_nodes == 0)
    {
        return Some(format!(
            "Every node of all {} runs was computed exactly: no bits lost.",
            rows.len()
        ));
    }
    let w = rows
        .iter()
        .filter(|r| r.max_rel_error.is_finite())
        .max_by(|a, b| a.max_rel_error.total_cmp(&b.max_rel_error))?;
    Some(format!(
        "The largest loss was {:.1} bits (relative error {}): {} {} on {} tree #{} (n = {}, κ = {}).",
        w.max_lost_bits,
        sci(w.max_rel_error),
        w.algorithm,
        w.op,
        w.tree_label(),
        w.tree,
        w.n,
        sci(w.achieved_cond)
    ))
}

/// A NaN or infinite result is an infinite loss, never "0 bits": said before any average.
fn nonfinite(rows: &[ResultRow]) -> Option<String> {
    let bad: Vec<&ResultRow> = rows
        .iter()
        .filter(|r| r.nonfinite_nodes.unwrap_or(0) > 0)
        .collect();
    (!bad.is_empty()).then(|| {
        format!(
            "{} node(s) in {} of {} runs returned NaN or ±∞ where the exact value is finite ({}): an infinite loss, left out of the plots and counted in the nonfinite_nodes column.",
            bad.iter().map(|r| r.nonfinite_nodes.unwrap_or(0)).sum::<usize>(),
            bad.len(),
            rows.len(),
            few(&who(&bad))
        )
    })
}

fn overflow(rows: &[ResultRow]) -> Option<String> {
    let overflow: usize = rows.iter().map(|r| r.overflow_nodes.unwrap_or(0)).sum();
    (overflow > 0).then(|| format!(
        "f32 overflowed at {overflow} node(s) over all runs (their exact value, or a partial sum of the algorithm's order, lies beyond f32's range): a property of the weights and the order, not a bug; the bounds, which assume no overflow, are not checked there."
    ))
}

/// GPU results must equal their CPU twins bit for bit: a mismatch is a bug, said early.
fn gpu_mismatches(rows: &[ResultRow]) -> Option<String> {
    let compared = rows.iter().filter(|r| r.gpu_mismatches.is_some()).count();
    let bad: Vec<&ResultRow> = rows
        .iter()
        .filter(|r| r.gpu_mismatches.unwrap_or(0) > 0)
        .collect();
    (!bad.is_empty()).then(|| {
        format!(
            "The GPU result differed from its CPU twin at {} nodes in {} of {compared} runs ({}) — a bug to investigate: they must agree bit for bit.",
            bad.iter().filter_map(|r| r.gpu_mismatches).sum::<usize>(),
            bad.len(),
            few(&who(&bad))
        )
    })
}

fn gpu_equal(rows: &[ResultRow]) -> Option<String> {
    let compared = rows.iter().filter(|r| r.gpu_mismatches.is_some()).count();
    let bad = rows.iter().any(|r| r.gpu_mismatches.unwrap_or(0) > 0);
    (compared > 0 && !bad).then(|| {
        format!(
            "Every GPU result equalled its CPU twin bit for bit, at every node of the {compared} runs that compared them."
        )
    })
}

/// Algorithms compared at high condition numbers, per op.
fn compared_at_high_cond(comparisons: &[Comparison]) -> Vec<String> {
    let mut out = Vec::new();
    for c in comparisons {
        let op = &c.op;
        let Some(t) = c.threshold else {
            continue;
        };
        let per_algo: Vec<(String, f64, usize)> = c
            .entries
            .iter()
            .filter_map(|e| e.mean_bits_high.map(|(b, k)| (e.algorithm.clone(), b, k)))
            .collect();
        let by_bits = |a: &&(String, f64, usize), b: &&(String, f64, usize)| a.1.total_cmp(&b.1);
        let (Some(best), Some(worst)) = (
            per_algo.iter().min_by(by_bits),
            per_algo.iter().max_by(by_bits),
        ) else {
            continue;
        };
        if per_algo.len() < 2 {
            continue;
        }
        let trees = per_algo.iter().map(|p| p.2).max().unwrap_or(0);
        out.push(if worst.1 - best.1 < 0.05 {
            format!(
                "For κ ≥ {}, every algorithm lost the same number of bits on {op} within 0.05 (mean of per-tree maxima, {trees} trees).",
                sci(t)
            )
        } else if per_algo.len() > 3 {
            format!(
                "For κ ≥ {}, {} {op} lost the fewest bits ({:.1} on average) and {} the most ({:.1}), {:.1} bits more (mean of per-tree maxima over {trees} trees; all {} algorithms in the table below).",
                sci(t),
                best.0,
                best.1,
                worst.0,
                worst.1,
                worst.1 - best.1,
                per_algo.len()
            )
        } else {
            let parts: Vec<String> = per_algo
                .iter()
                .filter(|(a, bits, _)| *a != best.0 && bits - best.1 >= 0.05)
                .map(|(a, bits, _)| {
                    format!("{a} {op} lost {:.1} bits more than {}", bits - best.1, best.0)
                })
                .collect();
            format!(
                "For κ ≥ {}, {} (mean of per-tree maxima over {trees} trees; {} {op} lost {:.1} bits on average).",
                sci(t),
                parts.join("; "),
                best.0,
                best.1
            )
        });
    }
    out
}

/// Growth of the loss with the condition number.
fn growth(comparisons: &[Comparison]) -> Vec<String> {
    let mut out = Vec::new();
    for c in comparisons {
        let op = &c.op;
        let growth: Vec<(f64, &str)> = c
            .entries
            .iter()
            .filter_map(|e| e.growth.map(|g| (g, e.algorithm.as_str())))
            .collect();
        if growth.is_empty() {
            continue;
        }
        if growth.len() > 3 {
            let lo = growth.iter().min_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
            let hi = growth.iter().max_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
            out.push(format!(
                "Per decade of κ the {op} loss grew by {:.1} ({}) to {:.1} ({}) bits; u·κ predicts log₂10 ≈ 3.3 (every algorithm in the table below).",
                lo.0, lo.1, hi.0, hi.1
            ));
        } else {
            let parts: Vec<String> = growth
                .iter()
                .map(|(g, a)| format!("{g:.1} ({a})"))
                .collect();
            out.push(format!(
                "Per decade of κ the {op} loss grew by {} bits; u·κ predicts log₂10 ≈ 3.3.",
                parts.join(", ")
            ));
        }
    }
    out
}

/// Errors beyond u·κ.
fn beyond_u_kappa(rows: &[ResultRow]) -> String {
    let beyond: Vec<&ResultRow> = rows
        .iter()
        .filter(|r| r.max_rel_error > U * r.achieved_cond)
        .collect();
    if beyond.is_empty() {
        format!(
            "In all {} runs the largest relative error stayed at or below u·κ (u = 2⁻²⁴, κ of the whole tree).",
            rows.len()
        )
    } else {
        format!(
            "In {} of {} runs the largest relative error exceeded u·κ (κ of the whole tree; nodes have their own κ): {}.",
            beyond.len(),
            rows.len(),
            few(&who(&beyond))
        )
    }
}

/// Violations, tightness and slack of the bounds.
fn bounds(rows: &[ResultRow]) -> Vec<String> {
    let viol: Vec<usize> = rows
        .iter()
        .filter_map(ResultRow::deterministic_violations)
        .collect();
    if viol.is_empty() {
        return vec![
            "Error bounds are not available in this run (results.csv has no bound columns).".into(),
        ];
    }
    let mut out = Vec::new();
    let total: usize = viol.iter().sum();
    out.push(if total == 0 {
        format!(
            "The deterministic bounds held at every node of all {} runs that report them (0 violations).",
            viol.len()
        )
    } else {
        format!(
            "A deterministic bound was violated at {total} nodes in {} runs — a bug to investigate.",
            viol.iter().filter(|v| **v > 0).count()
        )
    });
    if let Some(mt) = median(rows.iter().filter_map(|r| r.median_tightness).collect()) {
        let worst = rows
            .iter()
            .filter_map(|r| r.max_tightness)
            .fold(0.0, f64::max);
        out.push(format!(
            "The typical node's error was {} of its bound (median tightness; the bound is ≈ {}× pessimistic); the tightest node reached {} of it.",
            sci(mt),
            sci(if mt > 0.0 { 1.0 / mt } else { f64::INFINITY }),
            sci(worst)
        ));
    }
    let over: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.max_bound_lost_bits.map(|b| b - r.max_lost_bits))
        .collect();
    if let Some(m) = median(over.clone()) {
        let least = over.iter().copied().fold(f64::INFINITY, f64::min);
        out.push(format!(
            "Per tree, the a priori bound allowed a median of {m:.1} bits more than the worst node really lost ({least:.1} bits in the closest case)."
        ));
    }
    out
}

/// Topologies compared, per op.
fn topologies(data: &ReportData) -> Vec<String> {
    let topos = data.topologies();
    if topos.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for op in data.ops() {
        let mut m: Vec<(String, f64)> = topos
            .iter()
            .filter_map(|t| {
                let bits: Vec<f64> = data
                    .rows
                    .iter()
                    .filter(|r| r.tree_label() == *t && r.op == op)
                    .map(|r| r.max_lost_bits)
                    .collect();
                (!bits.is_empty()).then(|| (t.clone(), mean(&bits)))
            })
            .collect();
        m.sort_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(lo), Some(hi)) = (m.first(), m.last())
            && hi.1 - lo.1 >= 0.05
        {
            out.push(format!(
                "On {op}, {} trees lost the most ({:.1} bits on average over all algorithms) and {} trees the least ({:.1} bits).",
                hi.0, hi.1, lo.0, lo.1
            ));
        }
    }
    out
}

/// Nodes whose exact value is 0 but whose result is not.
fn flagged(rows: &[ResultRow]) -> Option<String> {
    let flagged: usize = rows.iter().map(|r| r.flagged_nodes).sum();
    (flagged > 0).then(|| {
        let largest = rows
            .iter()
            .filter_map(|r| r.max_flagged_abs_error)
            .reduce(f64::max)
            .map(|e| format!(" The largest absolute error among them was {}.", sci(e)))
            .unwrap_or_default();
        format!(
            "{flagged} nodes had an exact value of 0 but a non-zero computed result (flagged: no relative error exists; see flagged_nodes).{largest}"
        )
    })
}
