//! `accuracy score`: an accuracy oracle for treefix implementations we did not write. Reads
//! per-vertex f32 results of rootfix or leaffix computed by any program, and reports what `run`
//! reports for our own algorithms, plus whose a priori bounds the results stay within.

use super::allocator;
use super::{MeasureArgs, ReadArgs, WeightsFileArgs, parse_single_cond};
use analysis::bounds::{self, NodeBounds};
use analysis::metrics::{self, ErrorSummary};
use analysis::orders::Walker;
use analysis::records::fields::number_or_string;
use analysis::{Algorithm, NodeError, Op, Reference};
use clap::Args;
use generators::io::Labels;
use rug::Float;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use treefix_accuracy::format::sci;
use treefix_accuracy::inputs::{self, WeightChoice};
use treefix_accuracy::{Error, experiment, memory, output};

#[derive(Args)]
pub struct ScoreArgs {
    /// The tree the results were computed on.
    #[arg(long, value_name = "FILE")]
    tree: PathBuf,
    #[command(flatten)]
    read: ReadArgs,
    /// The results to score: CSV with a header and columns `vertex,op,result` (vertex = a vertex
    /// id of the tree file or a label; op = rootfix or leaffix; result = the f32 value).
    #[arg(long, value_name = "R.csv")]
    results: PathBuf,
    /// The weights the results were computed from: file (the tree file's own), or a generated
    /// model with --cond and --seed (as `accuracy run --tree` draws them).
    #[arg(long, default_value = "file")]
    weights: WeightChoice,
    #[command(flatten)]
    file_weights: WeightsFileArgs,
    /// Target condition number of generated (gensum) weights.
    #[arg(long, default_value = "1e5", value_parser = parse_single_cond, allow_hyphen_values = true)]
    cond: f64,
    /// Seed of generated weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    measure: MeasureArgs,
    /// Exit with code 4 if any node loses more than this many bits (nodes whose exact value
    /// is 0 have no relative error: --max-ulps judges them). A NaN or infinite result where a
    /// finite one exists loses infinitely many.
    #[arg(long, value_name = "B")]
    max_lost_bits: Option<f64>,
    /// Exit with code 4 if any node lies more than N f32 ulps from the correctly rounded
    /// result (0: every node correctly rounded).
    #[arg(long, value_name = "N")]
    max_ulps: Option<u64>,
    /// Write a machine-readable summary here (per op: errors, lost bits, ulps, non-finite and
    /// overflowing nodes, the worst vertex, whose bounds hold; whether the gates passed).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// The results of one op, one per vertex.
struct Scored {
    op: Op,
    values: Vec<f32>,
}

/// How one op's results fare: errors, ulps, and whose bounds they stay within.
#[derive(Serialize)]
struct OpScore {
    op: Op,
    #[serde(serialize_with = "number_or_string")]
    max_rel_error: f64,
    #[serde(serialize_with = "number_or_string")]
    median_rel_error: f64,
    #[serde(serialize_with = "number_or_string")]
    p99_rel_error: f64,
    #[serde(serialize_with = "number_or_string")]
    max_lost_bits: f64,
    #[serde(serialize_with = "number_or_string")]
    median_lost_bits: f64,
    #[serde(serialize_with = "number_or_string")]
    p99_lost_bits: f64,
    /// Largest distance in f32 ulps from the correctly rounded result; `"inf"` when a result
    /// is NaN or an infinity where a finite one exists.
    #[serde(serialize_with = "ulps_or_inf")]
    max_ulps: Option<u64>,
    flagged_nodes: usize,
    #[serde(serialize_with = "number_or_string")]
    max_flagged_abs_error: f64,
    nonfinite_nodes: usize,
    /// Nodes whose exact value lies beyond f32's range.
    overflow_nodes: usize,
    worst: Worst,
    /// Nodes above `--max-lost-bits` / `--max-ulps` (absent without the gate).
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes_over_max_lost_bits: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes_over_max_ulps: Option<usize>,
    algorithms: Vec<Verdict>,
}

/// The node with the largest relative error (the lowest id on ties).
#[derive(Serialize)]
struct Worst {
    vertex: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    /// κ_v of its sum.
    #[serde(serialize_with = "number_or_string")]
    cond: f64,
}

/// Whether the results stay within one of our algorithms' a priori bounds.
#[derive(Serialize)]
struct Verdict {
    algorithm: Algorithm,
    a_priori_violations: usize,
    sharp_violations: usize,
    #[serde(serialize_with = "number_or_string")]
    max_bound_lost_bits: f64,
    /// Nodes where f32 overflows in that algorithm's order or the exact value is beyond
    /// range: no bound of it applies there.
    overflow_nodes: usize,
    within: bool,
}

/// `score --json`'s document.
#[derive(Serialize)]
struct ScoreJson<'a> {
    tool: &'static str,
    version: &'static str,
    tree: String,
    results: String,
    reference: &'static str,
    n: usize,
    #[serde(serialize_with = "number_or_string")]
    achieved_cond: f64,
    max_lost_bits_gate: Option<f64>,
    max_ulps_gate: Option<u64>,
    /// False when a gate failed (the command then exits with code 4).
    passed: bool,
    ops: &'a [OpScore],
}

