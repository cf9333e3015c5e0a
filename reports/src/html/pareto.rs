//! Accuracy against cost, per op (as Herbie's accuracy-versus-speed plot): one point per
//! algorithm at its time per vertex and its largest loss over the sweep, the Pareto front of
//! the algorithms no other beats on both, and the answer marked.

use crate::ReportError;
use crate::answer::OpAnswer;
use crate::figure::not_available;
use crate::fmt::escape;
use crate::legend::{self, Entry, Glyph};
use crate::plots::{self, Axis, Chart, Dash, RefLine, Series};
use crate::style::{self, LINE_BOUND, LINE_FRONT, LINE_U_KAPPA, SeriesStyle, Shape};
use analysis::f32_format::BITS;
use analysis::format::ns_per_vertex;
use std::fmt::Write;

const PANEL: (u32, u32) = (540, 340);

const TITLE: &str =
    "Accuracy against cost: the largest loss of each algorithm versus its time per vertex";

/// The figure: a panel per op, each with its own legend.
pub(super) fn figure(h: &mut String, answers: &[OpAnswer]) -> Result<(), ReportError> {
    let timed = answers.iter().any(|a| {
        (0..a.algorithms.len())
            .any(|i| a.costs.costs[i].is_some() && a.worst[i].is_some_and(|w| w.bits.is_finite()))
    });
    if !timed {
        not_available(
            h,
            "pareto",
            TITLE,
            "this run has no per-algorithm times (summary.json without timings.kernels; `accuracy report --bench FILE` takes GPU kernel times from `accuracy bench`).",
        );
        return Ok(());
    }
    let _ = write!(
        h,
        "<figure id=\"pareto\" class=\"grid\">\n<h3>{TITLE}</h3>\n<div class=\"panels two\">\n"
    );
    let mut untimed: Vec<String> = Vec::new();
    for a in answers {
        untimed.extend(panel(h, a)?);
    }
    h.push_str("</div>\n<figcaption>One point per algorithm: its largest loss over every tree of the sweep (the table's last line but one) against its time per vertex, on a log axis, labelled by where it was measured — GPU kernels are compared with GPU kernels, CPU twins with CPU twins. The grey staircase is the Pareto front: the algorithms no other algorithm of the same kind beats on both time and loss; below it and to the left nothing was measured. The ring marks the answer above. The red line is the threshold of the answer, the dashed one 24 bits, where no correct bit is left.");
    if !untimed.is_empty() {
        let _ = write!(
            h,
            " Not drawn, for want of a time or a finite loss: {}.",
            escape(&untimed.join("; "))
        );
    }
    h.push_str("</figcaption>\n</figure>\n");
    Ok(())
}

