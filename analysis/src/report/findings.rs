//! Plain-language findings computed from the numbers of a report. A sentence names at most
//! three algorithms; comparisons across more go to the table of [`comparison`].

use super::answer::few;
use super::comparison::{self, mean, median};
use super::data::{ReportData, ResultRow};
use super::fmt::sci;
use crate::Algorithm;
use crate::algorithms::{Family, PaperRole};
use crate::bounds::U;
use std::collections::BTreeMap;

/// The findings, most important first, as plain sentences.
pub fn findings(data: &ReportData) -> Vec<String> {
    let rows = &data.rows;
    let mut out = Vec::new();
    if rows.is_empty() {
        out.push("results.csv holds no results yet: nothing to compare.".into());
        return out;
    }
    // 1. The worst case.
    if rows
        .iter()
        .all(|r| r.max_rel_error == 0.0 && r.flagged_nodes == 0)
    {
        out.push(format!(
            "Every node of all {} runs was computed exactly: no bits lost.",
            rows.len()
        ));
    } else if let Some(w) = rows
        .iter()
        .filter(|r| r.max_rel_error.is_finite())
        .max_by(|a, b| a.max_rel_error.total_cmp(&b.max_rel_error))
    {
        out.push(format!(
            "The largest loss was {:.1} bits (relative error {}): {} {} on {} tree #{} (n = {}, κ = {}).",
            w.max_lost_bits,
            sci(w.max_rel_error),
            w.algorithm,
            w.op,
            w.tree_label(),
            w.tree,
            w.n,
            sci(w.achieved_cond)
        ));
    }

    // A NaN or infinite result is an infinite loss, never "0 bits": said before any average.
    let nonfinite: Vec<&ResultRow> = rows
        .iter()
        .filter(|r| r.nonfinite_nodes.unwrap_or(0) > 0)
        .collect();
    if !nonfinite.is_empty() {
        let mut who: Vec<String> = Vec::new();
        for r in &nonfinite {
            let k = format!("{} {}", r.algorithm, r.op);
            if !who.contains(&k) {
                who.push(k);
            }
        }
        out.push(format!(
            "{} node(s) in {} of {} runs returned NaN or ±∞ where the exact value is finite ({}): an infinite loss, left out of the plots and counted in the nonfinite_nodes column.",
            nonfinite.iter().map(|r| r.nonfinite_nodes.unwrap_or(0)).sum::<usize>(),
            nonfinite.len(),
            rows.len(),
            few(&who)
        ));
    }
    let overflow: usize = rows.iter().map(|r| r.overflow_nodes.unwrap_or(0)).sum();
    if overflow > 0 {
        out.push(format!(
            "f32 overflowed at {overflow} node(s) over all runs (their exact value, or a partial sum of the algorithm's order, lies beyond f32's range): a property of the weights and the order, not a bug; the bounds, which assume no overflow, are not checked there."
        ));
    }

    // GPU results must equal their CPU twins bit for bit: a mismatch is a bug, said early.
    let gpu: Vec<(&ResultRow, usize)> = rows
        .iter()
        .filter_map(|r| r.gpu_mismatches.map(|m| (r, m)))
        .collect();
    let mismatched: Vec<&(&ResultRow, usize)> = gpu.iter().filter(|(_, m)| *m > 0).collect();
    if !mismatched.is_empty() {
        let mut who: Vec<String> = Vec::new();
        for (r, _) in &mismatched {
            let k = format!("{} {}", r.algorithm, r.op);
            if !who.contains(&k) {
                who.push(k);
            }
        }
        out.push(format!(
            "The GPU result differed from its CPU twin at {} nodes in {} of {} runs ({}) — a bug to investigate: they must agree bit for bit.",
            mismatched.iter().map(|(_, m)| m).sum::<usize>(),
            mismatched.len(),
            gpu.len(),
            few(&who)
        ));
    }

    // 2. Algorithms compared at high condition numbers, per op.
    let comparisons = comparison::comparisons(data);
    for c in &comparisons {
        let op = &c.op;
        let Some(t) = c.threshold else {
            continue;
        };
        let per_algo: Vec<(String, f64, usize)> = c
            .entries
            .iter()
            .filter_map(|e| e.mean_bits_high.map(|(b, k)| (e.algorithm.clone(), b, k)))
            .collect();
        if per_algo.len() < 2 {
            continue;
        }
        let best = per_algo
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .cloned()
            .unwrap();
        let worst = per_algo
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .cloned()
            .unwrap();
        let trees = per_algo.iter().map(|p| p.2).max().unwrap_or(0);
        if worst.1 - best.1 < 0.05 {
            out.push(format!(
                "For κ ≥ {}, every algorithm lost the same number of bits on {op} within 0.05 (mean of per-tree maxima, {trees} trees).",
                sci(t)
            ));
        } else if per_algo.len() > 3 {
            out.push(format!(
                "For κ ≥ {}, {} {op} lost the fewest bits ({:.1} on average) and {} the most ({:.1}), {:.1} bits more (mean of per-tree maxima over {trees} trees; all {} algorithms in the table below).",
                sci(t),
                best.0,
                best.1,
                worst.0,
                worst.1,
                worst.1 - best.1,
                per_algo.len()
            ));
        } else {
            let parts: Vec<String> = per_algo
                .iter()
                .filter(|(a, bits, _)| *a != best.0 && bits - best.1 >= 0.05)
                .map(|(a, bits, _)| {
                    format!(
                        "{a} {op} lost {:.1} bits more than {}",
                        bits - best.1,
                        best.0
                    )
                })
                .collect();
            out.push(format!(
                "For κ ≥ {}, {} (mean of per-tree maxima over {trees} trees; {} {op} lost {:.1} bits on average).",
                sci(t),
                parts.join("; "),
                best.0,
                best.1
            ));
        }
    }

    // 3. sequential = parallel, bit for bit (docs/design.md §5), when both were run.
    for op in data.ops() {
        let by_tree = |algo: &str| -> BTreeMap<usize, f64> {
            rows.iter()
                .filter(|r| r.op == op && r.algorithm == algo)
                .map(|r| (r.tree, r.max_rel_error))
                .collect()
        };
        let (s, p) = (by_tree(baseline().name()), by_tree(algorithm1().name()));
        if !s.is_empty() && s.len() == p.len() {
            let same = s.iter().filter(|(t, e)| p.get(t) == Some(e)).count();
            if same == s.len() {
                out.push(format!(
                    "parallel and sequential {op} had identical errors on all {} trees, as they perform the same additions.",
                    s.len()
                ));
            } else {
                out.push(format!(
                    "parallel and sequential {op} differed on {} of {} trees although they should perform the same additions.",
                    s.len() - same,
                    s.len()
                ));
            }
        }
    }

    // 4. Growth of the loss with the condition number.
    for c in &comparisons {
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

    // 5. Errors beyond u·κ.
    let beyond: Vec<&ResultRow> = rows
        .iter()
        .filter(|r| r.max_rel_error > U * r.achieved_cond)
        .collect();
    let mut who: Vec<String> = Vec::new();
    for r in &beyond {
        let k = format!("{} {}", r.algorithm, r.op);
        if !who.contains(&k) {
            who.push(k);
        }
    }
    out.push(if beyond.is_empty() {
        format!(
            "In all {} runs the largest relative error stayed at or below u·κ (u = 2⁻²⁴, κ of the whole tree).",
            rows.len()
        )
    } else {
        format!(
            "In {} of {} runs the largest relative error exceeded u·κ (κ of the whole tree; nodes have their own κ): {}.",
            beyond.len(),
            rows.len(),
            few(&who)
        )
    });

    // 6. Bounds.
    let viol: Vec<usize> = rows
        .iter()
        .filter_map(ResultRow::deterministic_violations)
        .collect();
    if viol.is_empty() {
        out.push(
            "Error bounds are not available in this run (results.csv has no bound columns).".into(),
        );
    } else {
        let total: usize = viol.iter().sum();
        if total == 0 {
            out.push(format!(
                "The deterministic bounds held at every node of all {} runs that report them (0 violations).",
                viol.len()
            ));
        } else {
            out.push(format!(
                "A deterministic bound was violated at {total} nodes in {} runs — a bug to investigate.",
                viol.iter().filter(|v| **v > 0).count()
            ));
        }
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
    }

    if !gpu.is_empty() && mismatched.is_empty() {
        out.push(format!(
            "Every GPU result equalled its CPU twin bit for bit, at every node of the {} runs that compared them.",
            gpu.len()
        ));
    }

    // 7. Topologies compared.
    let topos = data.topologies();
    if topos.len() > 1 {
        for op in data.ops() {
            let mut m: Vec<(String, f64)> = topos
                .iter()
                .filter_map(|t| {
                    let bits: Vec<f64> = rows
                        .iter()
                        .filter(|r| r.tree_label() == *t && r.op == op)
                        .map(|r| r.max_lost_bits)
                        .collect();
                    (!bits.is_empty()).then(|| (t.clone(), mean(&bits)))
                })
                .collect();
            m.sort_by(|a, b| a.1.total_cmp(&b.1));
            if let (Some(lo), Some(hi)) = (m.first(), m.last()) {
                if hi.1 - lo.1 >= 0.05 {
                    out.push(format!(
                        "On {op}, {} trees lost the most ({:.1} bits on average over all algorithms) and {} trees the least ({:.1} bits).",
                        hi.0, hi.1, lo.0, lo.1
                    ));
                }
            }
        }
    }

    // 8. The vectorial family: where its leaffix loss comes from.
    out.extend(vectorial_family(rows));

    // Tree contraction against the sequential order it competes with.
    out.extend(contraction(rows));

    // 9. Child orders compared on the same trees.
    out.extend(child_orders(rows));

    // 10. Flagged nodes.
    let flagged: usize = rows.iter().map(|r| r.flagged_nodes).sum();
    if flagged > 0 {
        let largest = rows
            .iter()
            .filter_map(|r| r.max_flagged_abs_error)
            .reduce(f64::max)
            .map(|e| format!(" The largest absolute error among them was {}.", sci(e)))
            .unwrap_or_default();
        out.push(format!(
            "{flagged} nodes had an exact value of 0 but a non-zero computed result (flagged: no relative error exists; see flagged_nodes).{largest}"
        ));
    }
    out
}

/// The seed paper's sequential baseline, its Algorithm 1 (parallel) and its Algorithm 2
/// (vectorial), from the registry.
fn baseline() -> Algorithm {
    Algorithm::with_role(PaperRole::Baseline)
}
fn algorithm1() -> Algorithm {
    Algorithm::with_role(PaperRole::Algorithm1)
}
fn algorithm2() -> Algorithm {
    Algorithm::with_role(PaperRole::Algorithm2)
}

/// Mean over trees of the per-tree max lost bits of `algo` on `op`, over rows passing `keep`.
fn mean_bits(
    rows: &[ResultRow],
    algo: &str,
    op: &str,
    keep: impl Fn(&ResultRow) -> bool,
) -> Option<(f64, usize)> {
    let bits: Vec<f64> = rows
        .iter()
        .filter(|r| r.algorithm == algo && r.op == op && keep(r))
        .map(|r| r.max_lost_bits)
        .filter(|b| b.is_finite())
        .collect();
    (!bits.is_empty()).then(|| (mean(&bits), bits.len()))
}

/// The other vectorial algorithms against the paper's Algorithm 2, in words: the leaffix loss is not the
/// difference S[close v] − S[open v − 1] itself but how its two prefixes were rounded.
fn vectorial_family(rows: &[ResultRow]) -> Vec<String> {
    let mut out = Vec::new();
    for op in ["rootfix", "leaffix"] {
        let Some((vec, trees)) = mean_bits(rows, algorithm2().name(), op, |_| true) else {
            continue;
        };
        let par = mean_bits(rows, algorithm1().name(), op, |_| true).map(|p| p.0);
        let mut parts = Vec::new();
        for (algo, what) in [
            (
                "vectorial-seqscan",
                "the sequential scan: every prefix computed from the one before",
            ),
            (
                "vectorial-chained",
                "the scan plan with chained tile prefixes",
            ),
            (
                "vectorial-compensated",
                "the scan plan in float-float, rounded once at the end",
            ),
        ] {
            if let Some((b, _)) = mean_bits(rows, algo, op, |_| true) {
                parts.push((b, format!("{algo} {b:.1} ({what})")));
            }
        }
        if parts.is_empty() {
            continue;
        }
        // Vectorial, parallel and one variant at most: the closest to parallel (fewest bits).
        if parts.len() > 1 {
            let k = parts.len();
            parts.sort_by(|a, b| a.0.total_cmp(&b.0));
            parts.truncate(1);
            parts[0].1 = format!("{}; the best of {k} variants of the scan", parts[0].1);
        }
        let parts: Vec<String> = parts.into_iter().map(|p| p.1).collect();
        let par = par.map_or(String::new(), |p| format!(", parallel {p:.1}"));
        let why = if op == "leaffix" {
            " The difference S[close v] − S[open v − 1] costs bits only where its two prefixes were rounded along different paths: every rounding they share cancels. The scan plan's tiles (Kogge–Stone thread prefixes, uniform adds) give every few positions such a break, so a node with a small subtree sum next to a break loses log₂(|S|/|l|) bits; chaining the tile prefixes removes only the breaks between tiles."
        } else {
            ""
        };
        out.push(format!(
            "Vectorial {op}, mean of per-tree maxima over {trees} trees: vectorial {vec:.1} bits{par}; {}.{why}",
            parts.join("; ")
        ));
    }
    out
}

/// Tree contraction (rake and compress: the registry's [`Family::Contraction`]) against the
/// sequential order: sums of depth O(log n) against the path's or subtree's length.
fn contraction(rows: &[ResultRow]) -> Vec<String> {
    let mut out = Vec::new();
    for op in ["rootfix", "leaffix"] {
        for algo in Algorithm::ALL
            .into_iter()
            .filter(|a| a.family() == Family::Contraction)
        {
            let (Some((c, trees)), Some((q, _))) = (
                mean_bits(rows, algo.name(), op, |_| true),
                mean_bits(rows, baseline().name(), op, |_| true)
                    .or_else(|| mean_bits(rows, algorithm1().name(), op, |_| true)),
            ) else {
                continue;
            };
            let how = if c <= q - 0.05 {
                format!("{:.1} bits fewer than", q - c)
            } else if c >= q + 0.05 {
                format!("{:.1} bits more than", c - q)
            } else {
                "as many bits as".into()
            };
            out.push(format!(
                "{algo} {op} (rake and compress: every sum of depth O(log n)) lost {how} sequential's order on average ({c:.1} against {q:.1} bits, mean of per-tree maxima over {trees} trees)."
            ));
        }
    }
    out
}

/// Light-first (and heavy-first) against natural child order, per topology and op, for the
/// vectorial algorithms: the Euler tour changes, the exact values do not.
fn child_orders(rows: &[ResultRow]) -> Vec<String> {
    let mut orders: Vec<&str> = Vec::new();
    for r in rows {
        if !orders.contains(&r.child_order.as_str()) {
            orders.push(&r.child_order);
        }
    }
    if orders.len() < 2 || !orders.contains(&"natural") {
        return Vec::new();
    }
    let mut bases: Vec<&str> = Vec::new();
    for r in rows {
        let b = r.source.as_deref().unwrap_or(&r.topology);
        if !bases.contains(&b) {
            bases.push(b);
        }
    }
    let mut out = Vec::new();
    for order in orders.iter().filter(|o| **o != "natural") {
        for op in ["rootfix", "leaffix"] {
            let (mut helped, mut same, mut hurt) = (Vec::new(), Vec::new(), Vec::new());
            for base in &bases {
                let of = |o: &str| {
                    mean_bits(rows, algorithm2().name(), op, |r| {
                        r.source.as_deref().unwrap_or(&r.topology) == *base && r.child_order == o
                    })
                };
                let (Some((n, _)), Some((x, _))) = (of("natural"), of(order)) else {
                    continue;
                };
                let cell = format!("{base} {n:.1} → {x:.1}");
                if x <= n - 1.0 {
                    helped.push(cell);
                } else if x >= n + 1.0 {
                    hurt.push(cell);
                } else {
                    same.push(base.to_string());
                }
            }
            if helped.is_empty() && hurt.is_empty() && same.is_empty() {
                continue;
            }
            let mut parts = Vec::new();
            if !helped.is_empty() {
                parts.push(format!("helped on {}", helped.join(", ")));
            }
            if !hurt.is_empty() {
                parts.push(format!("hurt on {}", hurt.join(", ")));
            }
            if !same.is_empty() {
                parts.push(format!("changed less than 1 bit on {}", same.join(", ")));
            }
            let why = match (*order, op) {
                ("light-first", "rootfix") => {
                    " Rootfix reads S[open v], which carries the ±w pairs of every subtree closed before v; light-first closes the small subtrees first and descends the heavy child last, so fewer and shorter cancelling runs precede each opening. Where all children have the same size (a star's leaves) the order cannot matter."
                }
                (_, "leaffix") => {
                    " Leaffix reads S[close v] − S[open v − 1], which spans v's own subtree whatever the order of its children: the order moves the breaks of the scan plan, not the magnitudes."
                }
                _ => "",
            };
            out.push(format!(
                "{order} child order against natural, vectorial {op} (mean of per-tree max lost bits): {}.{why}",
                parts.join("; ")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::data::ReportData;

    /// The registry's names of the paper's three algorithms and of the contraction.
    fn seq() -> &'static str {
        baseline().name()
    }
    fn par() -> &'static str {
        algorithm1().name()
    }
    fn vct() -> &'static str {
        algorithm2().name()
    }
    fn con() -> &'static str {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.family() == Family::Contraction)
            .unwrap()
            .name()
    }

    fn row(tree: usize, algo: &str, op: &str, cond: f64, bits: f64) -> ResultRow {
        ResultRow::for_test(tree, "chain", cond, (algo, op), bits)
    }

    fn data(rows: Vec<ResultRow>) -> ReportData {
        ReportData {
            dir: "d".into(),
            rows,
            header: vec![],
            raw: vec![],
            bound_columns: vec![],
            nodes: None,
            summary: None,
            params: None,
            bounds_table: None,
            bench: None,
        }
    }

    #[test]
    fn compares_algorithms_at_high_condition_numbers() {
        let mut rows = Vec::new();
        for (t, cond) in [1e2f64, 1e6, 1e7, 1e8].into_iter().enumerate() {
            let base = cond.log2();
            rows.push(row(t, par(), "leaffix", cond, base));
            rows.push(row(t, vct(), "leaffix", cond, base + 2.125));
        }
        let f = findings(&data(rows));
        assert!(
            f.iter().any(|s| s
                .starts_with("For κ ≥ 1e6, vectorial leaffix lost 2.1 bits more than parallel")),
            "{f:#?}"
        );
        assert!(
            f[0].starts_with("The largest loss was 28.7 bits"),
            "{}",
            f[0]
        );
        assert!(
            f.iter()
                .any(|s| s.contains("leaffix loss grew by 3.3 (parallel), 3.3 (vectorial)")),
            "{f:#?}"
        );
    }

    #[test]
    fn exact_runs_and_bounds() {
        let mut r = row(0, seq(), "rootfix", 10.0, 0.0);
        r.max_rel_error = 0.0;
        r.bound_violations = Some(0);
        r.median_tightness = Some(0.01);
        r.max_tightness = Some(0.5);
        let f = findings(&data(vec![r]));
        assert!(f[0].contains("computed exactly"), "{f:#?}");
        assert!(f.iter().any(|s| s.contains("0 violations")), "{f:#?}");
        assert!(f.iter().any(|s| s.contains("≈ 1e2× pessimistic")), "{f:#?}");
    }

    #[test]
    fn gpu_mismatches_in_words() {
        let mut a = row(0, par(), "rootfix", 10.0, 1.0);
        a.gpu_mismatches = Some(0);
        let mut b = row(0, vct(), "rootfix", 10.0, 1.0);
        b.gpu_mismatches = Some(0);
        let cpu_only = row(0, seq(), "rootfix", 10.0, 1.0);
        let f = findings(&data(vec![a.clone(), b.clone(), cpu_only.clone()]));
        assert!(
            f.iter().any(|s| s
                == "Every GPU result equalled its CPU twin bit for bit, at every node of the 2 runs that compared them."),
            "{f:#?}"
        );
        b.gpu_mismatches = Some(4);
        let f = findings(&data(vec![a, b, cpu_only.clone()]));
        assert!(
            f[1].starts_with(
                "The GPU result differed from its CPU twin at 4 nodes in 1 of 2 runs (vectorial rootfix)"
            ),
            "{f:#?}"
        );
        assert!(!f.iter().any(|s| s.starts_with("Every GPU result")));
        // No GPU columns: no GPU sentence at all.
        let f = findings(&data(vec![cpu_only]));
        assert!(!f.iter().any(|s| s.contains("GPU")), "{f:#?}");
    }

    #[test]
    fn child_orders_in_words() {
        let mut rows = Vec::new();
        for (order, chain_bits, star_bits) in [("natural", 20.0, 30.0), ("light-first", 12.0, 30.4)]
        {
            for (topology, bits) in [("chain", chain_bits), ("star", star_bits)] {
                let mut r = row(0, vct(), "rootfix", 1e4, bits);
                r.topology = topology.into();
                r.child_order = order.into();
                rows.push(r);
            }
        }
        let f = findings(&data(rows.clone()));
        assert!(
            f.iter().any(|s| s.starts_with(
                "light-first child order against natural, vectorial rootfix (mean of per-tree max lost bits): helped on chain 20.0 → 12.0; changed less than 1 bit on star."
            )),
            "{f:#?}"
        );
        // One order only: nothing to compare.
        rows.retain(|r| r.child_order == "natural");
        let f = findings(&data(rows));
        assert!(!f.iter().any(|s| s.contains("child order")), "{f:#?}");
    }

    #[test]
    fn contraction_in_words() {
        let rows = vec![
            row(0, seq(), "rootfix", 1e4, 20.0),
            row(0, con(), "rootfix", 1e4, 17.5),
        ];
        let f = findings(&data(rows));
        assert!(
            f.iter().any(|s| s.starts_with(
                "contraction rootfix (rake and compress: every sum of depth O(log n)) lost 2.5 bits fewer than sequential's order on average (17.5 against 20.0 bits"
            )),
            "{f:#?}"
        );
    }

    #[test]
    fn vectorial_family_in_words() {
        let rows = vec![
            row(0, par(), "leaffix", 1e4, 20.0),
            row(0, vct(), "leaffix", 1e4, 50.0),
            row(0, "vectorial-seqscan", "leaffix", 1e4, 24.0),
        ];
        let f = findings(&data(rows));
        assert!(
            f.iter().any(|s| s.starts_with(
                "Vectorial leaffix, mean of per-tree maxima over 1 trees: vectorial 50.0 bits, parallel 20.0; vectorial-seqscan 24.0"
            ) && s.contains("rounded along different paths")),
            "{f:#?}"
        );
    }
}
