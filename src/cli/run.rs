//! `accuracy run`: one tree, every algorithm; per-node results, errors and bounds.

use super::allocator;
use super::phases::{self, Phases};
use super::run_json;
use super::{
    AllAlgosArgs, InstanceArgs, MeasureArgs, OpsArgs, ReadArgs, WeightsFileArgs, is_stdout,
    parse_count, parse_single_cond, write_stdout,
};
use analysis::{Algorithm, Op, Reference};
use clap::Args;
use generators::Topology;
use generators::fixed::Scale;
use std::path::PathBuf;
use treefix_accuracy::experiment::{self, InstanceSpec, Measured, Outcome, Sink};
use treefix_accuracy::format::sci;
use treefix_accuracy::inputs::{self, WeightChoice};
use treefix_accuracy::{Error, grid, memory, output, verdict};

mod dump;
mod formats;
use dump::{Baseline, Dump};

#[derive(Args)]
pub struct RunArgs {
    /// Topology (see `sweep --help`).
    #[arg(long, required_unless_present = "tree", conflicts_with = "tree")]
    topology: Option<Topology>,
    /// Vertices.
    #[arg(long, value_parser = parse_count, required_unless_present = "tree", conflicts_with = "tree")]
    nodes: Option<u64>,
    /// A tree file instead of a generated topology (Newick, NEXUS, Matrix Market, parent array).
    #[arg(long, value_name = "FILE")]
    tree: Option<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    file_weights: WeightsFileArgs,
    /// Target condition number (gensum weights).
    #[arg(long, default_value = "1e5", value_parser = parse_single_cond, allow_hyphen_values = true)]
    cond: f64,
    #[command(flatten)]
    algos: AllAlgosArgs,
    #[command(flatten)]
    instance: InstanceArgs,
    #[command(flatten)]
    ops: OpsArgs,
    #[command(flatten)]
    measure: MeasureArgs,
    #[command(flatten)]
    arithmetic: super::ArithmeticArgs,
    /// Write per-node results to this CSV file (`-`: standard output, the tables then go to
    /// standard error).
    #[arg(long)]
    dump: Option<PathBuf>,
    /// Write the tables as JSON here (`-`: standard output, the tables then go to standard
    /// error): the tree, and per op and algorithm its errors and bounds.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// No progress bar and no notes on standard error: only the tables (and errors).
    #[arg(long, short)]
    quiet: bool,
}

/// A weighted tree to evaluate, and how to describe it.
struct Subject {
    title: String,
    seed: u64,
    tree: generators::Tree,
    weights: Vec<f32>,
    /// Per-vertex labels of a tree file (file ids or names).
    file: Option<inputs::LoadedTree>,
}

fn subject(a: &RunArgs) -> Result<Subject, Error> {
    let seed = a.instance.seed;
    let Some(path) = &a.tree else {
        let WeightChoice::Model(weights) = a.instance.weights else {
            return Err(Error::Usage(
                "--weights file needs a tree file (--tree FILE)".into(),
            ));
        };
        let spec = InstanceSpec {
            topology: a.topology.expect("clap requires --topology without --tree"),
            n: a.nodes.expect("clap requires --nodes without --tree") as usize,
            weights,
            target_cond: a.cond,
            child_order: a.instance.child_order()?,
            seed,
        };
        let instance = spec.generate()?;
        return Ok(Subject {
            title: format!("{} n={}", spec.topology, spec.n),
            seed,
            weights: instance.weights,
            tree: instance.tree,
            file: None,
        });
    };
    let file = inputs::load(
        path,
        &a.read.options(),
        a.file_weights.weights_file.as_deref(),
    )?;
    allocator::preflight(
        "run",
        &estimate(a, file.file.tree.len() as u64, &file.name(), true),
    )?;
    let tree = file.tree(a.instance.child_order()?);
    let from_file =
        a.file_weights.weights_file.is_some() || a.instance.weights == WeightChoice::File;
    let (weights, what) = match a.instance.weights {
        _ if from_file => (file.own_weights()?.to_vec(), file.weights_name()),
        WeightChoice::Model(m) => (
            file.model_weights(m, tree.len(), a.cond, &mut generators::rng(seed))?,
            m.to_string(),
        ),
        WeightChoice::File => unreachable!("handled above"),
    };
    super::show(&file.take_notices());
    Ok(Subject {
        title: format!(
            "{} ({}, sha256 {}…, read in {:.3} s) n={} weights={what}",
            file.name(),
            file.file.format,
            &file.input.sha256[..12],
            file.file.read_s,
            tree.len()
        ),
        seed,
        tree,
        weights,
        file: Some(file),
    })
}

/// The memory `run` needs on a tree of `n` vertices.
fn estimate(a: &RunArgs, n: u64, name: &str, from_file: bool) -> memory::Estimate {
    let eval = a.measure.evaluation(&a.algos.algos, &a.ops.ops);
    memory::run(
        n,
        name,
        &eval,
        from_file,
        a.dump.is_some(),
        memory::threads(),
    )
}

