//! Every row of bench.csv on the page: the times as stored (seconds, shortest exact form) and
//! per vertex.

use super::{Cell, Column, Table, per_vertex};
use analysis::format::f64_shortest;
use analysis::records::bench::BenchRecord;

/// Each field of a row (its bench.csv name as the head's tooltip), the ns per vertex (compute,
/// and with transfers) before the last two.
pub fn all_rows(records: &[BenchRecord]) -> Table {
    let text = |key: &str, head: &str| Column::text(head).titled(key);
    let number = |key: &str, head: &str| Column::number(head).titled(key);
    let columns = vec![
        text("topology", "topology"),
        number("n", "n"),
        number("height", "height"),
        text("op", "op"),
        text("algorithm", "algorithm"),
        text("backend", "backend"),
        number("compute_s", "compute median (s)"),
        number("compute_min_s", "compute min (s)"),
        number("compute_max_s", "compute max (s)"),
        number("transfer_s", "transfers median (s)"),
        number("transfer_min_s", "transfers min (s)"),
        number("transfer_max_s", "transfers max (s)"),
        number("compute_ns_per_vertex", "compute ns / vertex"),
        number("total_ns_per_vertex", "with transfers ns / vertex"),
        number("bytes_moved", "bytes moved"),
        number("reps", "reps"),
    ];
    let rows = records
        .iter()
        .map(|r| -> Vec<Cell> {
            vec![
                r.topology.as_str().into(),
                r.n.to_string().into(),
                r.height.to_string().into(),
                r.op.as_str().into(),
                r.algorithm.as_str().into(),
                r.backend.as_str().into(),
                f64_shortest(r.compute_s).into(),
                f64_shortest(r.compute_min_s).into(),
                f64_shortest(r.compute_max_s).into(),
                f64_shortest(r.transfer_s).into(),
                f64_shortest(r.transfer_min_s).into(),
                f64_shortest(r.transfer_max_s).into(),
                per_vertex(r.compute_s, r.n).into(),
                per_vertex(r.compute_s + r.transfer_s, r.n).into(),
                r.bytes_moved.to_string().into(),
                r.reps.to_string().into(),
            ]
        })
        .collect();
    Table {
        caption: "All rows".into(),
        columns,
        rows,
    }
}
