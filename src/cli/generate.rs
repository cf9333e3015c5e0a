//! `accuracy gen`: generated weights, one per line.

use super::parse_single_cond;
use clap::Args;
use generators::WeightModel;
use std::io::Write;
use treefix_accuracy::format::f32_shortest;
use treefix_accuracy::{Error, experiment, memory};

#[derive(Args)]
pub struct GenArgs {
    /// Number of values (10000, 1e6, 2^20).
    #[arg(long, value_parser = super::parse_len)]
    n: u64,
    /// Target condition number.
    #[arg(long, value_parser = parse_single_cond, allow_hyphen_values = true)]
    cond: f64,
    /// Seed of the portable generator: the same seed gives the same weights (Python's
    /// gensum(n, cond, seed) gives the same bits).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Weight model (default gensum).
    #[arg(long, default_value = "gensum")]
    weights: WeightModel,
}

pub fn run(a: GenArgs) -> Result<(), Error> {
    memory::check("gen", &memory::gen_weights(a.n))?;
    let w = a
        .weights
        .weights(a.n as usize, a.cond, &mut generators::rng(a.seed))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // A closed pipe (`| head`) ends the process quietly (SIGPIPE, see main); any other
    // failed write (a full disk) is a one-line error.
    let failed = |e: std::io::Error| Error::Usage(format!("stdout: write failed: {e}"));
    for x in &w {
        writeln!(out, "{}", f32_shortest(*x)).map_err(failed)?;
    }
    out.flush().map_err(failed)?;
    eprintln!(
        "achieved condition number: {:e}",
        experiment::achieved_cond(&w)
    );
    Ok(())
}
