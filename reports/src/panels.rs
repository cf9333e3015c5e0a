//! Small multiples (Tufte): a figure drawn as a grid of panels with shared axes, one panel per
//! algorithm or group of algorithms, each with at most [`MAX_SERIES`] series (marker series
//! and sets of bars together) and its own
//! legend, so a report stays readable whatever the number of algorithms. Reference lines that
//! every panel draws get one legend, shared, above the grid.

use super::ReportError;
use super::fmt::escape;
use super::legend::{self, Entry, Glyph};
use super::plots::{self, Chart};
use std::fmt::Write;

/// The most series a panel may hold: more and markers of one κ pile into an unreadable
/// column again.
pub const MAX_SERIES: usize = 4;

/// Panel sizes (CSS pixels) in a row of two and in a row of three: both fit the page's
/// 1180-pixel column side by side.
const WIDE: (u32, u32) = (540, 340);
const NARROW: (u32, u32) = (356, 270);

/// One panel: a title and a chart (its width, height and legend are set by the grid); each
/// labelled band of the chart gets a legend entry of its own colour.
pub struct Panel {
    pub title: String,
    pub chart: Chart,
}

/// A row of panels under an optional heading: two wide panels or up to three narrow ones per
/// line of the page.
pub struct PanelRow {
    pub heading: Option<String>,
    pub wide: bool,
    pub panels: Vec<Panel>,
}

impl PanelRow {
    /// The panels of a figure as one row without a heading, wide when there are at most two.
    pub fn one(panels: Vec<Panel>) -> Vec<PanelRow> {
        vec![PanelRow {
            heading: None,
            wide: panels.len() <= 2,
            panels,
        }]
    }
}

/// What a grid drew.
pub struct Drawn {
    pub markers: usize,
    pub not_shown: usize,
    /// Reference lines outside every panel.
    pub lines_outside: Vec<String>,
}

/// Writes `<figure id>` holding the shared legend, the rows of panels and the caption.
pub fn grid(
    h: &mut String,
    id: &str,
    title: &str,
    shared: &[Entry],
    rows: Vec<PanelRow>,
    caption: impl FnOnce(&Drawn) -> String,
) -> Result<Drawn, ReportError> {
    let mut drawn = Drawn {
        markers: 0,
        not_shown: 0,
        lines_outside: Vec::new(),
    };
    let mut outside: Option<Vec<String>> = None;
    let mut body = String::new();
    let mut k = 0;
    for row in rows {
        if row.panels.is_empty() {
            continue;
        }
        if let Some(heading) = &row.heading {
            let _ = writeln!(body, "<h4 class=\"panel-row\">{}</h4>", escape(heading));
        }
        let (w, hgt) = if row.wide { WIDE } else { NARROW };
        let _ = writeln!(
            body,
            "<div class=\"panels {}\">",
            if row.wide { "two" } else { "three" }
        );
        for mut p in row.panels {
            let count = p.chart.series.len() + p.chart.bars.len();
            if count > MAX_SERIES {
                return Err(ReportError::Plot {
                    what: p.title,
                    message: format!("{count} series in one panel (at most {MAX_SERIES})"),
                });
            }
            p.chart.width = w;
            p.chart.height = hgt;
            p.chart.legend = false;
            let r = plots::render(&p.chart, &format!("{title} — {}", p.title))?;
            drawn.markers += r.markers;
            drawn.not_shown += r.not_shown;
            outside = Some(match outside {
                None => r.lines_outside.clone(),
                Some(o) => o
                    .into_iter()
                    .filter(|l| r.lines_outside.contains(l))
                    .collect(),
            });
            let mut entries: Vec<Entry> = p
                .chart
                .series
                .iter()
                .enumerate()
                .map(|(j, s)| Entry {
                    glyph: Glyph::Marker {
                        style: s.style,
                        line: s.connect,
                    },
                    label: same_as(&p.chart.series, j).map_or_else(
                        || s.label.clone(),
                        |i| format!("{} (= {})", s.label, p.chart.series[i].label),
                    ),
                })
                .chain(p.chart.bars.iter().map(|b| Entry {
                    glyph: Glyph::Bar { color: b.color },
                    label: b.label.clone(),
                }))
                .collect();
            for band in p.chart.bands.iter().filter(|b| !b.label.is_empty()) {
                entries.push(Entry {
                    glyph: Glyph::Band {
                        color: band.color,
                        opacity: band.opacity,
                    },
                    label: band.label.clone(),
                });
            }
            let _ = write!(
                body,
                "<div class=\"panel\" id=\"{id}-p{k}\">\n<h4>{}</h4>\n",
                escape(&p.title)
            );
            legend::html(&mut body, &entries, "panel-legend");
            body.push_str(&r.svg);
            body.push_str("\n</div>\n");
            k += 1;
        }
        body.push_str("</div>\n");
    }
    drawn.lines_outside = outside.unwrap_or_default();
    let _ = write!(
        h,
        "<figure id=\"{id}\" class=\"grid\">\n<h3>{}</h3>\n",
        escape(title)
    );
    legend::html(h, shared, "shared");
    h.push_str(&body);
    let _ = writeln!(h, "<figcaption>{}</figcaption>\n</figure>", caption(&drawn));
    Ok(drawn)
}

/// The earlier series whose markers series `j` repeats exactly (parallel's on sequential's):
/// drawn on top, they would hide it, so the legend says they are the same.
fn same_as(series: &[plots::Series], j: usize) -> Option<usize> {
    let key = |s: &plots::Series| {
        let mut k: Vec<(u64, u64)> = s
            .points
            .iter()
            .map(|p| (p.0.to_bits(), p.1.to_bits()))
            .collect();
        k.sort_unstable();
        k
    };
    let mine = key(&series[j]);
    (!mine.is_empty())
        .then(|| (0..j).find(|&i| key(&series[i]) == mine))
        .flatten()
}

/// The shared legend entry of a reference line.
pub fn line_entry(line: &plots::RefLine) -> Entry {
    Entry {
        glyph: Glyph::Line {
            color: line.color,
            dash: line.dash,
        },
        label: line.label.clone(),
    }
}