pub fn run(a: RunArgs) -> Result<(), Error> {
    let mut inputs = Vec::new();
    if let Some(t) = &a.tree {
        inputs.push(("the tree file of --tree", t.as_path()));
    }
    if let Some(w) = &a.file_weights.weights_file {
        inputs.push(("the weights file of --weights-file", w.as_path()));
    }
    if a.file_weights.weights_file.is_some() && a.tree.is_none() {
        return Err(Error::Usage(
            "--weights-file goes with a tree file (--tree FILE)".into(),
        ));
    }
    let outputs =
        output::given_files(&[("--dump", a.dump.as_deref()), ("--json", a.json.as_deref())]);
    output::check_outputs(&outputs, &inputs)?;
    let arith = a.arithmetic.arithmetic()?;
    if arith != generators::Arithmetic::F32 {
        return formats::run(&a, arith);
    }
    if let (Some(t), Some(n)) = (a.topology, a.nodes) {
        allocator::preflight("run", &estimate(&a, n, &t.to_string(), false))?;
    }
    // A bar over the phases (the tree; per op the reference, then each algorithm), each
    // weighted by the time model's estimate.
    let (first, tree_phase) = match a.tree {
        Some(_) => ("reading the tree", "read"),
        None => ("generating the tree", "generate"),
    };
    let phases = match a.quiet {
        true => Phases::hidden(first),
        false => Phases::start(first),
    };
    let s = subject(&a)?;
    let threads = memory::threads();
    let n = s.tree.len();
    let seconds = phases::estimate(n, &a.algos.algos, a.ops.ops.len(), threads);
    phases.tree_ready(tree_phase, n, seconds, threads);
    let backend = a.measure.backend()?.backend;
    phases.suspend(|| {
        if a.quiet {
            return;
        }
        eprintln!("backend: {}", backend.describe());
        if let Some(line) = a.measure.reference_line() {
            eprintln!("{line}");
        }
        if n >= phases::ESTIMATED {
            eprintln!(
                "run: {n} vertices, {} algorithm(s) × {} op(s): estimated time {} on {threads} thread(s)",
                a.algos.algos.len(),
                a.ops.ops.len(),
                analysis::format::duration(seconds)
            );
        }
    });
    // The dump is written outcome by outcome as each is evaluated, into a file made
    // visible only once complete; it compares the vectorial algorithms with the baseline,
    // which must then come before them.
    let algos = match &a.dump {
        Some(_) => baseline_first(&a.algos.algos),
        None => a.algos.algos.clone(),
    };
    let mut sink = RunSink {
        subject: &s,
        dump: a.dump.as_deref().map(Dump::create).transpose()?,
        baseline: grid::baseline_algorithm(algos.iter().copied()),
        order: a.algos.algos.clone(),
        next: 0,
        early: None,
        measured: Vec::new(),
    };
    let evaluated = experiment::evaluate_into(
        &s.tree,
        &s.weights,
        &a.ops.ops,
        &algos,
        a.measure.reference,
        &*backend,
        &|done| phases.done(done),
        &mut sink,
    );
    drop(phases);
    evaluated?;
    let RunSink { dump, measured, .. } = sink;
    // The dump first: the tables below may meet a closed pipe (`| head`), which ends the
    // process (SIGPIPE), and the file must be complete by then.
    if let Some(dump) = dump {
        dump.commit()?;
    }
    let header = format!(
        "{} height={} mean branching={:.1} achieved κ={} seed={}",
        s.title,
        s.tree.height(),
        s.tree.mean_branching(),
        sci(experiment::achieved_cond(&s.weights)),
        s.seed
    );
    let mut text = format!("{header}\n");
    text += &error_summary(&measured);
    text += &bounds_summary(&measured);
    text += &overflow_summary(&measured);
    if a.algos.algos.contains(&Algorithm::VECTORIAL_EXACT)
        && let Some(scale) = Scale::for_weights(&s.weights)
    {
        text += &format!(
            "vectorial-exact: fixed point of {} limb(s) of 32 bits, unit 2^{}
",
            scale.gpu_words(),
            scale.unit()
        );
    }
    // Files first: a closed stdout ends the process at the first line printed.
    if let Some(path) = &a.json {
        let json = run_json::document(&s.title, &s.tree, &s.weights, s.seed, &measured);
        let bytes = serde_json::to_string_pretty(&json).map_err(Error::json(path))? + "\n";
        if is_stdout(path) {
            write_stdout(bytes.as_bytes())?;
        } else {
            output::write_file(path, bytes.as_bytes())?;
        }
    }
    if [&a.json, &a.dump]
        .into_iter()
        .flatten()
        .any(|p| is_stdout(p))
    {
        eprint!("{text}");
    } else {
        print!("{text}");
        for path in [&a.dump, &a.json].into_iter().flatten() {
            println!("wrote {}", path.display());
        }
    }
    let context = format!("seed {}", s.seed);
    verdict::fail_on_mismatches(&experiment::mismatch_report(&context, &measured))?;
    let warning = verdict::fail_on_violations(
        &verdict::violations(&context, &measured),
        a.measure.reference,
    )?;
    super::show(&warning);
    Ok(())
}

