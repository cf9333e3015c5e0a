//! The bench tables as data: columns, rows and cells computed once from the
//! [`BenchRecord`]s, then printed by one of two thin printers — [`markdown`] for the terminal
//! (`accuracy bench`) and [`html`] for `bench.html`. A number shown is formatted here, in
//! the cell, so both printers show the same text; only a missing value reads differently
//! (`-` in markdown, a dash with a tooltip in HTML).
//!
//! The terminal's tables ([`terminal`]): the seed paper's two kernels compared, the other
//! kernels against vectorial, the baselines in GB/s and the effective bandwidth against them.
//! The page's: the kernels side by side, every row of bench.csv, and the baselines.

mod bandwidth;
mod html;
mod kernels;
mod markdown;
mod rows;

pub use bandwidth::{baseline_bandwidth, baselines, effective_bandwidth};
pub use html::html;
pub use kernels::{other_kernels, paper_kernels, side_by_side};
pub use markdown::markdown;
pub use rows::all_rows;

use crate::fmt::sig3;
use analysis::format::ns_per_vertex;
use analysis::records::bench::BenchRecord;

/// A table: a caption (the terminal's line above it, the page's heading), its columns and its
/// rows of cells, one cell per column.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub caption: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
}

/// A column's head, whether it holds numbers (right-aligned) and the tooltip of its head in
/// HTML (the bench.csv field or formula it shows).
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub head: String,
    pub numeric: bool,
    pub title: Option<String>,
}

impl Column {
    /// A left-aligned text column.
    pub fn text(head: impl Into<String>) -> Column {
        Column {
            head: head.into(),
            numeric: false,
            title: None,
        }
    }

    /// A right-aligned number column.
    pub fn number(head: impl Into<String>) -> Column {
        Column {
            numeric: true,
            ..Column::text(head)
        }
    }

    /// The column with a tooltip on its head.
    pub fn titled(self, title: impl Into<String>) -> Column {
        Column {
            title: Some(title.into()),
            ..self
        }
    }
}

/// One cell: the text shown, or a value the run lacks.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    Missing,
}

impl Cell {
    /// The cell of an optional value.
    pub fn of(text: Option<String>) -> Cell {
        text.map_or(Cell::Missing, Cell::Text)
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Text(s)
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Text(s.to_string())
    }
}

/// The terminal's tables, in the order printed: `heading` is the caption of the first (the
/// device and how it was timed, which only the measuring side knows). The other kernels'
/// table is left out when no other kernel ran, the baselines' two when no copy kernel ran.
pub fn terminal(heading: &str, records: &[BenchRecord]) -> Vec<Table> {
    let mut tables = vec![paper_kernels(heading, records)];
    tables.extend(other_kernels(records));
    if records.iter().any(|r| r.algorithm == "copy") {
        tables.push(baseline_bandwidth(records));
        tables.push(effective_bandwidth(records));
    }
    tables
}

/// The row of `algorithm` on `op` for the tree `topology` of `n` vertices (baselines: empty
/// topology and op).
fn find<'a>(
    records: &'a [BenchRecord],
    topology: &str,
    n: usize,
    op: &str,
    algorithm: &str,
) -> Option<&'a BenchRecord> {
    records
        .iter()
        .find(|r| r.topology == topology && r.n == n && r.op == op && r.algorithm == algorithm)
}

/// `2^k` for a power of two, else the count itself (a tree file's size).
fn size(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// Nanoseconds per vertex of `seconds` on `n` vertices, to 3 significant digits.
fn per_vertex(seconds: f64, n: usize) -> String {
    sig3(ns_per_vertex(seconds, n))
}

#[cfg(test)]
mod tests;
