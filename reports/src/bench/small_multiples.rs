//! The performance figures as small multiples, once more kernels ran than one chart can show
//! legibly: each figure keeps its id and title but becomes a grid of panels (`panels::grid`),
//! one per kernel, on axes shared by the whole figure, each panel with its own legend of at
//! most four series. The sequential CPU order and the speed-up of 1 are reference lines drawn
//! in every panel, with one shared legend entry.

use super::BenchData;
use super::series::{
    FIG7_TOPOLOGIES, Group, PerTree, by_n, group_bars, id_part, push_pair, total_s,
};
use crate::ReportError;
use crate::figure::{FIG_H, FIG_W, decade_range, not_available};
use crate::fmt::escape;
use crate::legend::Entry;
use crate::panels::{MAX_SERIES, Panel, PanelRow, grid, line_entry};
use crate::plots::{Axis, Chart, Dash, RefLine};
use crate::style::{self, LINE_U_KAPPA, SeriesStyle};
use analysis::Algorithm;
use analysis::algorithms::PaperRole;
use analysis::records::bench::BenchRecord;
use std::collections::HashMap;

/// The most kernels (algorithm × backend kind) one chart holds: with more, each figure is a
/// grid of panels. Three is what the paper's own figures compare.
pub const MAX_KERNELS_PER_CHART: usize = 3;

/// Whether the figures are drawn as panels.
pub(super) fn wanted(groups: &[Group]) -> bool {
    groups.len() > MAX_KERNELS_PER_CHART
}

/// Whether `g` is the sequential CPU order: the reference of Fig. 7 and the baseline of Fig. 5.
fn is_sequential_cpu(g: &Group) -> bool {
    g.algorithm == Algorithm::with_role(PaperRole::Baseline).name() && g.kind == "cpu"
}

fn log_axis(label: &str, values: impl Iterator<Item = f64>) -> Axis {
    let axis = Axis::log(label);
    match decade_range(values) {
        Some((lo, hi)) => axis.with_range(lo, hi),
        None => axis,
    }
}

/// Fig. 7: per topology (star, chain) and op, a panel per kernel with its compute time and its
/// time with transfers; the sequential CPU order is a dashed line in each.
pub(super) fn fig7(h: &mut String, data: &BenchData, groups: &[Group]) -> Result<(), ReportError> {
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
            let x = log_axis("vertices n", rows.iter().map(|r| r.n as f64));
            let y = log_axis(
                "median time per call (s)",
                rows.iter().flat_map(|r| [r.compute_s, total_s(r)]),
            );
            let lines: Vec<RefLine> = groups
                .iter()
                .filter(|g| is_sequential_cpu(g))
                .map(|g| {
                    let mine: Vec<&BenchRecord> =
                        rows.iter().copied().filter(|r| g.has(r)).collect();
                    RefLine {
                        label: format!("{} (cpu), compute", g.algorithm),
                        color: LINE_U_KAPPA,
                        dash: Dash::Dashed,
                        points: by_n(&mine, |r| r.compute_s),
                    }
                })
                .filter(|l| !l.points.is_empty())
                .collect();
            let panels: Vec<Panel> = groups
                .iter()
                .filter(|g| lines.is_empty() || !is_sequential_cpu(g))
                .filter_map(|g| {
                    let mine: Vec<&BenchRecord> =
                        rows.iter().copied().filter(|r| g.has(r)).collect();
                    if mine.is_empty() {
                        return None;
                    }
                    let mut series = Vec::new();
                    let labels = ("compute".to_string(), "compute".to_string());
                    push_pair(
                        &mut series,
                        labels,
                        g.style,
                        &mine,
                        |r| r.compute_s,
                        total_s,
                    );
                    Some(Panel {
                        title: g.label.clone(),
                        chart: Chart::panel(
                            (FIG_W, FIG_H),
                            (x.clone(), y.clone()),
                            series,
                            lines.clone(),
                            Vec::new(),
                        ),
                    })
                })
                .collect();
            let title = format!("{topo}, {op}: time per call versus vertices");
            let shape = if topo == "star" {
                "The star has one level below the root: every vertex but the root is processed at once (the parallel algorithm's best case)."
            } else {
                "The chain (the paper's caterpillar) has n levels of one vertex: the parallel algorithm runs them one after the other (its worst case)."
            };
            let shared: Vec<Entry> = lines.iter().map(line_entry).collect();
            let id = format!("fig-time-{}-{}", id_part(topo), id_part(&op));
            grid(h, &id, &title, &shared, PanelRow::one(panels), |d| {
                let seq = if lines.is_empty() {
                    ""
                } else {
                    " The dashed line, the same in every panel, is the sequential CPU order's compute time."
                };
                escape(&format!(
                    "{shape} One panel per kernel, all on the same axes (both logarithmic); filled markers: compute alone; open markers: compute + transfers (weights up, results down).{seq} {} markers.",
                    d.markers
                ))
            })?;
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
    Ok(())
}

