//! `accuracy run`: one tree, every algorithm; per-node results, errors and bounds.

use super::{AllAlgosArgs, InstanceArgs, MeasureArgs, OpsArgs, parse_single_cond};
use analysis::Algorithm;
use clap::Args;
use generators::Topology;
use std::path::{Path, PathBuf};
use treefix_accuracy::experiment::{self, InstanceSpec};
use treefix_accuracy::format::{f32_shortest, f64_shortest, sci};
use treefix_accuracy::{Error, bounds_table, gpu, sweep};

#[derive(Args)]
pub struct RunArgs {
    /// Topology (see `sweep --help`).
    #[arg(long)]
    topology: Topology,
    /// Vertices.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=(1 << 31)))]
    nodes: u64,
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
    /// Write per-node results to this CSV file.
    #[arg(long)]
    dump: Option<PathBuf>,
}

pub fn run(a: RunArgs) -> Result<(), Error> {
    let spec = InstanceSpec {
        topology: a.topology,
        n: a.nodes as usize,
        weights: a.instance.weights,
        target_cond: a.cond,
        child_order: a.instance.child_order,
        seed: a.instance.seed,
    };
    let instance = spec.generate()?;
    let backend = gpu::select_backend(a.measure.backend)?;
    eprintln!("backend: {}", backend.describe());
    let results = experiment::evaluate(
        &instance,
        &a.ops.ops,
        &a.algos.algos,
        a.measure.reference,
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
    print!("{}", error_summary(&results));
    print!("{}", bounds_summary(&results));
    if let Some(path) = a.dump {
        dump(&path, &instance, &results)?;
        println!("wrote {}", path.display());
    }
    let context = format!("seed {}", spec.seed);
    sweep::fail_on_mismatches(&experiment::mismatch_report(&context, &results))?;
    bounds_table::fail_on_violations(
        &bounds_table::violations(&context, &results),
        a.measure.reference,
    )
}

/// `run`'s first table: the errors of each op × algorithm.
fn error_summary(results: &[experiment::OpResults]) -> String {
    let mut s = format!(
        "{:<8} {:<18} {:>10} {:>10} {:>10} {:>8} {:>7}\n",
        "op", "algorithm", "max rel", "median", "p99", "max bits", "flagged"
    );
    for r in results {
        for o in &r.outcomes {
            let e = &o.summary;
            s += &format!(
                "{:<8} {:<18} {:>10} {:>10} {:>10} {:>8.2} {:>7}\n",
                r.op.name(),
                o.algorithm.name(),
                sci(e.max_rel_error),
                sci(e.median_rel_error),
                sci(e.p99_rel_error),
                e.max_lost_bits,
                e.flagged_nodes
            );
        }
    }
    s
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

/// The per-node dump's columns.
const DUMP_COLUMNS: [&str; 18] = [
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
];

/// Per-node CSV: one row per op × algorithm × vertex.
fn dump(
    path: &Path,
    instance: &experiment::Instance,
    results: &[experiment::OpResults],
) -> Result<(), Error> {
    let file = std::fs::File::create(path).map_err(Error::io(path))?;
    let mut w = csv::Writer::from_writer(std::io::BufWriter::new(file));
    let tree = &instance.tree;
    w.write_record(DUMP_COLUMNS).map_err(Error::csv(path))?;
    for r in results {
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
                    r.reference.value_string(v),
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