/// `run`'s first table: the errors of each op × algorithm.
fn error_summary(measured: &[Measured]) -> String {
    let mut s = format!(
        "{:<8} {:<21} {:>10} {:>10} {:>10} {:>8} {:>7} {:>9} {:>8}\n",
        "op",
        "algorithm",
        "max rel",
        "median",
        "p99",
        "max bits",
        "flagged",
        "nonfinite",
        "overflow"
    );
    for o in measured {
        let e = &o.summary;
        s += &format!(
            "{:<8} {:<21} {:>10} {:>10} {:>10} {:>8.2} {:>7} {:>9} {:>8}\n",
            o.op.name(),
            o.algorithm.name(),
            sci(e.max_rel_error),
            sci(e.median_rel_error),
            sci(e.p99_rel_error),
            e.max_lost_bits,
            e.flagged_nodes,
            e.nonfinite_nodes,
            o.bound_summary.overflow.total()
        );
    }
    s
}

/// One line per op × algorithm where f32 overflowed, saying why.
fn overflow_summary(measured: &[Measured]) -> String {
    let mut s = String::new();
    for o in measured {
        if let Some(why) = o.bound_summary.overflow.describe() {
            s += &format!("{} {}: {why}\n", o.op, o.algorithm);
        }
    }
    s
}

/// `run`'s second table: the bounds of each op × algorithm.
fn bounds_summary(measured: &[Measured]) -> String {
    let mut s = format!(
        "{:<8} {:<21} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
        "op",
        "algorithm",
        "bound bits",
        "sharp bits",
        "tight med",
        "tight max",
        "violations",
        "prob viol"
    );
    for o in measured {
        let b = &o.bound_summary;
        s += &format!(
            "{:<8} {:<21} {:>10.2} {:>10.2} {:>10} {:>10} {:>10} {:>10}\n",
            o.op.name(),
            o.algorithm.name(),
            b.max_bound_lost_bits,
            b.max_sharp_lost_bits,
            sci(b.median_tightness),
            sci(b.max_tightness),
            b.bound_violations + b.sharp_violations + b.running_violations,
            b.prob_violations
        );
    }
    s
}

/// `algos` with the dump's baseline ([`grid::baseline_algorithm`]) moved before the first
/// vectorial algorithm, if it came after one: the vectorial rows compare with it. Its rows
/// and summary still come in the order asked for ([`RunSink`]).
fn baseline_first(algos: &[Algorithm]) -> Vec<Algorithm> {
    let mut out = algos.to_vec();
    let base = grid::baseline_algorithm(algos.iter().copied());
    let first_vectorial = out.iter().position(|a| a.is_vectorial());
    let at = base.and_then(|b| out.iter().position(|&a| a == b));
    if let (Some(at), Some(first)) = (at, first_vectorial)
        && at > first
    {
        let b = out.remove(at);
        out.insert(first, b);
    }
    out
}

/// What `run` keeps of its outcomes: their summaries, and the dump's rows as they come, both
/// in the order of `--algos`.
struct RunSink<'a> {
    subject: &'a Subject,
    dump: Option<Dump>,
    baseline: Option<Algorithm>,
    /// The algorithms in the order asked for, and the position of the next one this op.
    order: Vec<Algorithm>,
    next: usize,
    /// The baseline's outcome when it was evaluated before its turn ([`baseline_first`]).
    early: Option<Outcome>,
    measured: Vec<Measured>,
}

impl RunSink<'_> {
    fn emit(&mut self, reference: &Reference, outcome: Outcome) -> Result<(), Error> {
        if let Some(dump) = &mut self.dump {
            dump.outcome(self.subject, reference, &outcome)?;
        }
        self.measured.push(outcome.measured);
        self.next += 1;
        Ok(())
    }
}

impl Sink for RunSink<'_> {
    fn outcome(&mut self, reference: &Reference, outcome: Outcome) -> Result<(), Error> {
        let is_baseline = Some(outcome.algorithm) == self.baseline;
        if is_baseline && let Some(dump) = &mut self.dump {
            dump.baseline = Some(Baseline {
                det: outcome.bounds.column(|b| b.det),
                abs: outcome.errors.iter().map(|e| e.abs).collect(),
            });
        }
        if is_baseline && self.order.get(self.next) != Some(&outcome.algorithm) {
            self.early = Some(outcome);
            return Ok(());
        }
        self.emit(reference, outcome)?;
        while let Some(early) = self
            .early
            .take_if(|e| self.order.get(self.next) == Some(&e.algorithm))
        {
            self.emit(reference, early)?;
        }
        Ok(())
    }
    fn op_done(&mut self, _op: Op, _reference: Reference) -> Result<(), Error> {
        self.next = 0;
        if let Some(dump) = &mut self.dump {
            dump.baseline = None;
            dump.scan_prefix = None;
        }
        Ok(())
    }
}
