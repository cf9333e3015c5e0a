//! `accuracy bench`: time per vertex of the GPU kernels.

use clap::Args;
use generators::Topology;
use treefix_accuracy::experiment::Backend;
use treefix_accuracy::{Error, gpu};

#[derive(Args)]
pub struct BenchArgs {
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
    ops: Vec<analysis::Op>,
    /// Timed repetitions per kernel (best kept; fewer when one takes long).
    #[arg(long, default_value_t = 3)]
    reps: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(a: BenchArgs) -> Result<(), Error> {
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
