//! The kernels' tables: the seed paper's two compared (Algorithm 1 `parallel` against
//! Algorithm 2 `vectorial`: regularity against load balancing), the other kernels against
//! vectorial, and (on the page) every kernel side by side.

use super::{Cell, Column, Table, find, per_vertex, size};
use crate::bench::BenchData;
use crate::bench::{series, small_multiples};
use crate::fmt::sig3;
use analysis::Algorithm;
use analysis::algorithms::PaperRole;
use analysis::records::bench::BenchRecord;

/// The seed paper's Algorithm 1 and Algorithm 2, by name.
fn paper_pair() -> (String, String) {
    (
        Algorithm::with_role(PaperRole::Algorithm1).to_string(),
        Algorithm::with_role(PaperRole::Algorithm2).to_string(),
    )
}

/// Parallel against vectorial per tree and op: ns per vertex (medians), compute only and with
/// weights up and results down, and their ratio.
pub fn paper_kernels(caption: &str, records: &[BenchRecord]) -> Table {
    let (par, vec) = paper_pair();
    let mut columns = vec![
        Column::text("topology"),
        Column::number("n"),
        Column::number("height"),
        Column::text("op"),
    ];
    for what in ["compute", "+ transfers"] {
        columns.push(Column::number(format!("{par} {what}")));
        columns.push(Column::number(format!("{vec} {what}")));
        columns.push(Column::number("par/vec"));
    }
    let rows = records
        .iter()
        .filter(|r| r.algorithm == par)
        .filter_map(|p| {
            let v = find(records, &p.topology, p.n, &p.op, &vec)?;
            let mut cells: Vec<Cell> = vec![
                p.topology.as_str().into(),
                size(p.n).into(),
                p.height.to_string().into(),
                p.op.as_str().into(),
            ];
            let (pc, vc) = (p.compute_s, v.compute_s);
            for (ps, vs) in [(pc, vc), (pc + p.transfer_s, vc + v.transfer_s)] {
                cells.push(per_vertex(ps, p.n).into());
                cells.push(per_vertex(vs, p.n).into());
                cells.push(sig3(ps / vs).into());
            }
            Some(cells)
        })
        .collect();
    Table {
        caption: caption.to_string(),
        columns,
        rows,
    }
}

/// The other GPU kernels (chained, compensated, contraction, exact) against vectorial on the
/// same trees: compute ns per vertex and the ratio to vectorial, measured in the same run.
/// `None` when none of them ran.
pub fn other_kernels(records: &[BenchRecord]) -> Option<Table> {
    let (par, vec) = paper_pair();
    let others: Vec<String> = Algorithm::ALL
        .iter()
        .filter(|a| a.has_gpu_kernel())
        .map(|a| a.to_string())
        .filter(|a| *a != vec && *a != par && records.iter().any(|r| r.algorithm == *a))
        .collect();
    if others.is_empty() {
        return None;
    }
    let mut columns = vec![
        Column::text("topology"),
        Column::number("n"),
        Column::text("op"),
        Column::number(vec.as_str()),
    ];
    for a in &others {
        columns.push(Column::number(a.as_str()));
        columns.push(Column::number("ratio"));
    }
    let rows = records
        .iter()
        .filter(|r| r.algorithm == vec)
        .map(|v| {
            let mut cells: Vec<Cell> = vec![
                v.topology.as_str().into(),
                size(v.n).into(),
                v.op.as_str().into(),
                per_vertex(v.compute_s, v.n).into(),
            ];
            for a in &others {
                let r = find(records, &v.topology, v.n, &v.op, a);
                cells.push(Cell::of(r.map(|r| per_vertex(r.compute_s, v.n))));
                cells.push(Cell::of(r.map(|r| sig3(r.compute_s / v.compute_s))));
            }
            cells
        })
        .collect();
    Some(Table {
        caption: "The other kernels: compute ns per vertex (medians) and the ratio to vectorial in the same run".into(),
        columns,
        rows,
    })
}

/// With more kernels than one chart holds, every kernel (an algorithm on a kind of backend) in
/// one table: its compute ns per vertex on the largest tree of each topology, per op. The
/// page's panels show one kernel each; this is where they are compared. `None` when the
/// figures are single charts.
pub fn side_by_side(data: &BenchData) -> Option<Table> {
    let groups = series::groups(data);
    if !small_multiples::wanted(&groups) {
        return None;
    }
    let trees: Vec<(String, String, usize)> = data
        .ops()
        .into_iter()
        .flat_map(|op| {
            data.topologies().into_iter().filter_map(move |t| {
                let n = data
                    .kernels()
                    .filter(|r| r.topology == t && r.op == op)
                    .map(|r| r.n)
                    .max()?;
                Some((op.clone(), t, n))
            })
        })
        .collect();
    let mut columns = vec![Column::text("kernel")];
    columns.extend(
        trees
            .iter()
            .map(|(op, t, n)| Column::number(format!("{op}, {t} (n = {n})"))),
    );
    let rows = groups
        .iter()
        .map(|g| {
            let mut cells = vec![Cell::from(g.label.as_str())];
            cells.extend(trees.iter().map(|(op, t, n)| {
                Cell::of(
                    data.kernels()
                        .find(|r| g.has(r) && r.op == *op && r.topology == *t && r.n == *n)
                        .map(|r| per_vertex(r.compute_s, r.n)),
                )
            }));
            cells
        })
        .collect();
    Some(Table {
        caption: "Kernels side by side".into(),
        columns,
        rows,
    })
}
