//! The answer a reader comes for — which algorithm to use on these trees, and what it costs —
//! computed from the sweep's numbers: per op, each algorithm's largest loss in every topology
//! and κ band, its time relative to the fastest, and one sentence naming the cheapest
//! algorithm that meets [`TARGET_BITS`].

use super::data::ReportData;
use super::fmt::{fixed, sci};
use crate::records::bench::BenchRecord;
use serde_json::Value;

/// The accuracy an algorithm must reach to be recommended: at most this many lost bits
/// (relative error ≤ 2^(1 − 24) = 2u, about one ulp) at every node of every tree of the sweep.
pub const TARGET_BITS: f64 = 1.0;

/// One cell: the largest loss over the trees of a topology and κ band, and the largest
/// distance from the correctly rounded result, where results.csv has `max_ulps`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub bits: f64,
    pub ulps: Option<f64>,
    pub trees: usize,
}

/// One line of the table: a topology (or tree file) and κ band (the sweep's target).
#[derive(Debug, Clone)]
pub struct Line {
    pub topology: String,
    pub target: f64,
    /// Per algorithm of [`OpAnswer::algorithms`]; `None` where it did not run.
    pub cells: Vec<Option<Cell>>,
}

/// What an algorithm's values cost, from this run's own timings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    /// Seconds per vertex (kernel or CPU twin, without reference, errors and bounds).
    pub per_vertex_s: f64,
    /// Against the fastest algorithm of the op (1 for the fastest).
    pub relative: f64,
}

/// The answer for one op.
#[derive(Debug, Clone)]
pub struct OpAnswer {
    pub op: String,
    pub algorithms: Vec<String>,
    pub lines: Vec<Line>,
    /// Per algorithm: its largest loss and ulps over every line.
    pub worst: Vec<Option<Cell>>,
    /// Per algorithm, where this run timed it.
    pub costs: Vec<Option<Cost>>,
    /// Where each algorithm's values were computed (`cpu` or the adapter), per algorithm.
    pub backends: Vec<String>,
    /// Where the times come from, in words ("times from …", "no times: …").
    pub cost_source: String,
    pub sentence: String,
}

impl OpAnswer {
    /// Whether algorithm `i` meets [`TARGET_BITS`] in every line of the table.
    pub fn meets(&self, i: usize) -> bool {
        self.lines.iter().all(|l| {
            l.cells
                .get(i)
                .copied()
                .flatten()
                .is_some_and(|c| c.bits <= TARGET_BITS)
        })
    }
}

