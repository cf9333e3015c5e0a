//! What the performance figures share, single charts and small multiples alike: the kernels
//! as series (an algorithm on a kind of backend, drawn in its registered look), their points
//! over the tree size, and Fig. 4's trees and bars.

use super::{BenchData, backend_kind};
use crate::fmt::pow2_label;
use crate::plots::{Bars, Series};
use crate::style::{self, SeriesStyle};
use analysis::records::bench::BenchRecord;

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
/// algorithms measured on both. Each is drawn in its algorithm's registered look, as in
/// report.html: the GPU kernel in the rootfix colour and filled marker, a CPU twin of an
/// algorithm also measured on the GPU in the leaffix colour and open marker; an algorithm the
/// registry does not know takes the next look of the palette.
pub(super) fn groups(data: &BenchData) -> Vec<Group> {
    let mut pairs: Vec<(String, &'static str)> = Vec::new();
    for r in data.kernels() {
        let p = (r.algorithm.clone(), backend_kind(&r.backend));
        if !pairs.contains(&p) {
            pairs.push(p);
        }
    }
    let mut unknown: Vec<&str> = Vec::new();
    pairs
        .iter()
        .map(|(a, kind)| {
            let both = pairs.iter().filter(|(b, _)| b == a).count() > 1;
            let extra = if a.parse::<analysis::Algorithm>().is_ok() {
                0
            } else {
                unknown.iter().position(|u| u == a).unwrap_or_else(|| {
                    unknown.push(a);
                    unknown.len() - 1
                })
            };
            // The second look of the algorithm tells a CPU twin from its kernel.
            let own = style::series_style(a, extra);
            Group {
                algorithm: a.clone(),
                kind,
                label: if both {
                    format!("{a} ({kind})")
                } else {
                    a.clone()
                },
                style: if both && *kind == "cpu" {
                    style::second_series(own)
                } else {
                    own
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

/// `n` as `2ᵏ` when it is a power of two.
pub(super) fn size_label(n: usize) -> String {
    if n.is_power_of_two() {
        pow2_label(n.trailing_zeros() as i32)
    } else {
        n.to_string()
    }
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