fn ulps_or_inf<S: serde::Serializer>(x: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(k) => s.serialize_u64(*k),
        None => s.serialize_str("inf"),
    }
}

pub fn run(a: ScoreArgs) -> Result<(), Error> {
    if a.measure.exact_on == "gpu" {
        return Err(Error::Usage(
            "score computes its reference on the CPU: --exact-on gpu is for run and sweep".into(),
        ));
    }
    if let Some(b) = a.max_lost_bits
        && (b.is_nan() || b < 0.0)
    {
        return Err(Error::Usage(format!(
            "--max-lost-bits {b}: expected a number of bits ≥ 0"
        )));
    }
    if let Some(json) = &a.json {
        let mut inputs = vec![
            ("the tree file of --tree", a.tree.as_path()),
            ("the results file of --results", a.results.as_path()),
        ];
        if let Some(w) = &a.file_weights.weights_file {
            inputs.push(("the weights file of --weights-file", w.as_path()));
        }
        output::refuse_overwriting_inputs(("--json", json), &inputs)?;
    }
    let file = inputs::load(
        &a.tree,
        &a.read.options(),
        a.file_weights.weights_file.as_deref(),
    )?;
    allocator::preflight(
        "score",
        &memory::score(
            file.file.tree.len() as u64,
            &file.name(),
            Op::ALL.len(),
            a.measure.reference,
        ),
    )?;
    let tree = file.tree(generators::ChildOrder::Natural);
    let weights = match a.weights {
        _ if a.file_weights.weights_file.is_some() => file.own_weights()?.to_vec(),
        WeightChoice::File => file.own_weights()?.to_vec(),
        WeightChoice::Model(m) => {
            file.model_weights(m, tree.len(), a.cond, &mut generators::rng(a.seed))?
        }
    };
    let scored = read_results(&a.results, &file.file.labels, tree.len())?;
    let achieved_cond = experiment::achieved_cond(&weights);
    let mut scratch = Float::new(generators::exact_sum::EXACT_PREC);
    let label = |v: usize| file.file.labels.get(v as u32).map(|l| l.to_string());
    let scores: Vec<OpScore> = scored
        .iter()
        .map(|s| score_op(s, &tree, &weights, &a, &label, &mut scratch))
        .collect();
    let failures = gate_failures(&a, &scores);
    // The file first: a closed stdout ends the process at the first line printed.
    if let Some(path) = &a.json {
        let doc = ScoreJson {
            tool: "treefix-accuracy",
            version: env!("CARGO_PKG_VERSION"),
            tree: a.tree.display().to_string(),
            results: a.results.display().to_string(),
            reference: a.measure.reference.name(),
            n: tree.len(),
            achieved_cond,
            max_lost_bits_gate: a.max_lost_bits,
            max_ulps_gate: a.max_ulps,
            passed: failures.is_empty(),
            ops: &scores,
        };
        let json = serde_json::to_string_pretty(&doc).map_err(Error::json(path))?;
        output::write_file(path, (json + "\n").as_bytes())?;
    }
    println!(
        "scoring {} against {} (n={}, height={}, achieved κ={}) with the {} reference",
        a.results.display(),
        file.name(),
        tree.len(),
        tree.height(),
        sci(achieved_cond),
        a.measure.reference.name()
    );
    print!("{}", errors_table(&scores));
    print!("{}", verdicts_table(&scores));
    if let Some(path) = &a.json {
        println!("wrote {}", path.display());
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Error::Gate(failures.join("; ")))
    }
}

