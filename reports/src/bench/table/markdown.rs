//! The terminal's printer: each table as its caption, a blank line and a markdown table
//! (numbers right-aligned), tables apart by a blank line.

use super::{Cell, Table};

/// What a missing value reads as.
const MISSING: &str = "-";

/// The tables in markdown.
pub fn markdown(tables: &[Table]) -> String {
    let blocks: Vec<String> = tables.iter().map(table).collect();
    blocks.join("\n")
}

fn table(t: &Table) -> String {
    let mut s = format!("{}\n\n", t.caption);
    let heads: Vec<&str> = t.columns.iter().map(|c| c.head.as_str()).collect();
    line(&mut s, &heads);
    s.push('|');
    for c in &t.columns {
        s.push_str(if c.numeric { "---:|" } else { "---|" });
    }
    s.push('\n');
    for row in &t.rows {
        let cells: Vec<&str> = row
            .iter()
            .map(|c| match c {
                Cell::Text(s) => s.as_str(),
                Cell::Missing => MISSING,
            })
            .collect();
        line(&mut s, &cells);
    }
    s
}

fn line(s: &mut String, cells: &[&str]) {
    s.push_str("| ");
    s.push_str(&cells.join(" | "));
    s.push_str(" |\n");
}
