//! The page's printer: a table as an HTML `<table>` (numbers in `num` cells, each head's
//! tooltip in its `title`); the section around it (heading, notes) is the page's.

use super::{Cell, Table};
use crate::fmt::{NA, escape};
use std::fmt::Write;

/// Appends `t` as `<table id="id" class="class">…</table>` (no newline after it).
pub fn html(h: &mut String, id: &str, class: Option<&str>, t: &Table) {
    let class = class.map_or_else(String::new, |c| format!(" class=\"{}\"", escape(c)));
    let _ = write!(h, "<table id=\"{}\"{class}>\n<thead><tr>", escape(id));
    for c in &t.columns {
        let title = c
            .title
            .as_ref()
            .map_or_else(String::new, |t| format!(" title=\"{}\"", escape(t)));
        let _ = write!(h, "<th{}{title}>{}</th>", num(c.numeric), escape(&c.head));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for row in &t.rows {
        h.push_str("<tr>");
        for (c, cell) in t.columns.iter().zip(row) {
            let text = match cell {
                Cell::Text(s) => escape(s),
                Cell::Missing => NA.to_string(),
            };
            let _ = write!(h, "<td{}>{text}</td>", num(c.numeric));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table>");
}

fn num(numeric: bool) -> &'static str {
    if numeric { " class=\"num\"" } else { "" }
}
