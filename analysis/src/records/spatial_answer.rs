//! The answer of `accuracy spatial` (docs/design.md §12.8), made from its records: per op, each treefix algorithm's lost bits, its time (a
//! GPU kernel's where a bench.csv gives one, else its CPU twin's, labelled) and its energy,
//! depth and estimated cycles on the layout that suits it best, side by side at the largest
//! tree, with what building that layout costs; and the sentences that name the trade-off.

use super::bench::{BenchRecord, is_cpu_backend, time_per_vertex};
use super::spatial::{AnswerRecord, LayoutRecord, PointRecord};
use crate::Op;
use crate::spatial::ALGORITHMS;
use std::collections::HashMap;

/// The last point (the largest tree's) of `pattern` on layout `l`.
fn last<'a>(l: &'a LayoutRecord, pattern: &str, op: Option<Op>) -> Option<&'a PointRecord> {
    l.patterns
        .iter()
        .find(|p| p.pattern == pattern && p.op == op)?
        .points
        .last()
}

/// The larger of two lost-bit figures, a non-finite one the largest.
fn worse(x: f64, y: f64) -> f64 {
    if y > x || y.is_nan() { y } else { x }
}

/// The answer rows of `layouts` (every pattern's points in the order of the trees), for each op
/// of `ops` and each algorithm counted. `twin_s` holds each (algorithm, op)'s CPU twin seconds
/// per vertex at the largest tree; `bench` a bench.csv's records, whose GPU times come first.
pub fn answer(
    layouts: &[LayoutRecord],
    ops: &[Op],
    twin_s: &HashMap<(String, Op), f64>,
    bench: Option<&[BenchRecord]>,
) -> Vec<AnswerRecord> {
    let mut rows = Vec::new();
    for &op in ops {
        for a in ALGORITHMS {
            let name = a.name();
            let candidates: Vec<(&LayoutRecord, &PointRecord, Option<f64>)> = layouts
                .iter()
                .filter_map(|l| {
                    let p = l
                        .patterns
                        .iter()
                        .find(|p| p.pattern == name && p.op == Some(op))?;
                    Some((l, p.points.last()?, p.exponent))
                })
                .collect();
            let Some(least) = candidates.iter().map(|c| c.1.energy).min() else {
                continue;
            };
            let mut tied = candidates.iter().filter(|c| c.1.energy == least);
            let &(best, point, exponent) = tied.next().expect("the least is one of them");
            let tied = tied
                .map(|c| format!("{} {}", c.0.order, c.0.curve))
                .collect();
            let worst_lost_bits = candidates
                .iter()
                .filter_map(|c| c.1.lost_bits)
                .reduce(worse);
            let (time_per_vertex_s, time_source) =
                match bench.and_then(|b| time_per_vertex(b, name, op.name())) {
                    Some((t, backend)) if !is_cpu_backend(&backend) => {
                        (Some(t), format!("GPU kernel: {backend}"))
                    }
                    _ => (
                        twin_s.get(&(name.to_string(), op)).copied(),
                        "CPU twin".to_string(),
                    ),
                };
            let built = last(best, "layout", None).zip(last(best, "virtual-tree", None));
            rows.push(AnswerRecord {
                op,
                algorithm: name.to_string(),
                n: point.n,
                lost_bits: point.lost_bits,
                worst_lost_bits,
                time_per_vertex_s,
                time_source,
                order: best.order,
                curve: best.curve,
                tied,
                energy_per_vertex: point.energy_per_vertex,
                depth: point.depth,
                chain_depth: point.chain_depth,
                congestion: point.congestion,
                cycles: point.cycles,
                exponent,
                construction_energy_per_vertex: built
                    .map(|(l, v)| l.energy_per_vertex + v.energy_per_vertex),
                construction_depth: built.map(|(l, v)| l.depth + v.depth),
            });
        }
    }
    rows
}

