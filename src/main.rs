//! `accuracy`: the command-line front end.

use analysis::{Algorithm, Op, ReferenceKind};
use clap::{Args, Parser, Subcommand};
use generators::{ChildOrder, Topology, WeightModel};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use treefix_accuracy::cond::{CondSpec, parse_cond};
use treefix_accuracy::experiment::{self, Backend, Cpu, InstanceSpec};
use treefix_accuracy::format::{f32_shortest, f64_shortest, sci};
use treefix_accuracy::gpu::{self, BackendChoice};
use treefix_accuracy::{Error, bounds_table, check, sweep};

#[derive(Parser)]
#[command(
    name = "accuracy",
    version,
    about = "Measures, bounds and explains the bits f32 treefix computations lose"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The paper's accuracy experiment (Fig. 10) over a range of condition numbers.
    Sweep(SweepArgs),
    /// One tree, every algorithm: per-node results and errors.
    Run(RunArgs),
    /// Print generated weights, one per line (achieved condition number on stderr).
    Gen(GenArgs),
    /// Per topology, op and algorithm: max lost bits measured and allowed by the error bound,
    /// bound tightness, and predicted vs measured extra bits of vectorial over parallel.
    BoundsTable(BoundsTableArgs),
    /// Lost-bits regression suite against the committed baseline (exit 3: a bound violated,
    /// exit 4: a regression).
    Check(CheckArgs),
    /// Re-render DIR/report.html from a sweep directory's files, without recomputing.
    Report(ReportArgs),
    /// GPU adapters and their limits.
    Info,
    /// Time per vertex of the GPU kernels (parallel vs vectorial) on star and chain trees.
    Bench(BenchArgs),
}

#[derive(Args)]
struct ReportArgs {
    /// A sweep directory (holds results.csv; summary.json, nodes-sample.csv are optional).
    dir: PathBuf,
    /// Per-topology bounds table (JSON) to include; default DIR/bounds-table.json if present.
    #[arg(long)]
    bounds_table: Option<PathBuf>,
    /// Where to write the report (default DIR/report.html).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Options shared by `sweep` and `run`.
#[derive(Args)]
struct Common {
    /// Weight model: gensum, uniform, normal, lognormal, integers, ones.
    #[arg(long, default_value = "gensum")]
    weights: WeightModel,
    /// Seed of the portable generator (ChaCha20); the same seed gives the same trees and weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Operations, comma-separated: rootfix, leaffix.
    #[arg(long, value_delimiter = ',', default_value = "rootfix,leaffix")]
    ops: Vec<Op>,
    /// Reference for the errors: exact (MPFR) or dd (double-double, faster, not exact).
    #[arg(long, default_value = "exact")]
    reference: ReferenceKind,
    /// Child order, which fixes the Euler tour: natural, light-first, heavy-first.
    #[arg(long, default_value = "natural")]
    child_order: ChildOrder,
    /// Where parallel and vectorial run: cpu (their twins), gpu, or auto (GPU if an adapter
    /// exists, else CPU). The results are the same bits either way (tested); the GPU checks that
    /// on real hardware. Default cpu: a deep tree costs one GPU dispatch per level.
    #[arg(long, default_value = "cpu")]
    backend: BackendChoice,
}

#[derive(Args)]
struct SweepArgs {
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
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=(1 << 31)))]
    nodes: u64,
    /// Topologies, comma-separated: chain, star, random-recursive, prufer, kary[:k], broom[:fraction],
    /// caterpillar-legs, profile[:depth[:branching]].
    #[arg(long, value_delimiter = ',', default_value = "chain")]
    topology: Vec<Topology>,
    /// Algorithms, comma-separated: sequential, parallel, vectorial, vectorial-seqscan.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sequential,parallel,vectorial"
    )]
    algos: Vec<Algorithm>,
    #[command(flatten)]
    common: Common,
    /// Output directory (default reports/sweep-<timestamp>); an existing sweep there is resumed.
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress bar and no table.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
struct RunArgs {
    /// Topology (see `sweep --help`).
    #[arg(long)]
    topology: Topology,
    /// Vertices.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=(1 << 31)))]
    nodes: u64,
    /// Target condition number (gensum weights).
    #[arg(long, default_value = "1e5", value_parser = parse_single_cond, allow_hyphen_values = true)]
    cond: f64,
    /// Algorithms, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sequential,parallel,vectorial,vectorial-seqscan"
    )]
    algos: Vec<Algorithm>,
    #[command(flatten)]
    common: Common,
    /// Write per-node results to this CSV file.
    #[arg(long)]
    dump: Option<PathBuf>,
}