/// The answer per op, in the report's op order.
pub fn answers(data: &ReportData) -> Vec<OpAnswer> {
    let keys = data.series_keys();
    let timings = kernel_times(data);
    data.ops()
        .into_iter()
        .map(|op| {
            let algorithms: Vec<String> = keys
                .iter()
                .filter(|(o, _)| *o == op)
                .map(|(_, a)| a.clone())
                .collect();
            let lines = lines(data, &op, &algorithms);
            let worst = (0..algorithms.len())
                .map(|i| {
                    lines.iter().filter_map(|l| l.cells[i]).reduce(|a, b| Cell {
                        bits: a.bits.max(b.bits),
                        ulps: max_opt(a.ulps, b.ulps),
                        trees: a.trees + b.trees,
                    })
                })
                .collect();
            let own: Vec<Option<f64>> = algorithms
                .iter()
                .map(|a| timings.iter().find(|t| t.0 == *a && t.1 == op).map(|t| t.2))
                .collect();
            let mut backends: Vec<String> = algorithms
                .iter()
                .map(|a| {
                    data.rows
                        .iter()
                        .find(|r| r.op == op && r.algorithm == *a)
                        .map_or_else(String::new, |r| r.backend.clone())
                })
                .collect();
            let own_source = if own.iter().any(Option::is_some) {
                "times from this run's own timings"
            } else {
                "no times: this run has no per-algorithm timings"
            };
            // bench.csv's times where it timed every algorithm of the op: one source for
            // every ratio.
            let (per_vertex, cost_source) = match &data.bench {
                Some((path, records)) => {
                    let timed: Vec<Option<(f64, String)>> = algorithms
                        .iter()
                        .map(|a| bench_time(records, a, &op))
                        .collect();
                    let name = path.file_name().unwrap_or_default().to_string_lossy();
                    if timed.iter().all(Option::is_some) {
                        let (times, from): (Vec<_>, Vec<_>) =
                            timed.into_iter().flatten().map(|(t, b)| (Some(t), b)).unzip();
                        backends = from;
                        (
                            times,
                            format!("times from {name}: each algorithm's median compute time per vertex at its largest size, the median over its topologies"),
                        )
                    } else {
                        let missing: Vec<String> = algorithms
                            .iter()
                            .zip(&timed)
                            .filter(|(_, t)| t.is_none())
                            .map(|(a, _)| a.clone())
                            .collect();
                        (
                            own,
                            format!("{own_source} ({name} has no {op} time for {})", few(&missing)),
                        )
                    }
                }
                None => (own, own_source.to_string()),
            };
            let fastest = per_vertex
                .iter()
                .flatten()
                .copied()
                .filter(|s| *s > 0.0)
                .reduce(f64::min);
            // Relative times only when every algorithm was timed: a ratio against a subset
            // would name the wrong fastest.
            let costs = match fastest {
                Some(f) if per_vertex.iter().all(Option::is_some) => per_vertex
                    .iter()
                    .map(|s| {
                        s.map(|s| Cost {
                            per_vertex_s: s,
                            relative: s / f,
                        })
                    })
                    .collect(),
                _ => vec![None; algorithms.len()],
            };
            let mut answer = OpAnswer {
                op,
                algorithms,
                lines,
                worst,
                costs,
                backends,
                cost_source,
                sentence: String::new(),
            };
            answer.sentence = sentence(&answer);
            answer
        })
        .collect()
}

fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// One line per topology × κ target, topologies in order of appearance, targets ascending.
fn lines(data: &ReportData, op: &str, algorithms: &[String]) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for topology in data.topologies() {
        let mut targets: Vec<f64> = data
            .rows
            .iter()
            .filter(|r| r.op == op && r.tree_label() == topology)
            .map(|r| r.target_cond)
            .collect();
        targets.sort_by(f64::total_cmp);
        targets.dedup_by(|a, b| a.to_bits() == b.to_bits());
        for target in targets {
            let cells = algorithms
                .iter()
                .map(|a| {
                    data.rows
                        .iter()
                        .filter(|r| {
                            r.op == op
                                && r.algorithm == *a
                                && r.tree_label() == topology
                                && r.target_cond.to_bits() == target.to_bits()
                        })
                        .map(|r| Cell {
                            // NaN never compares: an unusable loss counts as infinite.
                            bits: if r.max_lost_bits.is_nan() {
                                f64::INFINITY
                            } else {
                                r.max_lost_bits
                            },
                            ulps: r.max_ulps,
                            trees: 1,
                        })
                        .reduce(|a, b| Cell {
                            bits: a.bits.max(b.bits),
                            ulps: max_opt(a.ulps, b.ulps),
                            trees: a.trees + b.trees,
                        })
                })
                .collect();
            out.push(Line {
                topology: topology.clone(),
                target,
                cells,
            });
        }
    }
    out
}