/// One op's panel; returns what it could not draw.
fn panel(h: &mut String, a: &OpAnswer) -> Result<Vec<String>, ReportError> {
    let keys: Vec<(String, String)> = a
        .algorithms
        .iter()
        .map(|n| (a.op.clone(), n.clone()))
        .collect();
    let styles = style::styles_for(&keys);
    let mut series = Vec::new();
    let mut entries = Vec::new();
    let mut untimed = Vec::new();
    let mut points: Vec<(usize, f64, f64)> = Vec::new();
    let mut drawn: Vec<(usize, (f64, f64))> = Vec::new();
    for (i, name) in a.algorithms.iter().enumerate() {
        let (Some(cost), Some(worst)) = (&a.costs.costs[i], a.worst[i]) else {
            untimed.push(format!("{} {name}", a.op));
            continue;
        };
        if !worst.bits.is_finite() {
            untimed.push(format!("{} {name} (an infinite loss)", a.op));
            continue;
        }
        let ranked = a.costs.relative(i).is_some();
        let label = if ranked {
            format!("{name} ({})", cost.time.place.label())
        } else {
            format!("{name} ({}, not compared)", cost.time.place.label())
        };
        let p = (ns_per_vertex(cost.time.per_vertex_s, 1), worst.bits);
        if ranked {
            points.push((i, p.0, p.1));
        }
        drawn.push((i, p));
        series.push(point(&label, styles[i], p, 5));
        entries.push(Entry {
            glyph: Glyph::Marker {
                style: styles[i],
                line: false,
            },
            label,
        });
    }
    let mut lines = vec![
        level(
            format!("threshold: {}", a.threshold.text()),
            LINE_BOUND,
            Dash::Solid,
            a.threshold.bits,
        ),
        level(
            "24 bits: no correct bit left".into(),
            LINE_U_KAPPA,
            Dash::Dashed,
            BITS,
        ),
    ];
    let front = front(&points);
    if front.len() > 1 {
        lines.push(RefLine {
            label: "Pareto front".into(),
            color: LINE_FRONT,
            dash: Dash::Solid,
            points: front,
        });
    }
    let picked = a
        .pick
        .and_then(|i| drawn.iter().find(|d| d.0 == i).map(|d| d.1));
    if let Some(p) = picked {
        let ring = SeriesStyle {
            color: LINE_FRONT,
            shape: Shape::OpenCircle,
        };
        let label = format!("the answer: {}", a.algorithms[a.pick.unwrap()]);
        series.push(point(&label, ring, p, 11));
        entries.push(Entry {
            glyph: Glyph::Marker {
                style: ring,
                line: false,
            },
            label,
        });
    }
    entries.extend(lines.iter().map(crate::panels::line_entry));
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .chain([a.threshold.bits])
        .fold(0.0f64, f64::max);
    let top = if top >= 20.0 { top.max(BITS) } else { top } * 1.08 + 1.0;
    let chart = Chart::panel(
        PANEL,
        (
            Axis::log("time per vertex (ns)"),
            Axis::linear("largest loss (bits)").with_range(0.0, top),
        ),
        series,
        lines,
        Vec::new(),
    );
    let title = format!("{}: loss versus time", a.op);
    let r = plots::render(&chart, &title)?;
    let _ = write!(
        h,
        "<div class=\"panel\" id=\"pareto-{}\">\n<h4>{}</h4>\n",
        escape(&a.op),
        escape(&title)
    );
    legend::html(h, &entries, "panel-legend");
    h.push_str(&r.svg);
    h.push_str("\n</div>\n");
    Ok(untimed)
}

/// A series of one marker.
fn point(label: &str, style: SeriesStyle, p: (f64, f64), size: i32) -> Series {
    Series {
        label: label.to_string(),
        style,
        points: vec![p],
        size,
        connect: false,
        opacity: 1.0,
    }
}

/// A horizontal line at `bits` across every time.
fn level(label: String, color: plotters::style::RGBColor, dash: Dash, bits: f64) -> RefLine {
    RefLine {
        label,
        color,
        dash,
        points: vec![(1e-30, bits), (1e30, bits)],
    }
}

/// The Pareto front of (index, time, loss) points as a staircase: from the fastest point,
/// each point that loses fewer bits than every faster one, joined by steps (the least loss
/// reachable within a time).
fn front(points: &[(usize, f64, f64)]) -> Vec<(f64, f64)> {
    let mut sorted: Vec<(f64, f64)> = points.iter().map(|p| (p.1, p.2)).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut best = f64::INFINITY;
    for (t, bits) in sorted {
        if bits < best {
            if let Some(&(_, previous)) = out.last() {
                out.push((t, previous));
            }
            out.push((t, bits));
            best = bits;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::front;

    #[test]
    fn the_front_keeps_what_no_faster_point_beats() {
        let pts = [
            (0, 1.0, 30.0),
            (1, 2.0, 30.0),
            (2, 3.0, 10.0),
            (3, 4.0, 20.0),
            (4, 9.0, 0.0),
        ];
        assert_eq!(
            front(&pts),
            [
                (1.0, 30.0),
                (3.0, 30.0),
                (3.0, 10.0),
                (9.0, 10.0),
                (9.0, 0.0)
            ]
        );
        assert_eq!(front(&pts[..1]), [(1.0, 30.0)]);
    }
}