#[derive(Args)]
struct GenArgs {
    /// Number of values.
    #[arg(long)]
    n: usize,
    /// Target condition number.
    #[arg(long, value_parser = parse_single_cond, allow_hyphen_values = true)]
    cond: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Weight model (default gensum).
    #[arg(long, default_value = "gensum")]
    weights: WeightModel,
}

#[derive(Args)]
struct BoundsTableArgs {
    /// Target condition numbers (gensum weights): a comma list, one value, or a range.
    #[arg(long, default_value = "1e2,1e5,1e8", value_parser = parse_cond, allow_hyphen_values = true)]
    cond: CondSpec,
    /// Number of log-spaced targets in a --cond range.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    points: u64,
    /// Trees per topology and target.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    trees: u64,
    /// Vertices per tree.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=(1 << 31)))]
    nodes: u64,
    /// Topologies, comma-separated (default: every family with default parameters).
    #[arg(long, value_delimiter = ',')]
    topology: Vec<Topology>,
    /// Algorithms, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sequential,parallel,vectorial,vectorial-seqscan"
    )]
    algos: Vec<Algorithm>,
    /// Weight model.
    #[arg(long, default_value = "gensum")]
    weights: WeightModel,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Operations, comma-separated: rootfix, leaffix.
    #[arg(long, value_delimiter = ',', default_value = "rootfix,leaffix")]
    ops: Vec<Op>,
    /// Child order: natural, light-first, heavy-first.
    #[arg(long, default_value = "natural")]
    child_order: ChildOrder,
    /// Output directory for bounds-table.{csv,json,txt} (default reports/bounds-table-<timestamp>).
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct CheckArgs {
    /// The committed baseline.
    #[arg(long, default_value = check::DEFAULT_BASELINE)]
    baseline: PathBuf,
    /// Rewrite the baseline from this code's output instead of comparing with it.
    #[arg(long)]
    update: bool,
}