/// (algorithm, op, seconds per vertex) from summary.json's `timings.kernels`.
fn kernel_times(data: &ReportData) -> Vec<(String, String, f64)> {
    let Some(list) = data
        .summary_field("timings")
        .and_then(|t| t.get("kernels"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    let mut out: Vec<(String, String, f64, f64)> = Vec::new();
    for k in list {
        let (Some(a), Some(o), Some(s), Some(v)) = (
            k.get("algorithm").and_then(Value::as_str),
            k.get("op").and_then(Value::as_str),
            k.get("compute_s").and_then(Value::as_f64),
            k.get("vertices").and_then(Value::as_f64),
        ) else {
            continue;
        };
        match out.iter_mut().find(|x| x.0 == a && x.1 == o) {
            Some(x) => {
                x.2 += s;
                x.3 += v;
            }
            None => out.push((a.to_string(), o.to_string(), s, v)),
        }
    }
    out.into_iter()
        .filter(|x| x.3 > 0.0)
        .map(|(a, o, s, v)| (a, o, s / v))
        .collect()
}

/// An algorithm's time per vertex on `op` by bench.csv, and where it ran: at the largest size
/// it was benchmarked at, the median over the topologies of its median compute time per
/// vertex.
fn bench_time(records: &[BenchRecord], algorithm: &str, op: &str) -> Option<(f64, String)> {
    let mine: Vec<&BenchRecord> = records
        .iter()
        .filter(|r| r.algorithm == algorithm && r.op == op && r.n > 0)
        .collect();
    let n = mine.iter().map(|r| r.n).max()?;
    let mut per_vertex: Vec<f64> = mine
        .iter()
        .filter(|r| r.n == n)
        .map(|r| r.compute_s / r.n as f64)
        .collect();
    let backend = mine.iter().find(|r| r.n == n)?.backend.clone();
    Some((crate::stats::median(&mut per_vertex)?, backend))
}

/// At most three names in a row: more are counted, not listed.
pub fn few(names: &[String]) -> String {
    match names.len() {
        0 => String::new(),
        1 => names[0].clone(),
        2 => format!("{} and {}", names[0], names[1]),
        3 => format!("{}, {} and {}", names[0], names[1], names[2]),
        k => format!("{}, {} and {} others", names[0], names[1], k - 2),
    }
}

/// `1.9×`, `12×`.
pub fn times(x: f64) -> String {
    if x < 10.0 {
        format!("{}×", fixed(x, 1))
    } else {
        format!("{}×", fixed(x, 0))
    }
}

/// A loss in words: `0 ulps` style detail where results.csv has the ulps.
fn loss(c: &Cell) -> String {
    let bits = if c.bits.is_finite() {
        format!("{} bits", fixed(c.bits, 1))
    } else {
        "an infinite loss (a NaN or ±∞ result)".into()
    };
    match c.ulps {
        Some(0.0) => format!("{bits} (correctly rounded at every node)"),
        Some(u) => format!("{bits}, {} ulps", sci(u)),
        None => bits,
    }
}

/// The recommendation for one op, from the table's numbers.
fn sentence(a: &OpAnswer) -> String {
    let op = &a.op;
    let n = a.algorithms.len();
    let bands = a.lines.len();
    let scope = format!(
        "in every topology and κ band of this sweep ({bands} line{} of the table)",
        if bands == 1 { "" } else { "s" }
    );
    let target = format!(
        "lost at most {} bit (relative error ≤ 2⁻²³, about one ulp) at every node",
        fixed(TARGET_BITS, 0)
    );
    let timed = a.costs.iter().all(Option::is_some) && n > 0;
    let fastest = timed
        .then(|| {
            (0..n).min_by(|&i, &j| {
                a.costs[i]
                    .unwrap()
                    .relative
                    .total_cmp(&a.costs[j].unwrap().relative)
            })
        })
        .flatten();
    let meeting: Vec<usize> = (0..n).filter(|&i| a.meets(i)).collect();
    let worst = |i: usize| a.worst[i].map(|c| loss(&c)).unwrap_or_default();
    if n == 0 {
        return format!("{op}: no algorithm ran.");
    }
    if meeting.is_empty() {
        let best = (0..n).filter(|&i| a.worst[i].is_some()).min_by(|&i, &j| {
            let (x, y) = (a.worst[i].unwrap(), a.worst[j].unwrap());
            x.bits.total_cmp(&y.bits)
        });
        let Some(best) = best else {
            return format!("{op}: no algorithm has results.");
        };
        let cost = match fastest {
            Some(f) if f == best => "; it is also the fastest".to_string(),
            Some(f) => format!(
                ", and its values took {} the time of the fastest, {}",
                times(a.costs[best].unwrap().relative),
                a.algorithms[f]
            ),
            None => String::new(),
        };
        return format!(
            "{op}: no algorithm {target} {scope}; the most accurate, {}, lost up to {}{cost}.",
            a.algorithms[best],
            worst(best)
        );
    }
    match fastest {
        Some(f) => {
            let pick = *meeting
                .iter()
                .min_by(|&&i, &&j| {
                    a.costs[i]
                        .unwrap()
                        .relative
                        .total_cmp(&a.costs[j].unwrap().relative)
                })
                .unwrap();
            let cost = if pick == f {
                "; it is also the fastest".to_string()
            } else {
                format!(
                    "; its values took {} the time of the fastest, {} (which lost up to {})",
                    times(a.costs[pick].unwrap().relative),
                    a.algorithms[f],
                    worst(f)
                )
            };
            let others = meeting.len() - 1;
            let also = if others > 0 {
                format!(
                    " ({others} other{} also met it, at more cost)",
                    if others == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            };
            format!(
                "{op}: use {} — the cheapest algorithm that {target} {scope}{also}: its worst was {}{cost}.",
                a.algorithms[pick],
                worst(pick)
            )
        }
        None => {
            let names: Vec<String> = meeting.iter().map(|&i| a.algorithms[i].clone()).collect();
            format!(
                "{op}: {} {} {target} {scope}; this run has no per-algorithm timings (summary.json without timings.kernels), so which costs least is not known.",
                few(&names),
                if names.len() == 1 {
                    "is the only algorithm that"
                } else {
                    "are the algorithms that"
                }
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::data::ResultRow;

    fn row(tree: usize, algo: &str, op: &str, topology: &str, bits: f64) -> ResultRow {
        ResultRow::for_test(tree, topology, 1e4, (algo, op), bits)
    }

    /// Three algorithms on two topologies: `a` is fast and loses 10 bits, `b` takes 3× as
    /// long and loses at most 1, `c` takes 5× and is exact; per-vertex times in summary.json.
    fn data(timed: bool) -> ReportData {
        let mut rows = Vec::new();
        for (t, topology) in ["chain", "star"].into_iter().enumerate() {
            rows.push(row(t, "a", "rootfix", topology, 10.0));
            rows.push(row(
                t,
                "b",
                "rootfix",
                topology,
                if t == 0 { 1.0 } else { 0.5 },
            ));
            rows.push(row(t, "c", "rootfix", topology, 0.0));
        }
        let kernels: Vec<Value> = [("a", 1.0), ("b", 3.0), ("c", 5.0)]
            .iter()
            .map(|(a, s)| {
                serde_json::json!({"algorithm": a, "op": "rootfix", "backend": "cpu",
                    "compute_s": s * 1e-6, "trees": 2, "vertices": 200})
            })
            .collect();
        ReportData {
            dir: "d".into(),
            rows,
            header: vec![],
            raw: vec![],
            bound_columns: vec![],
            nodes: None,
            summary: timed.then(|| serde_json::json!({"timings": {"kernels": kernels}})),
            params: None,
            bounds_table: None,
            bench: None,
        }
    }

    #[test]
    fn the_cheapest_algorithm_within_one_bit_and_its_cost() {
        let a = &answers(&data(true))[0];
        assert_eq!(a.lines.len(), 2);
        assert!(!a.meets(0) && a.meets(1) && a.meets(2));
        assert!((a.costs[1].unwrap().relative - 3.0).abs() < 1e-12);
        assert!(
            a.sentence
                .starts_with("rootfix: use b — the cheapest algorithm that lost at most 1 bit"),
            "{}",
            a.sentence
        );
        assert!(
            a.sentence.contains("(1 other also met it, at more cost): its worst was 1.0 bits; its values took 3.0× the time of the fastest, a (which lost up to 10.0 bits)."),
            "{}",
            a.sentence
        );
    }

    #[test]
    fn without_timings_or_without_a_winner_the_sentence_says_so() {
        let a = &answers(&data(false))[0];
        assert!(a.costs.iter().all(Option::is_none));
        assert!(
            a.sentence
                .starts_with("rootfix: b and c are the algorithms that lost at most 1 bit")
                && a.sentence.ends_with("so which costs least is not known."),
            "{}",
            a.sentence
        );
        let mut d = data(true);
        d.rows.retain(|r| r.algorithm == "a");
        let a = &answers(&d)[0];
        assert_eq!(
            a.sentence,
            "rootfix: no algorithm lost at most 1 bit (relative error ≤ 2⁻²³, about one ulp) at every node in every topology and κ band of this sweep (2 lines of the table); the most accurate, a, lost up to 10.0 bits; it is also the fastest."
        );
    }

    /// A bench.csv row: `algorithm` on `op` took `ns` per vertex on a tree of `n` vertices.
    fn bench_row(algorithm: &str, op: &str, topology: &str, n: usize, ns: f64) -> BenchRecord {
        BenchRecord {
            topology: topology.into(),
            n,
            height: 1,
            op: op.into(),
            algorithm: algorithm.into(),
            backend: "gpu: test".into(),
            compute_s: ns * 1e-9 * n as f64,
            compute_min_s: 0.0,
            compute_max_s: 0.0,
            transfer_s: 0.0,
            transfer_min_s: 0.0,
            transfer_max_s: 0.0,
            bytes_moved: 0,
            reps: 1,
        }
    }

    #[test]
    fn bench_times_replace_the_runs_own_where_they_cover_every_algorithm() {
        // c is the cheapest on the device: at the largest size its median over topologies is
        // 2 ns (1 and 2 and 3), b's 4, a's 8; the smaller trees do not count.
        let mut records = Vec::new();
        for (t, (a, b, c)) in [(8.0, 4.0, 1.0), (8.0, 4.0, 2.0), (8.0, 4.0, 3.0)]
            .into_iter()
            .enumerate()
        {
            let topology = format!("t{t}");
            for (algo, ns) in [("a", a), ("b", b), ("c", c)] {
                records.push(bench_row(algo, "rootfix", &topology, 1 << 20, ns));
                records.push(bench_row(algo, "rootfix", &topology, 1 << 10, 1000.0 * ns));
            }
        }
        let mut d = data(true);
        d.bench = Some(("runs/bench.csv".into(), records.clone()));
        let a = &answers(&d)[0];
        assert!(
            a.cost_source.starts_with("times from bench.csv: "),
            "{}",
            a.cost_source
        );
        let per_vertex: Vec<f64> = a.costs.iter().map(|c| c.unwrap().per_vertex_s).collect();
        assert_eq!(per_vertex, [8e-9, 4e-9, 2e-9]);
        assert!(a.backends.iter().all(|b| b == "gpu: test"));
        assert!(
            a.sentence
                .starts_with("rootfix: use c — the cheapest algorithm that lost at most 1 bit")
                && a.sentence.ends_with("it is also the fastest."),
            "{}",
            a.sentence
        );
        // Without c's times the ratios would mix sources: the run's own are used, and the
        // table says why.
        records.retain(|r| r.algorithm != "c");
        d.bench = Some(("bench.csv".into(), records));
        let a = &answers(&d)[0];
        assert_eq!(
            a.cost_source,
            "times from this run's own timings (bench.csv has no rootfix time for c)"
        );
        assert!((a.costs[1].unwrap().relative - 3.0).abs() < 1e-12);
    }

    #[test]
    fn few_names_at_most_three() {
        let n = |k: usize| (0..k).map(|i| format!("x{i}")).collect::<Vec<_>>();
        assert_eq!(few(&n(3)), "x0, x1 and x2");
        assert_eq!(few(&n(8)), "x0, x1 and 6 others");
    }
}
