//! `accuracy score`: an accuracy oracle for treefix implementations we did not write. Reads
//! per-vertex f32 results of rootfix or leaffix computed by any program and prints what the
//! library's [`treefix_accuracy::score`] makes of them.

use super::allocator;
use super::{MeasureArgs, ReadArgs, WeightsFileArgs, is_stdout, parse_single_cond, write_stdout};
use analysis::Op;
use clap::Args;
use std::path::{Path, PathBuf};
use treefix_accuracy::format::sci;
use treefix_accuracy::inputs::{self, WeightChoice};
use treefix_accuracy::score::precision::{Digits, Verdict as Precision};
use treefix_accuracy::score::results::{self, ResultsArg, VertexKeys};
use treefix_accuracy::score::{self, ScoreOptions};
use treefix_accuracy::{Error, memory, output};

#[derive(Args)]
pub struct ScoreArgs {
    /// The tree the results were computed on.
    #[arg(long, value_name = "FILE")]
    tree: PathBuf,
    #[command(flatten)]
    read: ReadArgs,
    /// The results to score (repeatable): a CSV with a header and columns `vertex,op,result`
    /// (vertex = a label of the tree file or the vertex's number, 0..n-1 in the file's
    /// preorder for Newick/NEXUS; op = rootfix or leaffix, any case; result = the f32 value,
    /// printed with 9 significant digits), or OP=FILE: one op's results, as such a CSV
    /// (the op column may be left out) or as a 1-d float32 .npy array in vertex order.
    /// `-` reads standard input.
    #[arg(long, value_name = "R.csv", required = true)]
    results: Vec<ResultsArg>,
    /// The ops to score, comma-separated (any case). Default: rootfix,leaffix, each of which
    /// must have results; name one to score it alone.
    #[arg(long, value_delimiter = ',', value_parser = results::parse_op)]
    ops: Option<Vec<Op>>,
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
    /// Exit with code 4 if any node loses more than this many bits. A NaN or infinite
    /// result where a finite one exists loses infinitely many, and so does a non-zero result
    /// where the exact value is 0.
    #[arg(long, value_name = "B")]
    max_lost_bits: Option<f64>,
    /// Exit with code 4 if any node lies more than N f32 ulps from the correctly rounded
    /// result (0: every node correctly rounded).
    #[arg(long, value_name = "N")]
    max_ulps: Option<u64>,
    /// Write a machine-readable summary here (`-`: standard output, the tables then go to
    /// standard error): per op errors, lost bits, ulps, non-finite and overflowing nodes,
    /// the worst vertex, which bounds hold; whether the gates passed.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write every vertex's error and flags as CSV here (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    dump: Option<PathBuf>,
    /// Also judge the results against these algorithms' a priori bounds, comma-separated
    /// (`all`: every algorithm of the registry). Each costs a replay of the algorithm and its
    /// bounds over the whole tree, so by default only the order-independent bounds are judged.
    #[arg(long, value_delimiter = ',', value_name = "ALGOS", value_parser = parse_algos)]
    algos: Vec<Vec<analysis::Algorithm>>,
    #[command(flatten)]
    arithmetic: super::ArithmeticArgs,
    /// Score results printed with too few digits to be the kernel's f32 values (by default
    /// refused: the digits lost would be charged to the kernel).
    #[arg(long)]
    accept_low_precision: bool,
}

