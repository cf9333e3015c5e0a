//! The answer on a spatial computer: per op, each treefix algorithm's lost bits, its time (a
//! GPU kernel's where a bench.csv gives one, else its CPU twin's, labelled) and its energy and
//! depth on the layout that suits it best, side by side at the largest tree; and the sentences
//! that name the trade-off (the correctly rounded algorithm's price in energy and depth).

use crate::Op;
use crate::records::bench::{BenchRecord, is_cpu_backend, time_per_vertex};
use crate::records::spatial::{AnswerRecord, LayoutRecord, PointRecord};
use crate::spatial::ALGORITHMS;
use std::collections::HashMap;

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
            // The last point of each layout is the largest tree's.
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
            let Some(&(best, point, exponent)) =
                candidates.iter().min_by(|x, y| x.1.energy.cmp(&y.1.energy))
            else {
                continue;
            };
            let lost_bits = candidates
                .iter()
                .filter_map(|c| c.1.lost_bits)
                .reduce(|x, y| if y > x || y.is_nan() { y } else { x });
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
            rows.push(AnswerRecord {
                op,
                algorithm: name.to_string(),
                n: point.n,
                lost_bits,
                time_per_vertex_s,
                time_source,
                order: best.order,
                curve: best.curve,
                energy_per_vertex: point.energy_per_vertex,
                depth: point.depth,
                exponent,
            });
        }
    }
    rows
}

/// One sentence per op: the least energy, the least depth (every algorithm that reaches it),
/// and what the most accurate algorithm (the correctly rounded one when it was counted) costs
/// beside them.
pub fn sentences(rows: &[AnswerRecord], ops: &[Op]) -> Vec<String> {
    let mut out = Vec::new();
    let bits_of = |r: &AnswerRecord| r.lost_bits.unwrap_or(f64::INFINITY);
    for &op in ops {
        let mine: Vec<&AnswerRecord> = rows.iter().filter(|r| r.op == op).collect();
        let (Some(cheapest), Some(depth), Some(best)) = (
            mine.iter()
                .min_by(|x, y| x.energy_per_vertex.total_cmp(&y.energy_per_vertex)),
            mine.iter().map(|r| r.depth).min(),
            mine.iter().min_by(|x, y| bits_of(x).total_cmp(&bits_of(y))),
        ) else {
            continue;
        };
        let shallowest: Vec<&str> = mine
            .iter()
            .filter(|r| r.depth == depth)
            .map(|r| r.algorithm.as_str())
            .collect();
        let bits = |r: &AnswerRecord| match r.lost_bits {
            Some(b) if b.is_finite() => format!("{b:.2} bits lost"),
            Some(_) => "a non-finite result".to_string(),
            None => "lost bits not measured".to_string(),
        };
        let layout = |r: &AnswerRecord| format!("{} {}", r.order.name(), r.curve.name());
        out.push(format!(
            "{op} on a spatial computer (n={}): the least energy is {}'s ({:.2} per vertex, depth {}, {}; {}); \
             the least depth, {depth}, is {}'s; the most accurate, {} ({}), costs {:.2} per vertex \
             ({:.1}× the least) at depth {} ({}).",
            best.n,
            cheapest.algorithm,
            cheapest.energy_per_vertex,
            cheapest.depth,
            layout(cheapest),
            bits(cheapest),
            shallowest.join(", "),
            best.algorithm,
            bits(best),
            best.energy_per_vertex,
            best.energy_per_vertex / cheapest.energy_per_vertex,
            best.depth,
            layout(best),
        ));
    }
    out
}
