//! The table a sweep prints: per topology and target, the median achieved condition number and
//! the largest loss (bits) of every op × algorithm over its trees. Columns carry the
//! registry's three-letter names under a line naming the op, and a legend line under the table
//! spells them out; when every op side by side would pass [`WIDTH`] columns, each op gets a
//! table of its own.

use super::params::SweepParams;
use crate::format::sci;
use analysis::records::results::ResultRow;
use analysis::{Algorithm, Op};
use std::fmt::Write;

/// The widest table printed side by side (a terminal of 100 columns).
pub const WIDTH: usize = 100;
/// One loss column: a space and `57.64`, `100.00` or `inf`.
const CELL: usize = 7;

/// The tables, then the legend of their column names.
pub fn table(params: &SweepParams, rows: &[ResultRow]) -> String {
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
        .max(8);
    let mut s = format!(
        "max lost bits over {} trees per target\n",
        params.trees_per_target
    );
    let row_head = w + 1 + 6 + 1 + 8;
    let all = row_head + params.ops.len() * params.algos.len() * CELL;
    let groups: Vec<Vec<Op>> = if all <= WIDTH {
        vec![params.ops.clone()]
    } else {
        params.ops.iter().map(|&op| vec![op]).collect()
    };
    for ops in groups {
        let cols: Vec<(Op, Algorithm)> = ops
            .iter()
            .flat_map(|&op| params.algos.iter().map(move |&a| (op, a)))
            .collect();
        let mut over = format!("{:row_head$}", "");
        for op in &ops {
            let span = params.algos.len() * CELL;
            let _ = write!(over, "{:>span$}", centred(op.name(), span - 1));
        }
        let _ = writeln!(s, "{}", over.trim_end());
        let mut header = format!("{:<w$} {:>6} {:>8}", "topology", "target", "κ median");
        for (_, a) in &cols {
            let _ = write!(header, " {:>6}", a.short());
        }
        let _ = writeln!(s, "{header}");
        for name in &names {
            let mut targets: Vec<f64> = Vec::new();
            for r in rows.iter().filter(|r| r.tree_label() == *name) {
                if !targets.contains(&r.target_cond) {
                    targets.push(r.target_cond);
                }
            }
            for target in targets {
                let here: Vec<&ResultRow> = rows
                    .iter()
                    .filter(|r| r.tree_label() == *name && r.target_cond == target)
                    .collect();
                if !here.is_empty() {
                    let _ = writeln!(s, "{}", line(name, w, target, &here, &cols));
                }
            }
        }
    }
    let mut legend: Vec<String> = params
        .algos
        .iter()
        .map(|a| format!("{} = {}", a.short(), a.name()))
        .collect();
    legend.push("each cell: the most bits any node of the op lost over the target's trees".into());
    s.push_str(&wrapped(&legend));
    s
}

/// `parts` joined by ", " into lines of at most [`WIDTH`] columns.
fn wrapped(parts: &[String]) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for (i, p) in parts.iter().enumerate() {
        let piece = if i + 1 < parts.len() {
            format!("{p},")
        } else {
            p.clone()
        };
        if !line.is_empty() && line.chars().count() + 1 + piece.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&piece);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// `text` centred in `width` columns (left-biased), at least one dash either side.
fn centred(text: &str, width: usize) -> String {
    let len = text.chars().count() + 2;
    if len >= width {
        return text.to_string();
    }
    let left = (width - len) / 2;
    let right = width - len - left;
    format!("{} {text} {}", "─".repeat(left), "─".repeat(right))
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
    let mut line = format!("{:<w$} {:>6} {:>8}", name, target, sci(median));
    for (op, a) in cols {
        let bits = here
            .iter()
            .filter(|r| r.op == op.name() && r.algorithm == a.name())
            .map(|r| r.max_lost_bits)
            .fold(0f64, f64::max);
        let _ = write!(line, " {bits:>6.2}");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_wraps_at_the_width() {
        let parts: Vec<String> = analysis::Algorithm::ALL
            .iter()
            .map(|a| format!("{} = {}", a.short(), a.name()))
            .collect();
        let text = wrapped(&parts);
        assert!(text.lines().count() > 1, "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        assert_eq!(text.replace('\n', " ").trim_end(), parts.join(", "));
    }

    #[test]
    fn centred_labels_span_their_columns() {
        assert_eq!(centred("rootfix", 13), "── rootfix ──");
        assert_eq!(centred("rootfix", 6), "rootfix");
        assert_eq!(centred("leaffix", 27).chars().count(), 27);
    }
}
