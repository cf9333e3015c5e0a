//! `accuracy check`: the lost-bits regression suite.

use super::allocator;
use clap::Args;
use std::path::PathBuf;
use treefix_accuracy::experiment::Cpu;
use treefix_accuracy::{Error, check, memory};

#[derive(Args)]
pub struct CheckArgs {
    /// The committed baseline.
    #[arg(long, default_value = check::DEFAULT_BASELINE)]
    baseline: PathBuf,
    /// Rewrite the baseline from this code's output instead of comparing with it.
    #[arg(long)]
    update: bool,
}

pub fn run(a: CheckArgs) -> Result<(), Error> {
    let suite = check::suite();
    let instances = suite.topologies.len() * suite.conds.len() * suite.trees;
    let eval = memory::Evaluation {
        algos: &suite.algos,
        ops: suite.ops.len(),
        reference: analysis::ReferenceKind::Exact,
        gpu: false,
    };
    let need = memory::grid(instances, suite.nodes as u64, &eval, memory::threads());
    allocator::preflight("check", &need)?;
    let checked = check::run(&a.baseline, a.update, &Cpu)?;
    print!("{}", checked.report);
    checked.verdict
}
