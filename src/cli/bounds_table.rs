//! `accuracy bounds-table`: measured and allowed lost bits per topology, op and algorithm.

use super::allocator;
use super::{AllAlgosArgs, InstanceArgs, OpsArgs};
use clap::Args;
use generators::Topology;
use std::path::PathBuf;
use treefix_accuracy::cond::{CondSpec, parse_cond};
use treefix_accuracy::experiment::{Backend, Cpu};
use treefix_accuracy::inputs::WeightChoice;
use treefix_accuracy::{Error, bounds_table, grid, memory, verdict};

#[derive(Args)]
pub struct BoundsTableArgs {
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
    #[command(flatten)]
    algos: AllAlgosArgs,
    #[command(flatten)]
    instance: InstanceArgs,
    #[command(flatten)]
    ops: OpsArgs,
    /// Output directory for bounds-table.{csv,json,txt} (default reports/bounds-table-<timestamp>).
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(a: BoundsTableArgs) -> Result<(), Error> {
    let WeightChoice::Model(weights) = a.instance.weights else {
        return Err(Error::Usage(
            "bounds-table generates its trees: --weights file needs `run` or `sweep --tree`".into(),
        ));
    };
    let params = grid::GridParams {
        topologies: if a.topology.is_empty() {
            grid::default_topologies()
        } else {
            a.topology
        },
        conds: a.cond.targets(a.points as usize),
        trees: a.trees as usize,
        nodes: a.nodes as usize,
        weights,
        ops: a.ops.ops,
        algos: a.algos.algos,
        child_order: a.instance.child_order()?,
        seed: a.instance.seed,
    };
    let instances = params.topologies.len() * params.conds.len() * params.trees;
    let eval = memory::Evaluation {
        algos: &params.algos,
        ops: params.ops.len(),
        reference: analysis::ReferenceKind::Exact,
        gpu: false,
    };
    let need = memory::grid(instances, params.nodes as u64, &eval, memory::threads());
    allocator::preflight("bounds-table", &need)?;
    let backend = Cpu;
    eprintln!("backend: {}", backend.describe());
    let mut grid = grid::evaluate_grid(&params, &backend)?;
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
    // Against the exact reference a violation is a verdict, never a warning.
    verdict::fail_on_violations(&grid.violations, analysis::ReferenceKind::Exact).map(|_| ())
}