/// Fig. 5: per op, a panel per kernel with its speed-up on two topologies (compute alone and
/// with transfers: four series); more topologies make more rows of panels.
pub(super) fn fig5(
    h: &mut String,
    data: &BenchData,
    groups: &[Group],
    base: &HashMap<(&str, usize, &str), f64>,
) -> Result<(), ReportError> {
    let topologies = data.topologies();
    // Two series (compute, with transfers) per topology.
    let per_panel = MAX_SERIES / 2;
    let seq = |r: &BenchRecord| {
        base.get(&(r.topology.as_str(), r.n, r.op.as_str()))
            .copied()
    };
    let one = RefLine {
        label: "1: as fast as sequential".into(),
        color: LINE_U_KAPPA,
        dash: Dash::Dashed,
        points: vec![(1e-30, 1.0), (1e30, 1.0)],
    };
    for op in data.ops() {
        let compared: Vec<&BenchRecord> = data
            .kernels()
            .filter(|r| r.op == op && r.compute_s > 0.0 && seq(r).is_some())
            .filter(|r| !groups.iter().any(|g| is_sequential_cpu(g) && g.has(r)))
            .collect();
        let title = format!("{op}: speed-up over the sequential CPU order");
        let id = format!("fig-speedup-{}", id_part(&op));
        if compared.is_empty() {
            not_available(
                h,
                &id,
                &title,
                "no row of this op shares its topology and size with a sequential CPU row.",
            );
            continue;
        }
        let x = log_axis("vertices n", compared.iter().map(|r| r.n as f64));
        let y = log_axis(
            // The full description of the single chart does not fit a narrow panel.
            "speed-up (sequential ÷ time)",
            compared
                .iter()
                .flat_map(|r| {
                    let s = seq(r).unwrap_or(f64::NAN);
                    [s / r.compute_s, s / total_s(r)]
                })
                .chain([1.0]),
        );
        let mut rows = Vec::new();
        for chunk in topologies.chunks(per_panel) {
            let panels: Vec<Panel> = groups
                .iter()
                .filter(|g| !is_sequential_cpu(g))
                .filter_map(|g| {
                    let mut series = Vec::new();
                    for topo in chunk {
                        let ti = topologies.iter().position(|t| t == topo).unwrap_or(0);
                        let mine: Vec<&BenchRecord> = compared
                            .iter()
                            .copied()
                            .filter(|r| g.has(r) && &r.topology == topo)
                            .collect();
                        if mine.is_empty() {
                            continue;
                        }
                        let st = SeriesStyle {
                            color: style::palette(ti),
                            shape: g.style.shape,
                        };
                        push_pair(
                            &mut series,
                            (topo.clone(), topo.clone()),
                            st,
                            &mine,
                            |r| seq(r).unwrap_or(f64::NAN) / r.compute_s,
                            |r| seq(r).unwrap_or(f64::NAN) / total_s(r),
                        );
                    }
                    (!series.is_empty()).then(|| Panel {
                        title: g.label.clone(),
                        chart: Chart::panel(
                            (FIG_W, FIG_H),
                            (x.clone(), y.clone()),
                            series,
                            vec![one.clone()],
                            Vec::new(),
                        ),
                    })
                })
                .collect();
            rows.push(PanelRow {
                heading: (topologies.len() > per_panel).then(|| chunk.join(" and ")),
                wide: panels.len() <= 2,
                panels,
            });
        }
        grid(h, &id, &title, &[line_entry(&one)], rows, |d| {
            escape(&format!(
                "Speed-up = sequential CPU time (median) ÷ median time of each kernel on the same tree (dimensionless); above 1 is faster. One panel per kernel, all on the same axes (both logarithmic); colour: topology; filled markers for compute alone, open with the transfers counted. {} markers.",
                d.markers
            ))
        })?;
    }
    Ok(())
}

/// Fig. 4: per topology family (and the tree files) and op, a panel per kernel with its compute
/// and transfer bars per tree, every panel on the same trees and time axis.
pub(super) fn fig4(
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
            let x = Axis::categories(x_label, labels);
            let y = log_axis(
                "median time per call (s)",
                rows.iter().flat_map(|r| {
                    [
                        r.compute_s,
                        r.compute_min_s,
                        r.compute_max_s,
                        r.transfer_s,
                        r.transfer_min_s,
                        r.transfer_max_s,
                    ]
                }),
            );
            let panels: Vec<Panel> = groups
                .iter()
                .filter_map(|g| {
                    let mine: Vec<&BenchRecord> =
                        rows.iter().copied().filter(|r| g.has(r)).collect();
                    if mine.is_empty() {
                        return None;
                    }
                    Some(Panel {
                        title: g.label.clone(),
                        chart: Chart {
                            bars: group_bars(g, &mine, &trees, ""),
                            ..Chart::panel(
                                (FIG_W, FIG_H),
                                (x.clone(), y.clone()),
                                Vec::new(),
                                Vec::new(),
                                Vec::new(),
                            )
                        },
                    })
                })
                .collect();
            let title = format!("{name}, {op}: compute and transfer time per tree");
            let id = format!("fig-per-tree-{}-{}", id_part(name), id_part(&op));
            grid(h, &id, &title, &[], PanelRow::one(panels), |_| {
                "One panel per kernel, all on the same trees and time axis: one group of bars per tree, ordered by vertices, with the compute time (dark) and the transfer time (light, weights up and results down); whiskers span the fastest and slowest repetition. The y axis is logarithmic.".into()
            })?;
        }
    }
    Ok(())
}
