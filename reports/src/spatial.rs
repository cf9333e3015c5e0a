//! The spatial section and page (`accuracy spatial --html FILE`; docs/design.md §12): energy per
//! vertex against n on log–log axes, one line per layout, with each line's fitted exponent —
//! the seed's Theorem 1 measured — depth against n, and the table of every pattern. Rendered from the JSON
//! record alone (`records::spatial`), self-contained like `report.html`.

use super::figure::{decade_range, not_available};
use super::fmt::{NA, escape, sig3};
use super::panels::{MAX_SERIES, Panel, PanelRow, grid};
use super::plots::{Axis, Chart, Series};
use super::style::{SeriesStyle, filled_shape, palette};
use super::{ReportError, page};
use analysis::records::spatial::{PointRecord, SpatialRecord};
use analysis::spatial::{Curve, LinearOrder};
use std::fmt::Write;

/// The look of an order's line: the same in every panel.
fn order_style(order: LinearOrder) -> SeriesStyle {
    let i = LinearOrder::ALL
        .iter()
        .position(|&o| o == order)
        .expect("every order is listed");
    SeriesStyle {
        color: palette(i),
        shape: filled_shape(i),
    }
}

/// The distinct (pattern, op) labels and curves of the record, in order.
fn patterns_and_curves(r: &SpatialRecord) -> (Vec<String>, Vec<Curve>) {
    let mut labels: Vec<String> = Vec::new();
    let mut curves: Vec<Curve> = Vec::new();
    for l in &r.layouts {
        if !curves.contains(&l.curve) {
            curves.push(l.curve);
        }
        for p in &l.patterns {
            if !labels.contains(&p.label()) {
                labels.push(p.label());
            }
        }
    }
    (labels, curves)
}

/// What a panel plots against n.
#[derive(Clone, Copy)]
enum Measure {
    EnergyPerVertex,
    Depth,
}

impl Measure {
    fn of(self, q: &PointRecord) -> f64 {
        match self {
            Measure::EnergyPerVertex => q.energy_per_vertex,
            Measure::Depth => q.depth as f64,
        }
    }
}

/// One panel: energy per vertex of one pattern on one curve, a line per order.
fn panel(r: &SpatialRecord, curve: Curve, pattern: &str, axes: &(Axis, Axis)) -> Option<Panel> {
    panel_of(r, curve, pattern, axes, Measure::EnergyPerVertex)
}

/// One panel of `measure` for one pattern on one curve, a line per order (points of value 0,
/// which a log axis cannot show, left out).
fn panel_of(
    r: &SpatialRecord,
    curve: Curve,
    pattern: &str,
    axes: &(Axis, Axis),
    measure: Measure,
) -> Option<Panel> {
    let series: Vec<Series> = r
        .layouts
        .iter()
        .filter(|l| l.curve == curve)
        .filter_map(|l| {
            let p = l.patterns.iter().find(|p| p.label() == pattern)?;
            if p.points.is_empty() {
                return None;
            }
            let exponent = match measure {
                Measure::EnergyPerVertex => {
                    p.exponent.map_or(String::new(), |e| format!(" (n^{e:.2})"))
                }
                Measure::Depth => String::new(),
            };
            Some(Series {
                label: format!("{}{exponent}", l.order),
                style: order_style(l.order),
                points: p
                    .points
                    .iter()
                    .map(|q| (q.n as f64, measure.of(q)))
                    .filter(|&(_, y)| y > 0.0)
                    .collect(),
                size: 4,
                connect: true,
                opacity: 1.0,
            })
        })
        .take(MAX_SERIES)
        .collect();
    (!series.is_empty()).then(|| Panel {
        title: format!("{pattern} on {curve}"),
        chart: Chart::panel((0, 0), axes.clone(), series, Vec::new(), Vec::new()),
    })
}

