//! `accuracy score`: an accuracy oracle for treefix implementations we did not write. Reads
//! per-vertex f32 results of rootfix or leaffix computed by any program, and reports what `run`
//! reports for our own algorithms, plus whose a priori bounds the results stay within.

use super::{MeasureArgs, ReadArgs, WeightsFileArgs, parse_single_cond};
use analysis::bounds;
use analysis::metrics::ErrorSummary;
use analysis::{Algorithm, NodeError, Op, Reference};
use clap::Args;
use generators::io::Labels;
use rug::Float;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use treefix_accuracy::format::sci;
use treefix_accuracy::inputs::{self, WeightChoice};
use treefix_accuracy::{Error, experiment, kernels, memory};

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
}

/// The results of one op, one per vertex.
struct Scored {
    op: Op,
    values: Vec<f32>,
}

pub fn run(a: ScoreArgs) -> Result<(), Error> {
    let file = inputs::load(
        &a.tree,
        &a.read.options(),
        a.file_weights.weights_file.as_deref(),
    )?;
    memory::check(
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
        WeightChoice::Model(m) => m.weights(tree.len(), a.cond, &mut generators::rng(a.seed))?,
    };
    let scored = read_results(&a.results, &file.file.labels, tree.len())?;
    println!(
        "scoring {} against {} (n={}, height={}, achieved κ={}) with the {} reference",
        a.results.display(),
        file.name(),
        tree.len(),
        tree.height(),
        sci(experiment::achieved_cond(&weights)),
        a.measure.reference.name()
    );
    let mut scratch = Float::new(generators::exact_sum::EXACT_PREC);
    println!(
        "{:<8} {:>10} {:>10} {:>10} {:>8} {:>7} {:>12} {:>10}  worst vertex",
        "op", "max rel", "median", "p99", "max bits", "flagged", "flagged abs", "κ_v worst"
    );
    let mut verdicts = String::new();
    for s in &scored {
        let reference = Reference::compute(a.measure.reference, &tree, &weights, s.op);
        let errors: Vec<NodeError> = (0..tree.len())
            .map(|v| reference.error(v, s.values[v], &mut scratch))
            .collect();
        let summary = ErrorSummary::from_errors(&errors);
        let worst = (0..tree.len())
            .max_by(|&x, &y| errors[x].rel.total_cmp(&errors[y].rel))
            .unwrap_or(0);
        let label = file
            .file
            .labels
            .get(worst as u32)
            .map(|l| format!(" ({l})"))
            .unwrap_or_default();
        println!(
            "{:<8} {:>10} {:>10} {:>10} {:>8.2} {:>7} {:>12} {:>10}  {worst}{label}",
            s.op.name(),
            sci(summary.max_rel_error),
            sci(summary.median_rel_error),
            sci(summary.p99_rel_error),
            summary.max_lost_bits,
            summary.flagged_nodes,
            sci(summary.max_flagged_abs_error),
            sci(reference.cond(worst)),
        );
        for algo in Algorithm::ALL {
            // Our algorithm's a priori bounds, judged on the other program's errors.
            let twin = kernels::cpu(&tree, &weights, algo, s.op);
            let b = bounds::node_bounds(&tree, &weights, algo, s.op, &twin);
            let sum = bounds::summarize(&reference, &s.values, &errors, &b, &mut scratch);
            verdicts += &format!(
                "{:<8} {:<21} {:>10} {:>10} {:>10.2}  {}\n",
                s.op.name(),
                algo.name(),
                sum.bound_violations,
                sum.sharp_violations,
                sum.max_bound_lost_bits,
                if sum.bound_violations == 0 {
                    "within"
                } else {
                    "outside"
                }
            );
        }
    }
    println!("whose a priori error bounds do the results stay within? (nodes above each bound)");
    println!(
        "{:<8} {:<21} {:>10} {:>10} {:>10}  verdict",
        "op", "algorithm", "a priori", "sharp", "bound bits"
    );
    print!("{verdicts}");
    Ok(())
}

/// Reads `vertex,op,result` rows; every vertex of every op present must appear exactly once.
fn read_results(path: &Path, labels: &Labels, n: usize) -> Result<Vec<Scored>, Error> {
    let at = |line: u64, why: String| Error::Usage(format!("{}:{line}: {why}", path.display()));
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_path(path)
        .map_err(|e| Error::Usage(format!("{}: cannot read: {e}", path.display())))?;
    let headers = reader.headers().map_err(Error::csv(path))?.clone();
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
        let rec = rec.map_err(Error::csv(path))?;
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