pub fn run(a: ScoreArgs) -> Result<(), Error> {
    if a.measure.exact_on_gpu() {
        return Err(Error::Usage(
            "score computes its reference on the CPU: --exact-on gpu is for run and sweep".into(),
        ));
    }
    let options = ScoreOptions {
        reference: a.measure.reference,
        max_lost_bits: a.max_lost_bits,
        max_ulps: a.max_ulps,
        algorithms: chosen_algorithms(&a.algos),
        arithmetic: a.arithmetic.arithmetic()?,
    };
    options.check()?;
    let f64_storage = options.arithmetic.storage == generators::Precision::F64;
    if f64_storage && a.file_weights.weights_file.is_none() && a.weights == WeightChoice::File {
        return Err(Error::Usage(F64_WEIGHTS.into()));
    }
    check_outputs(&a)?;
    // f64 weights are not the tree file's: an .npy of them is read as f64 by `weights`.
    let file = inputs::load(
        &a.tree,
        &a.read.options(),
        a.file_weights
            .weights_file
            .as_deref()
            .filter(|_| !f64_storage),
    )?;
    let wanted = a.ops.clone().unwrap_or_else(|| Op::ALL.to_vec());
    allocator::preflight(
        "score",
        &memory::score(
            file.file.tree.len() as u64,
            &file.name(),
            wanted.len(),
            a.measure.reference,
        ),
    )?;
    let tree = file.tree(generators::ChildOrder::Natural);
    let storage = options.arithmetic.storage;
    let weights = weights(&a, &file, &tree, storage)?;
    super::show(&file.take_notices());
    let keys = VertexKeys::new(&file.file.labels, tree.len());
    let read = results::read(
        &a.results,
        &keys,
        tree.len(),
        memory::reader_limit(),
        storage,
    )?;
    let warning = precision_check(&read.digits, a.accept_low_precision)?;
    let names = a
        .results
        .iter()
        .map(ResultsArg::name)
        .collect::<Vec<_>>()
        .join(", ");
    let chosen = choose_ops(&read.ops, &wanted, &names, a.ops.is_some())?;
    let label = |v: usize| file.file.labels.get(v as u32).map(|l| l.to_string());
    let scored = judged(&tree, &weights, &chosen, &options, &label)?;
    let failures = scored.failures();
    // Files first: a closed stdout ends the process at the first line printed.
    if let Some(path) = &a.json {
        let precision = score::json::Precision {
            inexact: read.digits.inexact,
            max_digits: read.digits.max_digits,
            warning: warning.clone(),
        };
        write_json(path, &a, &names, &scored, precision)?;
    }
    if let Some(path) = &a.dump {
        write_dump(path, &scored, &label)?;
    }
    let text = format!(
        "scoring {names}{} against {} (n={}, height={}, achieved κ={}) with the {} reference\n{}",
        if options.arithmetic == generators::Arithmetic::F32 {
            String::new()
        } else {
            format!(" ({})", options.arithmetic.describe())
        },
        file.name(),
        tree.len(),
        tree.height(),
        sci(scored.achieved_cond),
        a.measure.reference.name(),
        scored.tables()
    );
    let to_stderr = [&a.json, &a.dump]
        .into_iter()
        .flatten()
        .any(|p| is_stdout(p));
    if to_stderr {
        eprint!("{text}");
    } else {
        print!("{text}");
        for path in [&a.json, &a.dump].into_iter().flatten() {
            println!("wrote {}", path.display());
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Error::Gate(failures.join("; ")))
    }
}

/// The weights the kernel read, in its storage format.
enum Weights {
    /// Of a format f32 carries: the file's, or a model's scaled into the format and rounded,
    /// as `run --precision` draws them.
    Carried(Vec<f32>),
    /// f64: a model's drawn in f64, or a float64 `.npy` (tree files are read as f32).
    F64(Vec<f64>),
}

fn weights(
    a: &ScoreArgs,
    file: &inputs::LoadedTree,
    tree: &generators::Tree,
    storage: generators::Precision,
) -> Result<Weights, Error> {
    if storage == generators::Precision::F64 {
        return Ok(Weights::F64(
            match (&a.file_weights.weights_file, a.weights) {
                (Some(path), _) if path.extension().is_some_and(|e| e == "npy") => {
                    let bytes = generators::io::read_bytes(path, memory::reader_limit())?;
                    let name = path.display().to_string();
                    results::read_npy_in(&name, &bytes, tree.len(), storage)?
                }
                (Some(path), _) if inputs::is_stdin(path) => {
                    return Err(Error::Usage(
                        "--precision f64 reads its weights file from a path, not standard input"
                            .into(),
                    ));
                }
                // `key value` lines for the tree file's vertices, each value read as f64.
                (Some(path), _) => generators::io::read_weights_file_f64(path, &file.file)?.weights,
                (None, WeightChoice::Model(m)) => m
                    .weights_f64(tree.len(), a.cond, &mut generators::rng(a.seed))
                    .map_err(|e| Error::Usage(format!("{m} weights in f64: {e}")))?,
                (None, WeightChoice::File) => return Err(Error::Usage(F64_WEIGHTS.into())),
            },
        ));
    }
    Ok(Weights::Carried(match a.weights {
        _ if a.file_weights.weights_file.is_some() => file.own_weights()?.to_vec(),
        WeightChoice::File => file.own_weights()?.to_vec(),
        WeightChoice::Model(m) => {
            let w = file.model_weights(m, tree.len(), a.cond, &mut generators::rng(a.seed))?;
            let w = generators::weights::in_format(w, storage);
            m.check_reach(a.cond, &w, storage)
                .map_err(|e| Error::Usage(e.to_string()))?;
            w
        }
    }))
}

/// Where f64 weights come from, for the command line.
const F64_WEIGHTS: &str = "--precision f64 takes weights drawn by a model (--weights gensum \
    --cond C --seed S: Python's gensum(n, C, S, precision=\"f64\")), a weights file read as \
    f64 (--weights-file w.txt of `key value` lines) or a float64 .npy (--weights-file w.npy, \
    numpy's np.save): a tree file's own weights are read as f32";