/// The figures and the table, for a page or for `report.html`.
pub fn section(h: &mut String, r: &SpatialRecord) -> Result<(), ReportError> {
    h.push_str("<section id=\"spatial\">\n<h2>Energy and depth on a spatial computer</h2>\n");
    h.push_str("<p class=\"lead\">Each message costs its words × the Manhattan distance between the processors of its two vertices (energy); depth is the number of rounds it takes when a processor sends and receives one message per round (the chain depth, the longest chain of dependent messages, ignores that limit); est. cycles is Luczynski et al.'s wafer-scale estimate T = max(C, E/N + L) + (2·T_R + 1)·D. A layout puts the vertices in a linear order, then on the grid along a space-filling curve (docs/design.md §12). Exponent: the least-squares slope of ln energy against ln n; 1 means energy per vertex stays flat.</p>\n");
    let sizes: Vec<u64> = r.trees.iter().map(|t| t.n).collect();
    let (labels, curves) = patterns_and_curves(r);
    let distinct = {
        let mut s = sizes.clone();
        s.sort_unstable();
        s.dedup();
        s.len()
    };
    if distinct < 2 {
        not_available(
            h,
            "fig-spatial-local",
            "Local messaging: energy per vertex versus n",
            "one size only; give several sizes (--nodes 2^10..2^16) or tree files",
        );
    } else {
        let points = r
            .layouts
            .iter()
            .flat_map(|l| l.patterns.iter())
            .flat_map(|p| p.points.iter());
        let x = Axis::log("vertices n");
        let x = match decade_range(sizes.iter().map(|&n| n as f64)) {
            Some((lo, hi)) => x.with_range(lo, hi),
            None => x,
        };
        let y = Axis::log("energy per vertex (words x distance)");
        let y = match decade_range(points.map(|q| q.energy_per_vertex)) {
            Some((lo, hi)) => y.with_range(lo, hi),
            None => y,
        };
        let axes = (x, y);
        let local: Vec<Panel> = curves
            .iter()
            .filter_map(|&c| panel(r, c, "local", &axes))
            .collect();
        grid(
            h,
            "fig-spatial-local",
            "Local messaging: energy per vertex versus n (the seed's Theorems 1 and 2)",
            &[],
            PanelRow::one(local),
            |_| {
                "Every parent sends one word to its children and they answer, along the degree ≤ 4 virtual tree. A flat line (exponent 1) is linear energy, what light-first order promises on Hilbert, Peano and Z-order; the seed's bad layouts (breadth-first on a perfect binary tree, the path child first on a caterpillar) grow like n^1.5.".to_string()
            },
        )?;
        let rows: Vec<PanelRow> = curves
            .iter()
            .map(|&c| PanelRow {
                heading: Some(format!("on {c}")),
                wide: false,
                panels: labels
                    .iter()
                    .filter(|l| *l != "local")
                    .filter_map(|l| panel(r, c, l, &axes))
                    .collect(),
            })
            .collect();
        grid(
            h,
            "fig-spatial-algorithms",
            "Treefix algorithms and batched LCA: energy per vertex versus n",
            &[],
            rows,
            |_| {
                "Each algorithm's messages as its own schedule sends them (parallel: along the edges, level by level; the Euler-tour family: to and from the tour and a grid scan, its scan values 1, 2 or L words; contraction: rake and compress between cluster representatives, round by round); batched LCA on the heavy-light decomposition; the layout's construction (list ranking of its Euler tours, the permutation onto the grid) and the virtual tree's.".to_string()
            },
        )?;
        depth_figure(h, r, &curves, &labels, &sizes)?;
    }
    answer(h, r);
    table(h, r);
    h.push_str("</section>\n");
    Ok(())
}

/// Depth against n, a panel per pattern (on the first curve: depth does not depend on the
/// curve), a line per order.
fn depth_figure(
    h: &mut String,
    r: &SpatialRecord,
    curves: &[Curve],
    labels: &[String],
    sizes: &[u64],
) -> Result<(), ReportError> {
    let Some(&curve) = curves.first() else {
        return Ok(());
    };
    let depths = r
        .layouts
        .iter()
        .flat_map(|l| l.patterns.iter())
        .flat_map(|p| p.points.iter())
        .map(|q| q.depth as f64)
        .filter(|&d| d > 0.0);
    let x = Axis::log("vertices n");
    let x = match decade_range(sizes.iter().map(|&n| n as f64)) {
        Some((lo, hi)) => x.with_range(lo, hi),
        None => x,
    };
    let y = Axis::log("depth (rounds)");
    let y = match decade_range(depths) {
        Some((lo, hi)) => y.with_range(lo, hi),
        None => y,
    };
    let axes = (x, y);
    let panels: Vec<Panel> = labels
        .iter()
        .filter_map(|l| panel_of(r, curve, l, &axes, Measure::Depth))
        .collect();
    grid(
        h,
        "fig-spatial-depth",
        "Depth versus n: rounds under the model's limit of one message sent and one received per processor per round",
        &[],
        PanelRow::one(panels),
        |_| {
            "A processor that must send or receive k messages in one step takes k rounds (a star's root in parallel's schedule: n − 1); through the virtual tree it takes O(log k). The seed promises polylogarithmic depth for contraction, batched LCA and the layout's construction.".to_string()
        },
    )?;
    Ok(())
}