/// The errors of one op's results, and our algorithms' bounds judged on them.
fn score_op(
    s: &Scored,
    tree: &generators::Tree,
    weights: &[f32],
    a: &ScoreArgs,
    label: &dyn Fn(usize) -> Option<String>,
    scratch: &mut Float,
) -> OpScore {
    let reference = Reference::compute(a.measure.reference, tree, weights, s.op);
    let errors: Vec<NodeError> = (0..tree.len())
        .map(|v| reference.error(v, s.values[v], scratch))
        .collect();
    let summary = ErrorSummary::from_errors(&errors);
    let worst = (0..tree.len())
        .filter(|&v| errors[v].has_rel())
        .max_by(|&x, &y| errors[x].rel.total_cmp(&errors[y].rel).then(y.cmp(&x)))
        .unwrap_or(0);
    // None: an infinite distance (a NaN, or an infinity where a finite result exists).
    let node_ulps: Vec<Option<u64>> = (0..tree.len())
        .map(|v| metrics::ulps(s.values[v], reference.rounded_f32(v)))
        .collect();
    let max_ulps = node_ulps.iter().try_fold(0u64, |m, &u| u.map(|u| m.max(u)));
    let walker = Walker::new(tree);
    let algorithms = Algorithm::ALL
        .into_iter()
        .map(|algorithm| {
            // Our algorithm's a priori bounds, judged on the other program's errors; where
            // its own order overflows f32 (its replay is not finite), no bound applies.
            let walked = algorithm.walk(&walker, weights, s.op, bounds::LAMBDA);
            let (_, b) = NodeBounds::of_replay(walked);
            let sum = bounds::summarize(&reference, &s.values, &errors, &b, scratch);
            Verdict {
                algorithm,
                a_priori_violations: sum.bound_violations,
                sharp_violations: sum.sharp_violations,
                max_bound_lost_bits: sum.max_bound_lost_bits,
                overflow_nodes: sum.overflow.total(),
                within: sum.bound_violations == 0 && sum.sharp_violations == 0,
            }
        })
        .collect();
    let lost_bits_of = |r: f64| analysis::reference::lost_bits(r);
    OpScore {
        op: s.op,
        max_rel_error: summary.max_rel_error,
        median_rel_error: summary.median_rel_error,
        p99_rel_error: summary.p99_rel_error,
        max_lost_bits: summary.max_lost_bits,
        median_lost_bits: lost_bits_of(summary.median_rel_error),
        p99_lost_bits: lost_bits_of(summary.p99_rel_error),
        max_ulps,
        flagged_nodes: summary.flagged_nodes,
        max_flagged_abs_error: summary.max_flagged_abs_error,
        nonfinite_nodes: summary.nonfinite_nodes,
        overflow_nodes: (0..tree.len()).filter(|&v| reference.beyond_f32(v)).count(),
        worst: Worst {
            vertex: worst,
            label: label(worst),
            cond: reference.cond(worst),
        },
        // Flagged nodes have no relative error: only the ulps gate judges them.
        nodes_over_max_lost_bits: a.max_lost_bits.map(|b| {
            errors
                .iter()
                .filter(|e| e.has_rel() && e.lost_bits() > b)
                .count()
        }),
        nodes_over_max_ulps: a
            .max_ulps
            .map(|k| node_ulps.iter().filter(|u| u.is_none_or(|u| u > k)).count()),
        algorithms,
    }
}

/// The gates that failed, one phrase each.
fn gate_failures(a: &ScoreArgs, scores: &[OpScore]) -> Vec<String> {
    let mut out = Vec::new();
    for s in scores {
        if let (Some(b), Some(k)) = (a.max_lost_bits, s.nodes_over_max_lost_bits)
            && k > 0
        {
            out.push(format!(
                "{}: {k} node(s) lose more than --max-lost-bits {b} (max {:.2})",
                s.op, s.max_lost_bits
            ));
        }
        if let (Some(b), Some(k)) = (a.max_ulps, s.nodes_over_max_ulps)
            && k > 0
        {
            out.push(format!(
                "{}: {k} node(s) lie more than --max-ulps {b} from the correctly rounded result (max {})",
                s.op,
                ulps_text(s.max_ulps)
            ));
        }
    }
    out
}

fn ulps_text(u: Option<u64>) -> String {
    u.map_or("inf".into(), |u| u.to_string())
}

/// The errors of each op: what `run` prints for our algorithms.
fn errors_table(scores: &[OpScore]) -> String {
    let mut out = format!(
        "{:<8} {:>10} {:>10} {:>10} {:>8} {:>9} {:>7} {:>12} {:>9} {:>8} {:>10}  worst vertex\n",
        "op",
        "max rel",
        "median",
        "p99",
        "max bits",
        "max ulps",
        "flagged",
        "flagged abs",
        "nonfinite",
        "overflow",
        "κ_v worst"
    );
    for s in scores {
        let label = s.worst.label.as_ref().map(|l| format!(" ({l})"));
        out += &format!(
            "{:<8} {:>10} {:>10} {:>10} {:>8.2} {:>9} {:>7} {:>12} {:>9} {:>8} {:>10}  {}{}\n",
            s.op.name(),
            sci(s.max_rel_error),
            sci(s.median_rel_error),
            sci(s.p99_rel_error),
            s.max_lost_bits,
            ulps_text(s.max_ulps),
            s.flagged_nodes,
            sci(s.max_flagged_abs_error),
            s.nonfinite_nodes,
            s.overflow_nodes,
            sci(s.worst.cond),
            s.worst.vertex,
            label.unwrap_or_default()
        );
    }
    out
}