/// The score of the chosen results on `weights`: f64 ones as they are, the others as the f32
/// values they are (each one of the format's, checked as read).
fn judged(
    tree: &generators::Tree,
    weights: &Weights,
    chosen: &[(Op, &[f64])],
    options: &ScoreOptions,
    label: &dyn Fn(usize) -> Option<String>,
) -> Result<score::Score, Error> {
    match weights {
        Weights::F64(w) => score::score_f64(tree, w, chosen, options, label),
        Weights::Carried(w) => {
            let carried: Vec<(Op, Vec<f32>)> = chosen
                .iter()
                .map(|(op, v)| (*op, v.iter().map(|&x| x as f32).collect()))
                .collect();
            let carried: Vec<(Op, &[f32])> = carried.iter().map(|(op, v)| (*op, &v[..])).collect();
            score::score(tree, w, &carried, options, label)
        }
    }
}

/// The results of each op wanted, in the order wanted; an op without results is an error
/// that says how to score the other alone; an op given but not wanted is noted.
fn choose_ops<'r>(
    read: &'r [(Op, Vec<f64>)],
    wanted: &[Op],
    names: &str,
    explicit: bool,
) -> Result<Vec<(Op, &'r [f64])>, Error> {
    let mut chosen: Vec<(Op, &[f64])> = Vec::new();
    for &op in wanted {
        match read.iter().find(|(o, _)| *o == op) {
            Some((_, values)) => chosen.push((op, values)),
            None if explicit => {
                return Err(Error::Usage(format!(
                    "{names}: no {op} results (--ops {op})"
                )));
            }
            None => {
                let other = Op::ALL.into_iter().find(|&o| o != op).expect("two ops");
                return Err(Error::Usage(format!(
                    "{names}: no {op} results; to score {other} alone, give --ops {other}"
                )));
            }
        }
    }
    for (op, _) in read {
        if !wanted.contains(op) {
            eprintln!("{names}: {op} results not scored (--ops)");
        }
    }
    Ok(chosen)
}

/// `--json`: the summary document (the library's, as Python's `Score.to_json()`), to a file
/// or standard output.
fn write_json(
    path: &Path,
    a: &ScoreArgs,
    names: &str,
    scored: &score::Score,
    precision: score::json::Precision,
) -> Result<(), Error> {
    let doc = score::json::document(
        scored,
        a.tree.display().to_string(),
        names.to_string(),
        Some(precision),
    );
    let json = score::json::to_json(&doc);
    if is_stdout(path) {
        write_stdout(json.as_bytes())
    } else {
        output::write_file(path, json.as_bytes())
    }
}

/// `--dump`: every vertex's error and flags as CSV, to a file or standard output.
fn write_dump(
    path: &Path,
    scored: &score::Score,
    label: &dyn Fn(usize) -> Option<String>,
) -> Result<(), Error> {
    if is_stdout(path) {
        let mut buf = Vec::new();
        score::dump::write(scored, label, &mut buf).map_err(output::csv_error(path))?;
        write_stdout(&buf)
    } else {
        let mut f = output::OutputFile::create(path)?;
        score::dump::write(scored, label, &mut f).map_err(output::csv_error(path))?;
        f.commit()
    }
}

/// `all` or one algorithm's name.
fn parse_algos(s: &str) -> Result<Vec<analysis::Algorithm>, String> {
    if s.eq_ignore_ascii_case("all") {
        return Ok(analysis::Algorithm::ALL.to_vec());
    }
    s.parse::<analysis::Algorithm>()
        .map(|a| vec![a])
        .map_err(|_| {
            format!(
                "'{s}': expected all or one of {}",
                analysis::Algorithm::names().join(", ")
            )
        })
}

/// The algorithms given, each once, in the registry's order.
fn chosen_algorithms(given: &[Vec<analysis::Algorithm>]) -> Vec<analysis::Algorithm> {
    analysis::Algorithm::ALL
        .into_iter()
        .filter(|a| given.iter().flatten().any(|g| g == a))
        .collect()
}

/// The outputs: never an input, and at most one on standard output.
fn check_outputs(a: &ScoreArgs) -> Result<(), Error> {
    if inputs::is_stdin(&a.tree) && a.results.iter().any(|r| r.is_stdin()) {
        return Err(Error::Usage(
            "--tree - and --results - would both read standard input: give one a file".into(),
        ));
    }
    let mut inputs = vec![("the tree file of --tree", a.tree.as_path())];
    for r in &a.results {
        if !r.is_stdin() {
            inputs.push(("the results file of --results", r.path.as_path()));
        }
    }
    if let Some(w) = &a.file_weights.weights_file {
        inputs.push(("the weights file of --weights-file", w.as_path()));
    }
    let outputs =
        output::given_files(&[("--json", a.json.as_deref()), ("--dump", a.dump.as_deref())]);
    output::check_outputs(&outputs, &inputs)
}

/// Refuses results printed with too few digits (unless accepted), warns on a suspicion.
fn precision_check(digits: &Digits, accept: bool) -> Result<Option<String>, Error> {
    let Some(message) = digits.message() else {
        return Ok(None);
    };
    match digits.verdict() {
        Precision::TooShort if !accept => Err(Error::Usage(format!(
            "{message} (or give --accept-low-precision)"
        ))),
        _ => {
            eprintln!("warning: {message}");
            Ok(Some(message))
        }
    }
}
