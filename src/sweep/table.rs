//! The table a sweep prints: per topology and target, the median achieved condition number and
//! the largest loss (bits) of every op × algorithm over its trees.

use super::params::SweepParams;
use crate::format::sci;
use analysis::records::results::ResultRow;
use analysis::{Algorithm, Op};
use std::fmt::Write;

/// A compact terminal table: per topology and target, the median achieved condition number and
/// the largest loss (bits) of every op × algorithm over its trees.
pub fn table(params: &SweepParams, rows: &[ResultRow]) -> String {
    let mut s = String::new();
    let cols: Vec<(Op, Algorithm)> = params
        .ops
        .iter()
        .flat_map(|&op| params.algos.iter().map(move |&a| (op, a)))
        .collect();
    let _ = writeln!(
        s,
        "max lost bits over {} trees per target (columns: op/algorithm)",
        params.trees_per_target
    );
    let mut names: Vec<String> = Vec::new();
    for r in rows {
        if !names.iter().any(|n| *n == r.tree_label()) {
            names.push(r.tree_label().into_owned());
        }
    }
    let w = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(18);
    let mut header = format!("{:<w$} {:>9} {:>9}", "topology", "target", "κ median");
    for (op, a) in &cols {
        let _ = write!(
            header,
            " {:>9}",
            format!("{}/{}", &op.name()[..4], a.short())
        );
    }
    let _ = writeln!(s, "{header}");
    for topo_name in names {
        let mut targets: Vec<f64> = Vec::new();
        for r in rows.iter().filter(|r| r.tree_label() == topo_name) {
            if !targets.contains(&r.target_cond) {
                targets.push(r.target_cond);
            }
        }
        for target in targets {
            let here: Vec<&ResultRow> = rows
                .iter()
                .filter(|r| r.tree_label() == topo_name && r.target_cond == target)
                .collect();
            if !here.is_empty() {
                let _ = writeln!(s, "{}", line(&topo_name, w, target, &here, &cols));
            }
        }
    }
    s
}

/// One row of the table: a topology (or file) and target over its trees.
fn line(
    name: &str,
    w: usize,
    target: f64,
    here: &[&ResultRow],
    cols: &[(Op, Algorithm)],
) -> String {
    let mut conds: Vec<f64> = here.iter().map(|r| r.achieved_cond).collect();
    let median = analysis::stats::median(&mut conds).unwrap_or(f64::NAN);
    // Target 0: the input's own weights, no target.
    let target = if target > 0.0 {
        sci(target)
    } else {
        "own".into()
    };
    let mut line = format!("{:<w$} {:>9} {:>9}", name, target, sci(median));
    for (op, a) in cols {
        let bits = here
            .iter()
            .filter(|r| r.op == op.name() && r.algorithm == a.name())
            .map(|r| r.max_lost_bits)
            .fold(0f64, f64::max);
        let _ = write!(line, " {bits:>9.2}");
    }
    line
}
