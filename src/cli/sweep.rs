//! `accuracy sweep`: the paper's Fig. 10 experiment over a range of condition numbers.

use super::allocator;
use super::{InstanceArgs, MeasureArgs, OpsArgs, ReadArgs, WeightsFileArgs};
use analysis::Algorithm;
use clap::Args;
use generators::Topology;
use std::path::{Path, PathBuf};
use treefix_accuracy::Device;
use treefix_accuracy::cond::{CondSpec, parse_cond};
use treefix_accuracy::inputs::{self, WeightChoice};
use treefix_accuracy::lock::DirLock;
use treefix_accuracy::notice::{Notice, NoticeKind};
use treefix_accuracy::{Error, memory, sweep};

#[derive(Args)]
pub struct SweepArgs {
    /// Target condition numbers: a range `1e1..1e10` (log-spaced, see --points), one value, or a comma list.
    #[arg(long, default_value = "1e1..1e10", value_parser = parse_cond, allow_hyphen_values = true)]
    cond: CondSpec,
    /// Number of log-spaced targets in a --cond range.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    points: u64,
    /// Trees per target.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    trees: u64,
    /// Vertices per tree.
    #[arg(long, default_value_t = 10_000, value_parser = super::parse_count)]
    nodes: u64,
    /// Topologies, comma-separated: chain, star, random-recursive, prufer, kary[:k], broom[:fraction],
    /// caterpillar-legs, profile[:depth[:branching]].
    #[arg(long, value_delimiter = ',', default_value = "chain")]
    topology: Vec<Topology>,
    /// Tree files instead of generated topologies (repeat for several). With generated
    /// weights every file gets --trees draws per target; with `--weights file` (or
    /// --weights-file) each file is one tree with its own weights.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["topology", "nodes"])]
    tree: Vec<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    file_weights: WeightsFileArgs,
    /// Algorithms, comma-separated (default: the seed paper's three and the correctly rounded
    /// vectorial-exact, which the report's answer can then name).
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = super::algorithm_parser(),
        default_values_t = Algorithm::main_job()
    )]
    algos: Vec<Algorithm>,
    #[command(flatten)]
    instance: InstanceArgs,
    #[command(flatten)]
    ops: OpsArgs,
    #[command(flatten)]
    measure: MeasureArgs,
    /// Output directory (default reports/sweep-<timestamp>); an existing sweep there with the
    /// same parameters is resumed.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Continue the interrupted sweep in DIR with the parameters it was started with (read from
    /// DIR/sweep.json, its backend included; give no others): the finished rows are kept, the
    /// rest computed, and results.csv ends with the same bytes as an uninterrupted run.
    #[arg(long, value_name = "DIR", conflicts_with_all = [
        "cond", "points", "trees", "nodes", "topology", "algos", "weights", "seed",
        "child_order", "ops", "reference", "exact_on", "out", "tree", "weights_file", "format",
        "tree_index", "root", "forest",
    ])]
    resume: Option<PathBuf>,
    /// Run only part K of N of the sweep (K = 1..N): the trees whose index i has
    /// i mod N = K − 1, with the same indices and seeds as the whole sweep. Each part is a
    /// complete, resumable sweep directory; `accuracy merge` joins them. With --resume: checks
    /// that DIR holds this part.
    #[arg(long, value_name = "K/N")]
    shard: Option<sweep::Shard>,
    /// The report's answer names the cheapest algorithm that lost at most B bits at every
    /// node (default 1); recorded in summary.json, so `accuracy report DIR` keeps it.
    #[arg(long, value_name = "B", value_parser = super::parse_max_lost_bits)]
    max_lost_bits: Option<f64>,
    /// No progress bar and no table.
    #[arg(long)]
    quiet: bool,
}

