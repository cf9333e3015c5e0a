//! Legends written as HTML beside the plots: one list per panel of a grid, and one shared by
//! every panel for the reference lines they all draw. Each entry is a small inline SVG glyph
//! (the series' marker, a line's dash, a band's fill) and its label, so a legend never covers
//! data and never costs plot width.

use super::fmt::escape;
use super::plots::Dash;
use super::style::{SeriesStyle, Shape};
use plotters::style::RGBColor;
use std::fmt::Write;

/// What one legend entry shows.
#[derive(Debug, Clone)]
pub enum Glyph {
    /// A series' marker, with a line through it when the series is connected.
    Marker { style: SeriesStyle, line: bool },
    /// A reference line.
    Line { color: RGBColor, dash: Dash },
    /// A shaded band.
    Band { color: RGBColor, opacity: f64 },
    /// A set of bars: a series drawn as bars.
    Bar { color: RGBColor },
}

/// One legend entry.
#[derive(Debug, Clone)]
pub struct Entry {
    pub glyph: Glyph,
    pub label: String,
}

impl Entry {
    /// The CSS class of the entry: `series` (markers or bars), `line` or `band` (the
    /// structure tests count them).
    fn class(&self) -> &'static str {
        match self.glyph {
            Glyph::Marker { .. } | Glyph::Bar { .. } => "series",
            Glyph::Line { .. } => "line",
            Glyph::Band { .. } => "band",
        }
    }
}

fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The glyph as a 24 × 14 inline SVG.
fn svg(glyph: &Glyph) -> String {
    let body = match glyph {
        Glyph::Marker { style, line } => {
            let c = hex(style.color);
            let mut s = String::new();
            if *line {
                let _ = write!(s, "<path d=\"M1 7H23\" stroke=\"{c}\" stroke-width=\"2\"/>");
            }
            let fill = format!("fill=\"{c}\"");
            let open = format!("fill=\"#fff\" stroke=\"{c}\" stroke-width=\"2\"");
            let stroke = format!("fill=\"none\" stroke=\"{c}\" stroke-width=\"2\"");
            s.push_str(&match style.shape {
                Shape::Circle => format!("<circle cx=\"12\" cy=\"7\" r=\"4\" {fill}/>"),
                Shape::OpenCircle => format!("<circle cx=\"12\" cy=\"7\" r=\"4\" {open}/>"),
                Shape::Square => format!("<rect x=\"8\" y=\"3\" width=\"8\" height=\"8\" {fill}/>"),
                Shape::OpenSquare => {
                    format!("<rect x=\"8\" y=\"3\" width=\"8\" height=\"8\" {open}/>")
                }
                Shape::Triangle => format!("<path d=\"M12 2L17 12H7Z\" {fill}/>"),
                Shape::OpenTriangle => format!("<path d=\"M12 2L17 12H7Z\" {open}/>"),
                Shape::TriangleDown => format!("<path d=\"M12 12L17 2H7Z\" {fill}/>"),
                Shape::OpenTriangleDown => format!("<path d=\"M12 12L17 2H7Z\" {open}/>"),
                Shape::Diamond => format!("<path d=\"M12 2L17 7L12 12L7 7Z\" {fill}/>"),
                Shape::OpenDiamond => format!("<path d=\"M12 2L17 7L12 12L7 7Z\" {open}/>"),
                Shape::Cross => format!("<path d=\"M8 3L16 11M8 11L16 3\" {stroke}/>"),
                Shape::Plus => format!("<path d=\"M7 7H17M12 2V12\" {stroke}/>"),
            });
            s
        }
        Glyph::Line { color, dash } => {
            let pattern = match dash {
                Dash::Solid => "",
                Dash::Dashed => " stroke-dasharray=\"6 4\"",
                Dash::Dotted => " stroke-dasharray=\"2 3\"",
            };
            format!(
                "<path d=\"M1 7H23\" stroke=\"{}\" stroke-width=\"2\"{pattern}/>",
                hex(*color)
            )
        }
        Glyph::Band { color, opacity } => format!(
            "<rect x=\"1\" y=\"2\" width=\"22\" height=\"10\" fill=\"{}\" fill-opacity=\"{opacity}\"/>",
            hex(*color)
        ),
        Glyph::Bar { color } => format!(
            "<rect x=\"7\" y=\"1\" width=\"10\" height=\"12\" fill=\"{}\"/>",
            hex(*color)
        ),
    };
    format!(
        "<svg width=\"24\" height=\"14\" viewBox=\"0 0 24 14\" aria-hidden=\"true\">{body}</svg>"
    )
}

/// A legend as `<ul class="legend {extra}">`.
pub fn html(h: &mut String, entries: &[Entry], extra_class: &str) {
    if entries.is_empty() {
        return;
    }
    let _ = write!(h, "<ul class=\"legend {extra_class}\">");
    for e in entries {
        let _ = write!(
            h,
            "<li class=\"{}\">{}{}</li>",
            e.class(),
            svg(&e.glyph),
            escape(&e.label)
        );
    }
    h.push_str("</ul>\n");
}
