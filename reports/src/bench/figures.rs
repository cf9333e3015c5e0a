//! The paper's performance figures (Fig. 7, 5 and 4) from the kernel rows of `bench.csv`.

use super::series::{
    FIG7_TOPOLOGIES, Group, PerTree, group_bars, groups, id_part, push_pair, total_s,
};
use super::{BenchData, is_file, small_multiples};
use crate::ReportError;
use crate::figure::{FIG_H, FIG_W, figure, not_available};
use crate::fmt::escape;
use crate::plots::{self, Axis, Chart, Dash, RefLine};
use crate::style::{self, LINE_U_KAPPA, SeriesStyle};
use analysis::Algorithm;
use analysis::algorithms::PaperRole;
use analysis::records::bench::BenchRecord;
use std::collections::HashMap;

/// Fig. 7: time per call versus the number of vertices, one chart per topology (star, chain)
/// and op, compute alone and with transfers.
pub(super) fn fig7(h: &mut String, data: &BenchData) -> Result<(), ReportError> {
    h.push_str("<section id=\"fig7\">\n<h2>Time versus tree size on the star and the chain (the paper's Fig. 7)</h2>\n");
    let groups = groups(data);
    if small_multiples::wanted(&groups) {
        small_multiples::fig7(h, data, &groups)?;
        h.push_str("</section>\n");
        return Ok(());
    }
    let mut drawn = 0;
    for topo in FIG7_TOPOLOGIES {
        for op in data.ops() {
            let rows: Vec<&BenchRecord> = data
                .kernels()
                .filter(|r| r.topology == topo && r.op == op)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let mut series = Vec::new();
            for g in &groups {
                let mine: Vec<&BenchRecord> = rows.iter().copied().filter(|r| g.has(r)).collect();
                if mine.is_empty() {
                    continue;
                }
                push_pair(
                    &mut series,
                    (format!("{} compute", g.label), g.label.clone()),
                    g.style,
                    &mine,
                    |r| r.compute_s,
                    total_s,
                );
            }
            let title = format!("{topo}, {op}: time per call versus vertices");
            let chart = Chart {
                width: FIG_W,
                height: FIG_H,
                x: Axis::log("vertices n"),
                y: Axis::log("median time per call (s)"),
                series,
                lines: vec![],
                bars: vec![],
                bands: Vec::new(),
                legend: true,
            };
            let r = plots::render(&chart, &title)?;
            let shape = if topo == "star" {
                "The star has one level below the root: every vertex but the root is processed at once (the parallel algorithm's best case)."
            } else {
                "The chain (the paper's caterpillar) has n levels of one vertex: the parallel algorithm runs them one after the other (its worst case)."
            };
            let cap = format!(
                "{shape} Both axes logarithmic; filled markers: compute alone; open markers: compute + transfers (weights up, results down). {} markers.",
                r.markers
            );
            figure(
                h,
                &format!("fig-time-{}-{}", id_part(topo), id_part(&op)),
                &title,
                Some(&r.svg),
                &escape(&cap),
            );
            drawn += 1;
        }
    }
    if drawn == 0 {
        not_available(
            h,
            "fig-time-none",
            "Time versus vertices on the star and the chain",
            "bench.csv has no star or chain rows.",
        );
    }
    h.push_str("</section>\n");
    Ok(())
}