pub fn run(a: SweepArgs) -> Result<(), Error> {
    let (quiet, max_lost_bits) = (a.quiet, a.max_lost_bits);
    let measure = a.measure.clone();
    let resuming = a.resume.is_some();
    // A resumed directory is locked before its sweep.json is read: one in use says so.
    let early = match &a.resume {
        Some(dir) => DirLock::acquire_existing(dir, "sweep")?,
        None => None,
    };
    let (mut params, files, dir) = prepare(a)?;
    if resuming {
        // Where the tree files are found now (a new sweep checked them before reading).
        let inputs: Vec<(&str, &Path)> = files.iter().flat_map(|f| f.inputs()).collect();
        sweep::files::check_inputs("--resume", &dir, &inputs)?;
    }
    let measure = match resuming {
        true => recorded_measure(&params, &measure, &dir)?,
        false => measure,
    };
    let selected = measure.backend()?;
    let backend = selected.backend;
    if !resuming {
        params.backend = selected.device;
        params.exact_on = measure.exact_on;
    }
    // The files' own numbers become weights here: check them before anything is written.
    if params.weights == WeightChoice::File {
        for f in &files {
            f.own_weights()?;
        }
    }
    for f in &files {
        super::show(&f.take_notices());
    }
    if !quiet {
        eprintln!("backend: {}", backend.describe());
        if let Some(line) = measure.reference_line() {
            eprintln!("{line}");
        }
    }
    // Memory and time before the first tree: refuse what cannot fit, say how long it takes.
    let plan = memory::sweep(
        &params,
        &files,
        selected.device == Device::Gpu,
        memory::threads(),
    );
    if !quiet {
        eprintln!("{}", plan.describe());
    }
    allocator::preflight("sweep", &plan.memory)?;
    // The directory is this process's until it ends: a second sweep, merge or report there
    // is refused instead of mixing its files with this one's.
    let lock = match early {
        Some(lock) => lock,
        None => DirLock::acquire(&dir, "sweep")?,
    };
    let notify = |n: Notice| {
        if !quiet || n.kind == NoticeKind::Warning {
            super::show([&n]);
        }
    };
    let outcome = sweep::run(&params, &files, &lock, &*backend, quiet, &notify);
    // A report shows bound violations too: it is written whenever the results are complete,
    // before anything is printed (a closed stdout ends the process at the first line).
    let written = match outcome {
        Ok(_) | Err(Error::BoundViolation(_)) => {
            Some(sweep::files::write_report(&dir, max_lost_bits)?)
        }
        _ => None,
    };
    if let Ok(rows) = &outcome {
        if !quiet {
            print!("{}", sweep::table(&params, rows));
            println!("wrote {}/results.csv and summary.json", dir.display());
        }
    }
    if let (Some(written), false) = (written, quiet) {
        println!("{}", super::report::describe(&written));
        super::report::print_answers(&written);
    }
    outcome.map(|_| ())
}

/// How a resumed sweep measures: as `sweep.json` recorded it, on the backend it ran on (its
/// GPU, never the CPU twins in its place: a machine without the adapter is an error, not a
/// silent switch). `--backend` may only repeat it (or be `auto`): rows of two backends in one
/// results.csv would be two sweeps.
fn recorded_measure(
    params: &sweep::SweepParams,
    given: &MeasureArgs,
    dir: &Path,
) -> Result<MeasureArgs, Error> {
    let recorded = params.backend;
    if let Some(other) = given
        .backend
        .filter(|&b| b != Device::Auto && b != recorded)
    {
        return Err(Error::Usage(format!(
            "{}: the sweep runs on the {} backend (its sweep.json); --backend {other} would mix \
             two backends in one results.csv: resume without --backend, or start another sweep",
            dir.display(),
            params.backend.name(),
        )));
    }
    Ok(MeasureArgs {
        backend: Some(recorded),
        exact_on: params.exact_on,
        reference: params.reference,
    })
}

/// The sweep's parameters, its tree files (read) and its directory: from the arguments, or
/// read back from the directory of `--resume`.
fn prepare(a: SweepArgs) -> Result<(sweep::SweepParams, Vec<inputs::LoadedTree>, PathBuf), Error> {
    if let Some(dir) = a.resume {
        let params = sweep::read_params(&dir)?;
        if a.shard.is_some() {
            sweep::same_part(&dir, params.shard, a.shard)?;
        }
        let files = params.load_files(&dir)?;
        return Ok((params, files, dir));
    }
    if a.instance.weights == WeightChoice::File && a.tree.is_empty() {
        return Err(Error::Usage(
            "--weights file needs tree files (--tree FILE)".into(),
        ));
    }
    if a.file_weights.weights_file.is_some() && a.tree.len() != 1 {
        return Err(Error::Usage(
            "--weights-file goes with exactly one --tree FILE".into(),
        ));
    }
    let named: Vec<PathBuf> = a
        .tree
        .iter()
        .chain(&a.file_weights.weights_file)
        .cloned()
        .collect();
    inputs::refuse_stdin("sweep", &named)?;
    let dir = a.out.unwrap_or_else(sweep::default_dir);
    let mut inputs: Vec<(&str, &Path)> = a
        .tree
        .iter()
        .map(|t| ("a tree file of --tree", t.as_path()))
        .collect();
    if let Some(w) = &a.file_weights.weights_file {
        inputs.push(("the weights file of --weights-file", w.as_path()));
    }
    sweep::files::check_inputs("--out", &dir, &inputs)?;
    let opts = a.read.options();
    let files = a
        .tree
        .iter()
        .map(|p| inputs::load(p, &opts, a.file_weights.weights_file.as_deref()))
        .collect::<Result<Vec<_>, Error>>()?;
    let weights = if a.file_weights.weights_file.is_some() {
        WeightChoice::File
    } else {
        a.instance.weights
    };
    let params = sweep::SweepParams {
        targets: a.cond.targets(a.points as usize),
        trees_per_target: a.trees as usize,
        nodes: a.nodes as usize,
        topologies: if files.is_empty() {
            a.topology
        } else {
            Vec::new()
        },
        weights,
        ops: a.ops.ops,
        algos: a.algos,
        reference: a.measure.reference,
        child_orders: a.instance.child_order,
        seed: a.instance.seed,
        files: files.iter().map(|f| f.input.clone().into()).collect(),
        shard: a.shard,
        // Set once the backend is chosen.
        backend: Device::Cpu,
        exact_on: Device::Cpu,
    };
    Ok((params, files, dir))
}
