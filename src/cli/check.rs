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
    // Said before the suite runs: outside a clone the default path names nothing.
    if !a.update && !a.baseline.is_file() {
        return Err(Error::Usage(format!(
            "{}: no such file. `accuracy check` compares this build's lost bits with a committed baseline (a clone's reports/baseline.json, relative to the current directory): run it from a clone's root, give --baseline FILE, or write one with --update",
            a.baseline.display()
        )));
    }
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