/// Fig. 5: speed-up over the sequential CPU order (rows of the paper's baseline algorithm,
/// `PaperRole::Baseline`, on backend `cpu` at the same topology, n and op), compute alone and
/// with transfers.
pub(super) fn fig5(h: &mut String, data: &BenchData) -> Result<(), ReportError> {
    h.push_str("<section id=\"fig5\">\n<h2>Speed-up over sequential (the paper's Fig. 5)</h2>\n");
    let baseline = Algorithm::with_role(PaperRole::Baseline).name();
    let base: HashMap<(&str, usize, &str), f64> = data
        .kernels()
        .filter(|r| r.algorithm == baseline && r.backend == "cpu" && r.compute_s > 0.0)
        .map(|r| ((r.topology.as_str(), r.n, r.op.as_str()), r.compute_s))
        .collect();
    if base.is_empty() {
        not_available(
            h,
            "fig-speedup-none",
            "Speed-up over sequential",
            "bench.csv has no rows with algorithm sequential and backend cpu, the baseline of the speed-up.",
        );
        h.push_str("</section>\n");
        return Ok(());
    }
    let groups = groups(data);
    if small_multiples::wanted(&groups) {
        small_multiples::fig5(h, data, &groups, &base)?;
        h.push_str("</section>\n");
        return Ok(());
    }
    let topologies = data.topologies();
    for op in data.ops() {
        let mut series = Vec::new();
        for g in &groups {
            if g.algorithm == baseline && g.kind == "cpu" {
                continue;
            }
            for (ti, topo) in topologies.iter().enumerate() {
                let mine: Vec<&BenchRecord> = data
                    .kernels()
                    .filter(|r| g.has(r) && &r.topology == topo && r.op == op)
                    .filter(|r| base.contains_key(&(r.topology.as_str(), r.n, r.op.as_str())))
                    .collect();
                if mine.is_empty() {
                    continue;
                }
                let seq = |r: &BenchRecord| base[&(r.topology.as_str(), r.n, r.op.as_str())];
                let st = SeriesStyle {
                    color: style::palette(ti),
                    shape: g.style.shape,
                };
                let label = format!("{} · {topo}", g.label);
                push_pair(
                    &mut series,
                    (label.clone(), label),
                    st,
                    &mine,
                    |r| seq(r) / r.compute_s,
                    |r| seq(r) / total_s(r),
                );
            }
        }
        let title = format!("{op}: speed-up over the sequential CPU order");
        let id = format!("fig-speedup-{}", id_part(&op));
        if series.is_empty() {
            not_available(
                h,
                &id,
                &title,
                "no row of this op shares its topology and size with a sequential CPU row.",
            );
            continue;
        }
        let chart = Chart {
            width: FIG_W,
            height: FIG_H,
            x: Axis::log("vertices n"),
            y: Axis::log("speed-up = sequential time ÷ time (dimensionless)"),
            series,
            lines: vec![RefLine {
                label: "1: as fast as sequential".into(),
                color: LINE_U_KAPPA,
                dash: Dash::Dashed,
                points: vec![(1e-30, 1.0), (1e30, 1.0)],
            }],
            bars: vec![],
            bands: Vec::new(),
            legend: true,
        };
        let r = plots::render(&chart, &title)?;
        let cap = format!(
            "Sequential CPU time (median) ÷ median time of each algorithm on the same tree; above 1 is faster. Colour: topology; marker: algorithm, filled for compute alone, open with the transfers counted. Both axes logarithmic; {} markers.",
            r.markers
        );
        figure(h, &id, &title, Some(&r.svg), &escape(&cap));
    }
    h.push_str("</section>\n");
    Ok(())
}

/// Fig. 4: compute and transfer time of every tree, as bars; one chart per topology family
/// (one tree per size) and op, and one for the tree files.
pub(super) fn fig4(h: &mut String, data: &BenchData) -> Result<(), ReportError> {
    h.push_str(
        "<section id=\"fig4\">\n<h2>Compute and transfer time per tree (the paper's Fig. 4)</h2>\n",
    );
    let groups = groups(data);
    let topologies = data.topologies();
    let families: Vec<&String> = topologies.iter().filter(|t| !is_file(t)).collect();
    let files: Vec<&String> = topologies.iter().filter(|t| is_file(t)).collect();
    let mut sets: Vec<(String, Vec<&String>)> =
        families.iter().map(|t| ((*t).clone(), vec![*t])).collect();
    if !files.is_empty() {
        sets.push(("tree files".into(), files));
    }
    if small_multiples::wanted(&groups) {
        small_multiples::fig4(h, data, &groups, &sets)?;
    } else {
        per_tree_charts(h, data, &groups, &sets)?;
    }
    if sets.is_empty() {
        not_available(
            h,
            "fig-per-tree-none",
            "Compute and transfer time per tree",
            "bench.csv has no kernel rows.",
        );
    }
    h.push_str("</section>\n");
    Ok(())
}

/// Fig. 4 with every kernel in one chart per topology family and op.
fn per_tree_charts(
    h: &mut String,
    data: &BenchData,
    groups: &[Group],
    sets: &[(String, Vec<&String>)],
) -> Result<(), ReportError> {
    for (name, members) in sets {
        for op in data.ops() {
            let Some(PerTree {
                rows,
                trees,
                labels,
                x_label,
            }) = PerTree::of(data, members, &op)
            else {
                continue;
            };
            let mut bars = Vec::new();
            for g in groups {
                let mine: Vec<&BenchRecord> = rows.iter().copied().filter(|r| g.has(r)).collect();
                if !mine.is_empty() {
                    bars.extend(group_bars(g, &mine, &trees, &format!("{} ", g.label)));
                }
            }
            let title = format!("{name}, {op}: compute and transfer time per tree");
            let chart = Chart {
                width: FIG_W,
                height: FIG_H,
                x: Axis::categories(x_label, labels),
                y: Axis::log("median time per call (s)"),
                series: vec![],
                lines: vec![],
                bars,
                bands: Vec::new(),
                legend: true,
            };
            let r = plots::render(&chart, &title)?;
            let cap = "One group of bars per tree, ordered by vertices: per algorithm the compute time (dark) and the transfer time (light, weights up and results down); whiskers span the fastest and slowest repetition. The y axis is logarithmic.";
            figure(
                h,
                &format!("fig-per-tree-{}-{}", id_part(name), id_part(&op)),
                &title,
                Some(&r.svg),
                cap,
            );
        }
    }
    Ok(())
}
