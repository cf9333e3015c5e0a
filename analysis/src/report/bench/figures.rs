//! The paper's performance figures (Fig. 7, 5 and 4) from the kernel rows of `bench.csv`.

use super::{BenchData, backend_kind, is_file, small_multiples};
use crate::Algorithm;
use crate::algorithms::PaperRole;
use crate::records::bench::BenchRecord;
use crate::report::ReportError;
use crate::report::figure::{FIG_H, FIG_W, figure, not_available};
use crate::report::fmt::{escape, pow2_label};
use crate::report::plots::{self, Axis, Bars, Chart, Dash, RefLine, Series};
use crate::report::style::{self, LINE_U_KAPPA, SeriesStyle};
use std::collections::HashMap;

/// The paper's caterpillar is this project's `chain`; the star is the star.
pub(super) const FIG7_TOPOLOGIES: [&str; 2] = ["star", "chain"];

/// One algorithm on one kind of backend: a series of every figure, with its colour and shape.
pub(super) struct Group {
    pub(super) algorithm: String,
    pub(super) kind: &'static str,
    pub(super) label: String,
    pub(super) style: SeriesStyle,
}

impl Group {
    pub(super) fn has(&self, r: &BenchRecord) -> bool {
        r.algorithm == self.algorithm && backend_kind(&r.backend) == self.kind
    }
}

/// The (algorithm, backend kind) pairs of the kernel rows; the backend kind is named only for
/// algorithms measured on both.
pub(super) fn groups(data: &BenchData) -> Vec<Group> {
    let mut pairs: Vec<(String, &'static str)> = Vec::new();
    for r in data.kernels() {
        let p = (r.algorithm.clone(), backend_kind(&r.backend));
        if !pairs.contains(&p) {
            pairs.push(p);
        }
    }
    pairs
        .iter()
        .enumerate()
        .map(|(i, (a, kind))| {
            let both = pairs.iter().filter(|(b, _)| b == a).count() > 1;
            Group {
                algorithm: a.clone(),
                kind,
                label: if both {
                    format!("{a} ({kind})")
                } else {
                    a.clone()
                },
                style: SeriesStyle {
                    color: style::palette(i),
                    shape: style::filled_shape(i),
                },
            }
        })
        .collect()
}

pub(super) fn total_s(r: &BenchRecord) -> f64 {
    r.compute_s + r.transfer_s
}

pub(super) fn id_part(s: &str) -> String {
    s.replace(|c: char| !c.is_ascii_alphanumeric(), "-")
}

/// Points of `rows` sorted by n.
pub(super) fn by_n(rows: &[&BenchRecord], f: impl Fn(&BenchRecord) -> f64) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = rows.iter().map(|r| (r.n as f64, f(r))).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// A connected series of `compute(r)` over n in style `st`, and, where the rows have transfers,
/// one of `with_transfers(r)` in the open variant of its marker, labelled `labels.0` and
/// `labels.1 + transfers`.
pub(super) fn push_pair(
    series: &mut Vec<Series>,
    labels: (String, String),
    st: SeriesStyle,
    rows: &[&BenchRecord],
    compute: impl Fn(&BenchRecord) -> f64,
    with_transfers: impl Fn(&BenchRecord) -> f64,
) {
    let line = |label: String, style: SeriesStyle, points: Vec<(f64, f64)>| Series {
        label,
        style,
        points,
        size: 4,
        connect: true,
        opacity: 1.0,
    };
    series.push(line(labels.0, st, by_n(rows, compute)));
    if rows.iter().any(|r| r.transfer_s > 0.0) {
        let open = SeriesStyle {
            color: st.color,
            shape: style::open_variant(st.shape),
        };
        let label = format!("{} + transfers", labels.1);
        series.push(line(label, open, by_n(rows, with_transfers)));
    }
}

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
        for (gi, g) in groups.iter().enumerate() {
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
                    shape: style::filled_shape(gi),
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

/// `n` as `2ᵏ` when it is a power of two.
pub(super) fn size_label(n: usize) -> String {
    if n.is_power_of_two() {
        pow2_label(n.trailing_zeros() as i32)
    } else {
        n.to_string()
    }
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

/// The trees of Fig. 4's `rows` (one category each, by size; files by size, then name) and
/// their labels: the size of a family's tree, the name of a file.
pub(super) fn trees_of(
    rows: &[&BenchRecord],
    members: &[&String],
) -> (Vec<(usize, String)>, Vec<String>) {
    let mut trees: Vec<(usize, String)> = rows.iter().map(|r| (r.n, r.topology.clone())).collect();
    trees.sort();
    trees.dedup();
    let labels = trees
        .iter()
        .map(|(n, t)| {
            if members.len() > 1 {
                t.clone()
            } else {
                size_label(*n)
            }
        })
        .collect();
    (trees, labels)
}

/// The bars of one group over `trees`: its compute time (dark) and, where it has transfers,
/// its transfer time (light), labelled `prefix` + `compute` / `transfers`.
pub(super) fn group_bars(
    g: &Group,
    mine: &[&BenchRecord],
    trees: &[(usize, String)],
    prefix: &str,
) -> Vec<Bars> {
    let mut compute = vec![None; trees.len()];
    let mut compute_r = vec![None; trees.len()];
    let mut transfer = vec![None; trees.len()];
    let mut transfer_r = vec![None; trees.len()];
    for r in mine {
        if let Some(i) = trees
            .iter()
            .position(|(n, t)| *n == r.n && *t == r.topology)
        {
            compute[i] = Some(r.compute_s);
            compute_r[i] = Some((r.compute_min_s, r.compute_max_s));
            if r.transfer_s > 0.0 {
                transfer[i] = Some(r.transfer_s);
                transfer_r[i] = Some((r.transfer_min_s, r.transfer_max_s));
            }
        }
    }
    let mut bars = vec![Bars {
        label: format!("{prefix}compute"),
        color: g.style.color,
        values: compute,
        ranges: compute_r,
    }];
    if transfer.iter().any(Option::is_some) {
        bars.push(Bars {
            label: format!("{prefix}transfers"),
            color: style::lighter(g.style.color, 0.45),
            values: transfer,
            ranges: transfer_r,
        });
    }
    bars
}

/// What one Fig. 4 chart (a topology family and an op) draws: its kernels' rows, its trees
/// (ordered by vertices) with their axis labels, and the x axis's title.
pub(super) struct PerTree<'a> {
    pub rows: Vec<&'a BenchRecord>,
    pub trees: Vec<(usize, String)>,
    pub labels: Vec<String>,
    pub x_label: &'static str,
}

impl<'a> PerTree<'a> {
    /// `None` when no kernel ran `op` on the family `members`.
    pub fn of(data: &'a BenchData, members: &[&String], op: &str) -> Option<PerTree<'a>> {
        let rows: Vec<&BenchRecord> = data
            .kernels()
            .filter(|r| members.contains(&&r.topology) && r.op == op)
            .collect();
        if rows.is_empty() {
            return None;
        }
        let (trees, labels) = trees_of(&rows, members);
        Some(PerTree {
            rows,
            trees,
            labels,
            x_label: if members.len() > 1 {
                "tree file (by vertices)"
            } else {
                "vertices n (one tree per size)"
            },
        })
    }
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
