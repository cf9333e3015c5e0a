//! What the accuracy figures share: their panels' groups of series, bound bands, the γₙ₋₁
//! tree size, reference lines.

use crate::data::ReportData;
use crate::plots::{Band, Dash, RefLine};
use crate::style::{self, SeriesStyle};
use analysis::Algorithm;
use plotters::style::RGBColor;

/// The vertex count used for the γₙ₋₁ line: the largest tree of the sweep.
pub(super) fn max_n(data: &ReportData) -> usize {
    data.rows.iter().map(|r| r.n).max().unwrap_or(0)
}

/// Reference lines y = c·κ over a wide κ range (clipped by the plot).
pub(super) fn prop_line(
    label: String,
    color: plotters::style::RGBColor,
    dash: Dash,
    c: f64,
) -> RefLine {
    RefLine {
        label,
        color,
        dash,
        points: vec![(1e-30, c * 1e-30), (1e30, c * 1e30)],
    }
}

/// The series of one panel: (op, algorithm) keys and their styles.
pub(super) struct Group {
    pub title: String,
    pub keys: Vec<((String, String), SeriesStyle)>,
}

/// The seed paper's algorithms (sequential, parallel, vectorial) in registry order.
pub(super) fn paper_names() -> Vec<&'static str> {
    Algorithm::paper()
        .into_iter()
        .map(Algorithm::name)
        .collect()
}

/// Algorithms of the sweep in series order.
pub(super) fn algorithms(data: &ReportData) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, a) in data.series_keys() {
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// The paper's Fig. 10 panels: one per op, holding the paper's algorithms that ran.
pub(super) fn paper_groups(data: &ReportData) -> Vec<Group> {
    let keys = data.series_keys();
    let styles = style::styles_for(&keys);
    let paper = paper_names();
    data.ops()
        .into_iter()
        .map(|op| Group {
            title: format!("{op}: {}", {
                let names: Vec<&str> = paper
                    .iter()
                    .copied()
                    .filter(|a| keys.iter().any(|(o, k)| *o == op && k == a))
                    .collect();
                names.join(", ")
            }),
            keys: keys
                .iter()
                .zip(&styles)
                .filter(|((o, a), _)| *o == op && paper.contains(&a.as_str()))
                .map(|(k, s)| (k.clone(), *s))
                .collect(),
        })
        .filter(|g| !g.keys.is_empty())
        .collect()
}

/// One panel per algorithm (every op it ran), leaving out `except`: the algorithm's look, its
/// second series (the second op) in the open variant.
pub(super) fn algorithm_groups(data: &ReportData, except: &[&str]) -> Vec<Group> {
    let keys = data.series_keys();
    let styles = style::styles_for(&keys);
    algorithms(data)
        .into_iter()
        .filter(|a| !except.contains(&a.as_str()))
        .map(|a| Group {
            keys: keys
                .iter()
                .zip(&styles)
                .filter(|((_, k), _)| *k == a)
                .enumerate()
                .map(|(i, (k, s))| {
                    let s = if i == 0 { *s } else { style::second_series(*s) };
                    (k.clone(), s)
                })
                .collect(),
            title: a,
        })
        .collect()
}

/// A band over groups of points (group key, x, y): per group, from its smallest to its largest
/// y, spanning its x values; groups in the order of their x.
pub(super) fn range_band(
    points: &[(f64, f64, f64)],
    (color, opacity): (RGBColor, f64),
    label: String,
) -> Option<Band> {
    let mut groups: Vec<(f64, f64, f64, f64, f64)> = Vec::new(); // key, x lo, x hi, y lo, y hi
    for &(key, x, y) in points {
        if !(x.is_finite() && y.is_finite() && y > 0.0) {
            continue;
        }
        match groups.iter_mut().find(|g| g.0.to_bits() == key.to_bits()) {
            Some(g) => {
                g.1 = g.1.min(x);
                g.2 = g.2.max(x);
                g.3 = g.3.min(y);
                g.4 = g.4.max(y);
            }
            None => groups.push((key, x, x, y, y)),
        }
    }
    if groups.is_empty() {
        return None;
    }
    groups.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut pts = Vec::new();
    for g in groups {
        pts.push((g.1, g.3, g.4));
        if g.2 > g.1 {
            pts.push((g.2, g.3, g.4));
        }
    }
    Some(Band {
        label,
        color,
        opacity,
        points: pts,
    })
}
