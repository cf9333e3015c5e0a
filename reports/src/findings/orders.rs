//! Findings about summation orders: the paper's algorithms that perform the same additions,
//! the variants of the Euler-tour scan against the paper's Algorithm 2, tree contraction
//! against the sequential order, and child orders. Names and descriptions come from the
//! registry's descriptors.

use crate::comparison::mean;
use crate::data::{ReportData, ResultRow};
use analysis::Algorithm;
use analysis::algorithms::{Family, PaperRole};
use std::collections::BTreeMap;

/// The seed paper's sequential baseline, its Algorithm 1 and its Algorithm 2.
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
    algo: Algorithm,
    op: &str,
    keep: impl Fn(&ResultRow) -> bool,
) -> Option<(f64, usize)> {
    let bits: Vec<f64> = rows
        .iter()
        .filter(|r| r.algorithm == algo.name() && r.op == op && keep(r))
        .map(|r| r.max_lost_bits)
        .filter(|b| b.is_finite())
        .collect();
    (!bits.is_empty()).then(|| (mean(&bits), bits.len()))
}

/// The baseline and Algorithm 1 perform the same additions (docs/design.md §5): their errors
/// must be identical, tree by tree, when both ran.
pub(super) fn same_additions(data: &ReportData) -> Vec<String> {
    let (b, p) = (baseline().name(), algorithm1().name());
    let mut out = Vec::new();
    for op in data.ops() {
        let by_tree = |algo: &str| -> BTreeMap<usize, f64> {
            data.rows
                .iter()
                .filter(|r| r.op == op && r.algorithm == algo)
                .map(|r| (r.tree, r.max_rel_error))
                .collect()
        };
        let (s, q) = (by_tree(b), by_tree(p));
        if s.is_empty() || s.len() != q.len() {
            continue;
        }
        let same = s.iter().filter(|(t, e)| q.get(t) == Some(e)).count();
        out.push(if same == s.len() {
            format!(
                "{p} and {b} {op} had identical errors on all {} trees, as they perform the same additions.",
                s.len()
            )
        } else {
            format!(
                "{p} and {b} {op} differed on {} of {} trees although they should perform the same additions.",
                s.len() - same,
                s.len()
            )
        });
    }
    out
}

/// The other Euler-tour scans that round (the registry's family, less the paper's Algorithm 2
/// and the correctly rounded ones, which the answer covers) against Algorithm 2, in words: the
/// leaffix loss is not the difference S[close v] − S[open v − 1] itself but how its two
/// prefixes were rounded.
pub(super) fn scan_variants(data: &ReportData) -> Vec<String> {
    let rows = &data.rows;
    let (vector, parallel) = (algorithm2(), algorithm1());
    let variants: Vec<Algorithm> = Algorithm::ALL
        .into_iter()
        .filter(|a| a.is_vectorial() && *a != vector && !a.correctly_rounded())
        .collect();
    let mut out = Vec::new();
    for op in data.ops() {
        let Some((vec, trees)) = mean_bits(rows, vector, &op, |_| true) else {
            continue;
        };
        let mut parts: Vec<(f64, Algorithm)> = variants
            .iter()
            .filter_map(|&a| mean_bits(rows, a, &op, |_| true).map(|(b, _)| (b, a)))
            .collect();
        // Algorithm 2, Algorithm 1 and one variant at most: the closest to Algorithm 1.
        parts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let Some(&(bits, best)) = parts.first() else {
            continue;
        };
        let mut part = format!("{best} {bits:.1} ({})", best.summary_text());
        if parts.len() > 1 {
            part = format!("{part}; the best of {} variants of the scan", parts.len());
        }
        let par = mean_bits(rows, parallel, &op, |_| true)
            .map_or(String::new(), |(p, _)| format!(", {parallel} {p:.1}"));
        let why = if op == "leaffix" {
            " The difference S[close v] − S[open v − 1] costs bits only where its two prefixes were rounded along different paths: every rounding they share cancels. The scan plan's tiles (Kogge–Stone thread prefixes, uniform adds) give every few positions such a break, so a node with a small subtree sum next to a break loses log₂(|S|/|l|) bits; chaining the tile prefixes removes only the breaks between tiles."
        } else {
            ""
        };
        out.push(format!(
            "Vectorial {op}, mean of per-tree maxima over {trees} trees: {vector} {vec:.1} bits{par}; {part}.{why}"
        ));
    }
    out
}

/// Tree contraction (the registry's [`Family::Contraction`]) against the sequential order:
/// sums of depth O(log n) against the path's or subtree's length.
pub(super) fn contraction(data: &ReportData) -> Vec<String> {
    let rows = &data.rows;
    let mut out = Vec::new();
    for op in data.ops() {
        let reference = [baseline(), algorithm1()]
            .into_iter()
            .find_map(|a| mean_bits(rows, a, &op, |_| true));
        for algo in Algorithm::ALL
            .into_iter()
            .filter(|a| a.family() == Family::Contraction)
        {
            let (Some((c, trees)), Some((q, _))) =
                (mean_bits(rows, algo, &op, |_| true), reference)
            else {
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
                "{algo} {op} ({}) lost {how} {}'s order on average ({c:.1} against {q:.1} bits, mean of per-tree maxima over {trees} trees).",
                algo.summary_text(),
                baseline()
            ));
        }
    }
    out
}

/// Light-first (and heavy-first) against natural child order, per topology and op, for the
/// paper's Algorithm 2: the Euler tour changes, the exact values do not.
pub(super) fn child_orders(data: &ReportData) -> Vec<String> {
    let rows = &data.rows;
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
        for op in data.ops() {
            if let Some(s) = child_order(rows, &bases, order, &op) {
                out.push(s);
            }
        }
    }
    out
}

/// One child order against natural on one op, over the topologies (or files) `bases`.
fn child_order(rows: &[ResultRow], bases: &[&str], order: &str, op: &str) -> Option<String> {
    let vector = algorithm2();
    let (mut helped, mut same, mut hurt) = (Vec::new(), Vec::new(), Vec::new());
    for base in bases {
        let of = |o: &str| {
            mean_bits(rows, vector, op, |r| {
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
        return None;
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
    let why = match (order, op) {
        ("light-first", "rootfix") => {
            " Rootfix reads S[open v], which carries the ±w pairs of every subtree closed before v; light-first closes the small subtrees first and descends the heavy child last, so fewer and shorter cancelling runs precede each opening. Where all children have the same size (a star's leaves) the order cannot matter."
        }
        (_, "leaffix") => {
            " Leaffix reads S[close v] − S[open v − 1], which spans v's own subtree whatever the order of its children: the order moves the breaks of the scan plan, not the magnitudes."
        }
        _ => "",
    };
    Some(format!(
        "{order} child order against natural, {vector} {op} (mean of per-tree max lost bits): {}.{why}",
        parts.join("; ")
    ))
}
