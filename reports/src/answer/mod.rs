//! The answer a reader comes for — which algorithm to use on these trees, and what it costs —
//! computed from the sweep's numbers: per op, each algorithm's largest loss in every topology
//! and κ band, its time (GPU kernel or CPU twin) relative to the fastest of the same kind, and
//! one sentence naming the cheapest algorithm that stays within the threshold of lost bits.

pub mod bands;
mod cost;
mod hint;
mod sentence;
#[cfg(test)]
mod tests;

pub use bands::BandPick;
pub use cost::{Cost, Costs, Place, Time};
pub use hint::bench_hint;

use super::data::ReportData;
use super::fmt::fixed;
use analysis::Algorithm;

/// The threshold when none is given: at most this many lost bits (relative error ≤
/// 2^(1 − 24) = 2u, about one ulp) at every node of every tree of the sweep.
pub const DEFAULT_MAX_LOST_BITS: f64 = 1.0;

/// The accuracy an algorithm must reach to be recommended, and who set it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Threshold {
    pub bits: f64,
    /// Set with `--max-lost-bits` (on `sweep` or `report`); else the default.
    pub given: bool,
}

impl Threshold {
    pub fn of(data: &ReportData) -> Threshold {
        match data.max_lost_bits {
            Some(bits) => Threshold { bits, given: true },
            None => Threshold {
                bits: DEFAULT_MAX_LOST_BITS,
                given: false,
            },
        }
    }
    /// "1 bit", "12 bits", "2.5 bits".
    pub fn text(self) -> String {
        let b = if self.bits.fract() == 0.0 {
            fixed(self.bits, 0)
        } else {
            analysis::format::f64_shortest(self.bits)
        };
        format!("{b} bit{}", if self.bits == 1.0 { "" } else { "s" })
    }
}

/// One cell: the largest loss over the trees of a topology and κ band, and the largest
/// distance from the correctly rounded result, where results.csv has `max_ulps`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub bits: f64,
    pub ulps: Option<f64>,
    pub trees: usize,
}

impl Cell {
    fn max(a: Cell, b: Cell) -> Cell {
        Cell {
            bits: a.bits.max(b.bits),
            ulps: max_opt(a.ulps, b.ulps),
            trees: a.trees + b.trees,
        }
    }
}

/// One line of the table: a topology (or tree file) and κ band (the sweep's target).
#[derive(Debug, Clone)]
pub struct Line {
    pub topology: String,
    pub target: f64,
    /// Per algorithm of [`OpAnswer::algorithms`]; `None` where it did not run.
    pub cells: Vec<Option<Cell>>,
}

/// The answer for one op.
#[derive(Debug, Clone)]
pub struct OpAnswer {
    pub op: String,
    pub algorithms: Vec<String>,
    pub lines: Vec<Line>,
    /// Per algorithm: its largest loss and ulps over every line.
    pub worst: Vec<Option<Cell>>,
    /// Per algorithm, where a time exists, and what the ratios compare.
    pub costs: Costs,
    pub threshold: Threshold,
    /// Correctly rounded algorithms of the registry this sweep did not run (they would meet
    /// any threshold), and the `--algos` value that adds them.
    pub not_run: Option<(Vec<String>, String)>,
    /// The algorithm the sentence names: the cheapest within the threshold by the compared
    /// times, or, when none is within it, the most accurate.
    pub pick: Option<usize>,
    /// The choice per range of κ bands, over every topology.
    pub bands: Vec<BandPick>,
    /// Per topology whose choices per κ band differ from [`OpAnswer::bands`], its own.
    pub by_topology: Vec<(String, Vec<BandPick>)>,
    /// The choice and its price, in one short line.
    pub sentence: String,
    /// The lines under it: per κ band, the threshold, the times, what was not run.
    pub details: Vec<String>,
}

impl OpAnswer {
    /// Whether algorithm `i` stays within the threshold in every line of the table.
    pub fn meets(&self, i: usize) -> bool {
        self.lines.iter().all(|l| {
            l.cells
                .get(i)
                .copied()
                .flatten()
                .is_some_and(|c| c.bits <= self.threshold.bits)
        })
    }
}

/// The answer per op, in the report's op order.
pub fn answers(data: &ReportData) -> Vec<OpAnswer> {
    let keys = data.series_keys();
    let threshold = Threshold::of(data);
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
                .map(|i| lines.iter().filter_map(|l| l.cells[i]).reduce(Cell::max))
                .collect();
            let costs = cost::costs(data, &op, &algorithms);
            let not_run = not_run(data, &algorithms);
            let mut answer = OpAnswer {
                op,
                algorithms,
                lines,
                worst,
                costs,
                threshold,
                not_run,
                pick: None,
                bands: Vec::new(),
                by_topology: Vec::new(),
                sentence: String::new(),
                details: Vec::new(),
            };
            answer.pick = sentence::pick(&answer);
            answer.bands = bands::overall(&answer);
            answer.by_topology = bands::per_topology(&answer, &answer.bands);
            answer.sentence = sentence::sentence(&answer);
            answer.details = sentence::details(&answer);
            answer
        })
        .collect()
}

/// The answer for a terminal: per op its sentence with the details indented under it, then
/// the command that prices it on a GPU where it needs one. Code spans lose their backticks.
pub fn terminal(data: &ReportData) -> Vec<String> {
    let answers = answers(data);
    let mut out: Vec<String> = answers
        .iter()
        .map(|a| {
            let mut s = a.sentence.clone();
            for d in &a.details {
                s.push_str("\n  · ");
                s.push_str(d);
            }
            s.replace('`', "")
        })
        .collect();
    out.extend(bench_hint(data, &answers).map(|h| h.replace('`', "")));
    out
}

/// The registry's correctly rounded algorithms missing from `ran`, and the `--algos` value
/// that adds them to the sweep's own.
fn not_run(data: &ReportData, ran: &[String]) -> Option<(Vec<String>, String)> {
    let missing: Vec<String> = Algorithm::ALL
        .into_iter()
        .filter(|a| a.correctly_rounded() && !ran.iter().any(|r| r == a.name()))
        .map(|a| a.name().to_string())
        .collect();
    if missing.is_empty() {
        return None;
    }
    let mut algos: Vec<String> = data
        .param("algos")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_else(|| ran.to_vec());
    algos.extend(missing.iter().cloned());
    Some((missing, format!("--algos {}", algos.join(","))))
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
                        .reduce(Cell::max)
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