/// "light-first hilbert", with the layouts that tie with it.
fn layout(r: &AnswerRecord) -> String {
    let mut s = format!("{} {}", r.order.name(), r.curve.name());
    if !r.tied.is_empty() {
        s += &format!(", tied with {}", r.tied.join(", "));
    }
    s
}

/// "4.2 bits lost", or why there is no figure.
fn bits(r: &AnswerRecord) -> String {
    match r.lost_bits {
        Some(b) if b.is_finite() => format!("{b:.2} bits lost"),
        Some(_) => "a non-finite result".to_string(),
        None => "lost bits not measured".to_string(),
    }
}

/// "3.1× the least", or "the least is 0" where a ratio would divide by zero.
fn ratio(x: f64, least: f64) -> String {
    if least > 0.0 {
        format!("{:.1}× the least", x / least)
    } else if x > 0.0 {
        "the least is 0".to_string()
    } else {
        "as little".to_string()
    }
}

/// Two sentences per op: the least energy, the least depth (every algorithm that reaches it)
/// and what the most accurate algorithms cost beside them; then what building the cheapest
/// algorithm's layout costs, in runs of its messages.
pub fn sentences(rows: &[AnswerRecord], ops: &[Op]) -> Vec<String> {
    let mut out = Vec::new();
    let bits_of = |r: &AnswerRecord| r.lost_bits.unwrap_or(f64::INFINITY);
    for &op in ops {
        let mine: Vec<&AnswerRecord> = rows.iter().filter(|r| r.op == op).collect();
        let (Some(cheapest), Some(depth), Some(fewest)) = (
            mine.iter()
                .min_by(|x, y| x.energy_per_vertex.total_cmp(&y.energy_per_vertex)),
            mine.iter().map(|r| r.depth).min(),
            mine.iter().map(|r| bits_of(r)).min_by(f64::total_cmp),
        ) else {
            continue;
        };
        let names = |rs: Vec<&&AnswerRecord>| {
            rs.iter()
                .map(|r| r.algorithm.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let accurate: Vec<&&AnswerRecord> = mine.iter().filter(|r| bits_of(r) == fewest).collect();
        let best = accurate
            .iter()
            .min_by(|x, y| x.energy_per_vertex.total_cmp(&y.energy_per_vertex))
            .expect("one at least");
        let shallowest = names(mine.iter().filter(|r| r.depth == depth).collect());
        let most_accurate = match accurate.len() {
            1 => format!("the most accurate, {} ({}),", best.algorithm, bits(best)),
            _ => format!(
                "the most accurate ({}) are {}, and the cheapest of them, {},",
                bits(best),
                names(accurate.clone()),
                best.algorithm
            ),
        };
        out.push(format!(
            "{op} on a spatial computer (n={}): the least energy is {}'s ({:.2} per vertex, depth {}, \
             {}; {}); the least depth, {depth}, is {shallowest}'s; {most_accurate} \
             costs {:.2} per vertex ({}) at depth {} ({}).",
            best.n,
            cheapest.algorithm,
            cheapest.energy_per_vertex,
            cheapest.depth,
            layout(cheapest),
            bits(cheapest),
            best.energy_per_vertex,
            ratio(best.energy_per_vertex, cheapest.energy_per_vertex),
            best.depth,
            layout(best),
        ));
        out.push(match (cheapest.construction_energy_per_vertex, cheapest.construction_depth) {
            (Some(e), Some(d)) => format!(
                "Building {} {} from the input costs {e:.2} per vertex at depth {d}, once per tree: \
                 as much energy as {} runs of {}'s messages.",
                cheapest.order.name(),
                cheapest.curve.name(),
                match cheapest.energy_per_vertex > 0.0 {
                    true => format!("{:.1}", e / cheapest.energy_per_vertex),
                    false => "unboundedly many".to_string(),
                },
                cheapest.algorithm,
            ),
            _ => format!(
                "Building {} {} is not counted.",
                cheapest.order.name(),
                cheapest.curve.name()
            ),
        });
    }
    out
}
