//! One module per `accuracy` subcommand: its arguments and what it does. `main.rs` only
//! parses and dispatches; argument groups shared by several commands live here, declared once
//! and flattened into each command.

pub mod bench;
pub mod bounds_table;
pub mod check;
pub mod generate;
pub mod report;
pub mod run;
pub mod sweep;

use analysis::{Algorithm, Op, ReferenceKind};
use clap::Args;
use generators::{ChildOrder, WeightModel};
use treefix_accuracy::cond::{CondSpec, parse_cond};
use treefix_accuracy::gpu::BackendChoice;

/// How a weighted tree is generated: weight model, seed and child order.
#[derive(Args, Clone)]
pub struct InstanceArgs {
    /// Weight model: gensum, uniform, normal, lognormal, integers, ones.
    #[arg(long, default_value = "gensum")]
    pub weights: WeightModel,
    /// Seed of the portable generator (ChaCha20); the same seed gives the same trees and weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Child order, which fixes the Euler tour: natural, light-first, heavy-first.
    #[arg(long, default_value = "natural")]
    pub child_order: ChildOrder,
}

/// Which operations to compute.
#[derive(Args, Clone)]
pub struct OpsArgs {
    /// Operations, comma-separated: rootfix, leaffix.
    #[arg(long, value_delimiter = ',', default_value = "rootfix,leaffix")]
    pub ops: Vec<Op>,
}

/// What the results are measured against, and where the kernels run.
#[derive(Args, Clone)]
pub struct MeasureArgs {
    /// Reference for the errors: exact (MPFR) or dd (double-double, faster, not exact).
    #[arg(long, default_value = "exact")]
    pub reference: ReferenceKind,
    /// Where parallel and vectorial run: cpu (their twins), gpu, or auto (GPU if an adapter
    /// exists, else CPU). The results are the same bits either way (tested); the GPU checks that
    /// on real hardware. Default cpu: a deep tree costs one GPU dispatch per level.
    #[arg(long, default_value = "cpu")]
    pub backend: BackendChoice,
}

/// Algorithms, with every algorithm as the default.
#[derive(Args, Clone)]
pub struct AllAlgosArgs {
    /// Algorithms, comma-separated: sequential, parallel, vectorial, vectorial-seqscan.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sequential,parallel,vectorial,vectorial-seqscan"
    )]
    pub algos: Vec<Algorithm>,
}

/// A `--cond` option that takes exactly one value.
pub fn parse_single_cond(s: &str) -> Result<f64, String> {
    match parse_cond(s)? {
        CondSpec::List(v) if v.len() == 1 => Ok(v[0]),
        _ => Err(format!(
            "invalid condition number '{s}': expected one value such as 1e5"
        )),
    }
}
