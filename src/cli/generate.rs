//! `accuracy gen`: generated weights, one per line.

use super::parse_single_cond;
use clap::Args;
use generators::WeightModel;
use std::io::Write;
use treefix_accuracy::format::f32_shortest;
use treefix_accuracy::{Error, experiment, memory};

#[derive(Args)]
pub struct GenArgs {
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

pub fn run(a: GenArgs) -> Result<(), Error> {
    memory::check("gen", &memory::gen_weights(a.n as u64))?;
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