/// Whose a priori bounds the results stay within.
fn verdicts_table(scores: &[OpScore]) -> String {
    let mut out = String::from(
        "whose a priori error bounds do the results stay within? (nodes above each bound)\n",
    );
    out += &format!(
        "{:<8} {:<21} {:>10} {:>10} {:>10} {:>8}  verdict\n",
        "op", "algorithm", "a priori", "sharp", "bound bits", "overflow"
    );
    for s in scores {
        for v in &s.algorithms {
            out += &format!(
                "{:<8} {:<21} {:>10} {:>10} {:>10.2} {:>8}  {}\n",
                s.op.name(),
                v.algorithm.name(),
                v.a_priori_violations,
                v.sharp_violations,
                v.max_bound_lost_bits,
                v.overflow_nodes,
                if v.within { "within" } else { "outside" }
            );
        }
    }
    if scores
        .iter()
        .flat_map(|s| &s.algorithms)
        .any(|v| v.overflow_nodes > 0)
    {
        out += "overflow: nodes where f32 overflows in that algorithm's order (or the exact value is beyond f32's range); its bounds, which assume no overflow, are not applied there\n";
    }
    out
}

/// Reads `vertex,op,result` rows; every vertex of every op present must appear exactly once.
fn read_results(path: &Path, labels: &Labels, n: usize) -> Result<Vec<Scored>, Error> {
    let at = |line: u64, why: String| Error::Usage(format!("{}:{line}: {why}", path.display()));
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_path(path)
        .map_err(|e| Error::Usage(format!("{}: cannot read: {e}", path.display())))?;
    let headers = reader.headers().map_err(|e| bad_csv(path, &e, 1))?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| at(1, format!("no column '{name}' (expected vertex,op,result)")))
    };
    let (cv, co, cr) = (col("vertex")?, col("op")?, col("result")?);
    let keys = vertex_keys(labels, n);
    let mut scored: Vec<(Op, Vec<Option<f32>>)> = Vec::new();
    for rec in reader.records() {
        let rec = rec.map_err(|e| bad_csv(path, &e, headers.len()))?;
        let line = rec.position().map_or(0, |p| p.line());
        let field = |i: usize| rec.get(i).unwrap_or("");
        let v = *keys
            .get(field(cv))
            .ok_or_else(|| at(line, format!("unknown vertex '{}'", field(cv))))?;
        let op: Op = field(co).parse().map_err(|e: String| at(line, e))?;
        let x: f32 = field(cr)
            .parse()
            .map_err(|_| at(line, format!("result '{}' is not a number", field(cr))))?;
        let slot = match scored.iter().position(|(o, _)| *o == op) {
            Some(i) => i,
            None => {
                scored.push((op, vec![None; n]));
                scored.len() - 1
            }
        };
        let cell = &mut scored[slot].1[v as usize];
        if cell.is_some() {
            return Err(at(
                line,
                format!("a second {op} result for vertex '{}'", field(cv)),
            ));
        }
        *cell = Some(x);
    }
    if scored.is_empty() {
        return Err(Error::Usage(format!("{}: no results", path.display())));
    }
    scored
        .into_iter()
        .map(|(op, values)| {
            let missing = values.iter().filter(|x| x.is_none()).count();
            if missing > 0 {
                return Err(Error::Usage(format!(
                    "{}: {missing} of {n} vertices have no {op} result",
                    path.display()
                )));
            }
            Ok(Scored {
                op,
                values: values.into_iter().map(Option::unwrap).collect(),
            })
        })
        .collect()
}

/// A results file the csv reader cannot parse, as a one-line usage error naming the line.
fn bad_csv(path: &Path, e: &csv::Error, columns: usize) -> Error {
    let line = e.position().map_or(0, |p| p.line());
    let why = match e.kind() {
        csv::ErrorKind::UnequalLengths { len, .. } => format!(
            "{len} fields, but the header has {columns} (expected vertex,op,result and no more)"
        ),
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8".to_string(),
        csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
        _ => e.to_string(),
    };
    Error::Usage(format!("{}:{line}: {why}", path.display()))
}

/// Every way a results file may name a vertex: its label (file id or name) and, for trees whose
/// labels are names, its index in the file's preorder.
fn vertex_keys(labels: &Labels, n: usize) -> HashMap<String, u32> {
    let mut keys = HashMap::with_capacity(n);
    for v in 0..n as u32 {
        match labels.get(v) {
            Some(l) => {
                keys.entry(l.to_string()).or_insert(v);
            }
            None => {
                keys.entry(v.to_string()).or_insert(v);
            }
        }
    }
    if matches!(labels, Labels::None | Labels::Names { .. }) {
        for v in 0..n as u32 {
            keys.entry(v.to_string()).or_insert(v);
        }
    }
    keys
}