/// The answer: per op and algorithm, lost bits, time (labelled GPU kernel or CPU twin), and
/// energy and depth on its least-energy layout, at the last tree; then a sentence per op.
fn answer(h: &mut String, r: &SpatialRecord) {
    let Some(first) = r.answer.first() else {
        return;
    };
    let _ = writeln!(
        h,
        "<h3>The answer at n = {}: bits, time, energy and depth</h3>",
        first.n
    );
    for line in analysis::records::spatial_answer::sentences(&r.answer, &r.ops) {
        let _ = writeln!(h, "<p class=\"answer\">{}</p>", escape(&line));
    }
    h.push_str("<table class=\"compact\" id=\"spatial-answer\">\n<tr><th>op</th><th>algorithm</th><th class=\"num\">lost bits</th><th class=\"num\">ns per vertex</th><th>timed as</th><th class=\"num\">energy per vertex</th><th class=\"num\">depth</th><th class=\"num\">chain depth</th><th class=\"num\">est. cycles</th><th class=\"num\">exponent</th><th>least-energy layout</th><th class=\"num\">its construction, energy per vertex</th><th class=\"num\">its construction, depth</th></tr>\n");
    let cell = |x: Option<String>| x.unwrap_or_else(|| NA.to_string());
    for a in &r.answer {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{} {}{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            a.op,
            escape(&a.algorithm),
            cell(a.lost_bits.map(|b| format!("{b:.2}"))),
            cell(a.time_per_vertex_s.map(|t| sig3(t * 1e9))),
            escape(&a.time_source),
            sig3(a.energy_per_vertex),
            a.depth,
            a.chain_depth,
            sig3(a.cycles),
            cell(a.exponent.map(|e| format!("{e:.3}"))),
            a.order,
            a.curve,
            match a.tied.is_empty() {
                true => String::new(),
                false => format!(" (tied with {})", escape(&a.tied.join(", "))),
            },
            cell(a.construction_energy_per_vertex.map(sig3)),
            cell(a.construction_depth.map(|d| d.to_string())),
        );
    }
    h.push_str("</table>\n");
}

/// Every layout × pattern: energy per vertex at each n, the exponent, and the depths,
/// congestion, estimated cycles and lost bits at the largest n.
fn table(h: &mut String, r: &SpatialRecord) {
    h.push_str("<div class=\"wide\"><table class=\"compact\" id=\"spatial-table\">\n<tr><th>order</th><th>curve</th><th>pattern</th>");
    for t in &r.trees {
        let _ = write!(h, "<th class=\"num\">E/n, n = {}</th>", t.n);
    }
    h.push_str("<th class=\"num\">exponent</th><th class=\"num\">R²</th><th class=\"num\">depth (largest n)</th><th class=\"num\">chain depth</th><th class=\"num\">congestion</th><th class=\"num\">est. cycles</th><th class=\"num\">lost bits (largest n)</th></tr>\n");
    for l in &r.layouts {
        for p in &l.patterns {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td>",
                l.order,
                l.curve,
                escape(&p.label())
            );
            if let Some(why) = &p.not_applicable {
                let _ = writeln!(
                    h,
                    "<td colspan=\"{}\">not applicable: {}</td></tr>",
                    r.trees.len() + 7,
                    escape(why)
                );
                continue;
            }
            for q in &p.points {
                let _ = write!(h, "<td class=\"num\">{}</td>", sig3(q.energy_per_vertex));
            }
            let last = p.points.last();
            let cell = |x: Option<String>| x.unwrap_or_else(|| NA.to_string());
            let _ = writeln!(
                h,
                "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                cell(p.exponent.map(|e| format!("{e:.3}"))),
                cell(p.r2.map(|e| format!("{e:.3}"))),
                cell(last.map(|q| q.depth.to_string())),
                cell(last.map(|q| q.chain_depth.to_string())),
                cell(last.map(|q| q.congestion.to_string())),
                cell(last.map(|q| sig3(q.cycles))),
                cell(last.and_then(|q| q.lost_bits).map(|b| format!("{b:.2}"))),
            );
        }
    }
    h.push_str("</table></div>\n");
}

/// The whole page.
pub fn render(r: &SpatialRecord) -> Result<String, ReportError> {
    let mut h = String::with_capacity(1 << 18);
    page::head(&mut h, "Trees on a spatial computer");
    h.push_str("<h1>Trees on a spatial computer</h1>\n");
    let trees: Vec<String> = r
        .trees
        .iter()
        .map(|t| format!("{} n={}", t.name, t.n))
        .collect();
    let _ = writeln!(
        h,
        "<table class=\"kv\" id=\"spatial-params\"><tr><th>Trees</th><td>{}</td></tr><tr><th>Weights</th><td>{} (target κ {}, seed {})</td></tr><tr><th>Command</th><td><code>{}</code></td></tr><tr><th>Time</th><td>laid out and counted in {:.2} s; lost bits in {:.2} s</td></tr></table>",
        escape(&trees.join(", ")),
        escape(&r.weights),
        sig3(r.target_cond),
        r.seed,
        escape(&r.command_line.join(" ")),
        r.timings.count_s,
        r.timings.bits_s
    );
    section(&mut h, r)?;
    page::footer(&mut h);
    Ok(h)
}