#[derive(Args)]
struct BenchArgs {
    /// Topologies, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "star,chain")]
    topology: Vec<Topology>,
    /// Smallest size, as log2 of the vertex count.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(0..=30))]
    min_log2: u32,
    /// Largest size, as log2 of the vertex count.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=30))]
    max_log2: u32,
    /// Operations, comma-separated: rootfix, leaffix.
    #[arg(long, value_delimiter = ',', default_value = "rootfix")]
    ops: Vec<Op>,
    /// Timed repetitions per kernel (best kept; fewer when one takes long).
    #[arg(long, default_value_t = 3)]
    reps: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn parse_single_cond(s: &str) -> Result<f64, String> {
    match parse_cond(s)? {
        CondSpec::List(v) if v.len() == 1 => Ok(v[0]),
        _ => Err(format!(
            "invalid condition number '{s}': expected one value such as 1e5"
        )),
    }
}

fn main() -> ExitCode {
    quiet_mesa();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sweep(a) => cmd_sweep(a),
        Command::Run(a) => cmd_run(a),
        Command::Gen(a) => cmd_gen(a),
        Command::Report(a) => cmd_report(a),
        Command::BoundsTable(a) => cmd_bounds_table(a),
        Command::Check(a) => cmd_check(a),
        Command::Info => {
            print!("{}", gpu::info_text());
            Ok(())
        }
        Command::Bench(a) => cmd_bench(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// Mesa's Vulkan loader prints "XDG_RUNTIME_DIR is invalid" on every device creation when the
/// variable is unset (as in containers and CI); point it at a private directory instead.
fn quiet_mesa() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    let dir = std::env::temp_dir().join("treefix-runtime");
    if std::fs::create_dir_all(&dir).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        // SAFETY: called first thing in main, before any other thread exists.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
}

fn cmd_sweep(a: SweepArgs) -> Result<(), Error> {
    let params = sweep::SweepParams {
        targets: a.cond.targets(a.points as usize),
        trees_per_target: a.trees as usize,
        nodes: a.nodes as usize,
        topologies: a.topology,
        weights: a.common.weights,
        ops: a.common.ops,
        algos: a.algos,
        reference: a.common.reference,
        child_order: a.common.child_order,
        seed: a.common.seed,
    };
    let dir = a.out.unwrap_or_else(sweep::default_dir);
    let backend = gpu::select_backend(a.common.backend)?;
    if !a.quiet {
        eprintln!("backend: {}", backend.describe());
    }
    let outcome = sweep::run(&params, &dir, &*backend, a.quiet);
    if let Ok(rows) = &outcome {
        if !a.quiet {
            print!("{}", sweep::table(&params, rows));
            println!("wrote {}/results.csv and summary.json", dir.display());
        }
    }
    // A report shows bound violations too: it is written whenever the results are complete.
    if matches!(outcome, Ok(_) | Err(Error::BoundViolation(_))) {
        let written = analysis::report::write_report(&dir, None, None)?;
        if !a.quiet {
            println!("{}", describe_report(&written));
        }
    }
    outcome.map(|_| ())
}

fn describe_report(w: &analysis::report::Written) -> String {
    format!(
        "wrote {} ({:.2} MB, rendered in {:.2} s)",
        w.path.display(),
        w.bytes as f64 / 1e6,
        w.render_s
    )
}

fn cmd_report(a: ReportArgs) -> Result<(), Error> {
    let written =
        analysis::report::write_report(&a.dir, a.bounds_table.as_deref(), a.out.as_deref())?;
    println!("{}", describe_report(&written));
    Ok(())
}

fn cmd_run(a: RunArgs) -> Result<(), Error> {
    let spec = InstanceSpec {
        topology: a.topology,
        n: a.nodes as usize,
        weights: a.common.weights,
        target_cond: a.cond,
        child_order: a.common.child_order,
        seed: a.common.seed,
    };
    let instance = spec.generate()?;
    let backend = gpu::select_backend(a.common.backend)?;
    eprintln!("backend: {}", backend.describe());
    let results = experiment::evaluate(
        &instance,
        &a.common.ops,
        &a.algos,
        a.common.reference,
        &*backend,
    )?;
    println!(
        "{} n={} height={} mean branching={:.1} weights={} achieved κ={} seed={}",
        spec.topology,
        spec.n,
        instance.tree.height(),
        instance.tree.mean_branching(),
        spec.weights,
        sci(experiment::achieved_cond(&instance.weights)),
        spec.seed
    );
    println!(
        "{:<8} {:<18} {:>10} {:>10} {:>10} {:>8} {:>7}",
        "op", "algorithm", "max rel", "median", "p99", "max bits", "flagged"
    );
    for r in &results {
        for o in &r.outcomes {
            let s = &o.summary;
            println!(
                "{:<8} {:<18} {:>10} {:>10} {:>10} {:>8.2} {:>7}",
                r.op.name(),
                o.algorithm.name(),
                sci(s.max_rel_error),
                sci(s.median_rel_error),
                sci(s.p99_rel_error),
                s.max_lost_bits,
                s.flagged_nodes
            );
        }
    }
    print!("{}", bounds_summary(&results));
    if let Some(path) = a.dump {
        dump(&path, &instance, &results)?;
        println!("wrote {}", path.display());
    }
    bounds_table::fail_on_violations(&bounds_table::violations(
        &format!("seed {}", spec.seed),
        &results,
    ))
}

/// `run`'s second table: the bounds of each op × algorithm.
fn bounds_summary(results: &[experiment::OpResults]) -> String {
    let mut s = format!(
        "{:<8} {:<18} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
        "op",
        "algorithm",
        "bound bits",
        "sharp bits",
        "tight med",
        "tight max",
        "violations",
        "prob viol"
    );
    for r in results {
        for o in &r.outcomes {
            let b = &o.bound_summary;
            s += &format!(
                "{:<8} {:<18} {:>10.2} {:>10.2} {:>10} {:>10} {:>10} {:>10}\n",
                r.op.name(),
                o.algorithm.name(),
                b.max_bound_lost_bits,
                b.max_sharp_lost_bits,
                sci(b.median_tightness),
                sci(b.max_tightness),
                b.bound_violations + b.sharp_violations + b.running_violations,
                b.prob_violations
            );
        }
    }
    s
}

/// Per-node CSV: one row per op × algorithm × vertex.
fn dump(
    path: &PathBuf,
    instance: &experiment::Instance,
    results: &[experiment::OpResults],
) -> Result<(), Error> {
    let file = std::fs::File::create(path).map_err(Error::io(path))?;
    let mut w = csv::Writer::from_writer(std::io::BufWriter::new(file));
    let tree = &instance.tree;
    w.write_record([
        "vertex",
        "parent",
        "depth",
        "weight",
        "op",
        "algorithm",
        "result",
        "reference",
        "rel_error",
        "lost_bits",
        "cond",
        "bound",
        "sharp_bound",
        "prob_bound",
        "running_bound",
        "cond_scan",
        "pred_extra_bits",
        "meas_extra_bits",
    ])
    .map_err(Error::csv(path))?;
    for r in results {
        let reference: Vec<String> = (0..tree.len())
            .map(|v| r.reference.value_string(v))
            .collect();
        let scan_prefix = analysis::metrics::scan_abs_prefix(tree, &instance.weights, r.op);
        let base = bounds_table::baseline_outcome(r);
        for o in &r.outcomes {
            let vectorial = matches!(
                o.algorithm,
                Algorithm::Vectorial | Algorithm::VectorialSeqscan
            );
            for v in 0..tree.len() {
                let e = &o.errors[v];
                let x = r.reference.value_f64(v).abs();
                let extra = base
                    .filter(|_| vectorial)
                    .and_then(|b| bounds_table::node_extra_bits(r, o, b, v));
                w.write_record([
                    v.to_string(),
                    tree.parent(v as u32)
                        .map(|p| p.to_string())
                        .unwrap_or_default(),
                    tree.depth(v as u32).to_string(),
                    f32_shortest(instance.weights[v]),
                    r.op.to_string(),
                    o.algorithm.to_string(),
                    f32_shortest(o.values[v]),
                    reference[v].clone(),
                    if e.flagged {
                        "flagged".into()
                    } else {
                        format!("{:e}", e.rel)
                    },
                    format!("{:.3}", e.lost_bits()),
                    format!("{:e}", r.reference.cond(v)),
                    f64_shortest(o.bounds.det[v]),
                    f64_shortest(o.bounds.sharp[v]),
                    f64_shortest(o.bounds.prob[v]),
                    f64_shortest(o.bounds.running[v]),
                    f64_shortest(scan_prefix[v] / x),
                    extra.map(|(p, _)| format!("{p:.3}")).unwrap_or_default(),
                    extra.map(|(_, m)| format!("{m:.3}")).unwrap_or_default(),
                ])
                .map_err(Error::csv(path))?;
            }
        }
    }
    w.flush().map_err(Error::io(path))?;
    Ok(())
}

fn cmd_bounds_table(a: BoundsTableArgs) -> Result<(), Error> {
    let params = bounds_table::GridParams {
        topologies: if a.topology.is_empty() {
            bounds_table::default_topologies()
        } else {
            a.topology
        },
        conds: a.cond.targets(a.points as usize),
        trees: a.trees as usize,
        nodes: a.nodes as usize,
        weights: a.weights,
        ops: a.ops,
        algos: a.algos,
        child_order: a.child_order,
        seed: a.seed,
    };
    let backend = Cpu;
    eprintln!("backend: {}", backend.describe());
    let mut grid = bounds_table::evaluate_grid(&params, &backend)?;
    let report = bounds_table::report(&mut grid, &backend.describe());
    let text = bounds_table::render(&report);
    let dir = a.out.unwrap_or_else(bounds_table::default_dir);
    bounds_table::write(&dir, &report, &text)?;
    print!("{text}");
    println!(
        "wrote {}/bounds-table.{{csv,json,txt}} ({:.1} s)",
        dir.display(),
        report.wall_s
    );
    bounds_table::fail_on_violations(&grid.violations)
}

fn cmd_check(a: CheckArgs) -> Result<(), Error> {
    let out = check::run(&a.baseline, a.update, &Cpu)?;
    print!("{out}");
    Ok(())
}

fn cmd_gen(a: GenArgs) -> Result<(), Error> {
    let w = a
        .weights
        .weights(a.n, a.cond, &mut generators::rng(a.seed))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for x in &w {
        // A closed pipe (`| head`) is not an error worth a message.
        if writeln!(out, "{}", f32_shortest(*x)).is_err() {
            return Ok(());
        }
    }
    let _ = out.flush();
    eprintln!(
        "achieved condition number: {:e}",
        experiment::achieved_cond(&w)
    );
    Ok(())
}

fn cmd_bench(a: BenchArgs) -> Result<(), Error> {
    if a.min_log2 > a.max_log2 {
        return Err(Error::Usage(format!(
            "--min-log2 {} is above --max-log2 {}",
            a.min_log2, a.max_log2
        )));
    }
    let gpu = gpu::Gpu::new()?;
    eprintln!("backend: {}", gpu.describe());
    let params = gpu::bench::BenchParams {
        topologies: a.topology,
        min_log2: a.min_log2,
        max_log2: a.max_log2,
        ops: a.ops,
        reps: a.reps,
        seed: a.seed,
    };
    let rows = gpu::bench::run(&gpu, &params, |what| eprintln!("bench: {what}"))?;
    print!("{}", gpu::bench::table(&gpu, &rows));
    Ok(())
}
