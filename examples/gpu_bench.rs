//! `accuracy bench` with its rows written to `bench.csv`, until the CLI has `--out` (a stand-in
//! for the device runs; same measurement code, `treefix_accuracy::gpu::bench`).
//!
//! Usage: `gpu_bench TOPOLOGIES MIN_LOG2 MAX_LOG2 OPS REPS OUT_DIR`, lists comma-separated.

use treefix_accuracy::experiment::Backend;
use treefix_accuracy::gpu::{Gpu, bench};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() != 6 {
        return Err("usage: gpu_bench TOPOLOGIES MIN_LOG2 MAX_LOG2 OPS REPS OUT_DIR".into());
    }
    let list = |s: &str| s.split(',').map(str::to_string).collect::<Vec<_>>();
    let params = bench::BenchParams {
        topologies: list(&a[0])
            .iter()
            .map(|t| t.parse())
            .collect::<Result<_, _>>()?,
        min_log2: a[1].parse()?,
        max_log2: a[2].parse()?,
        ops: list(&a[3])
            .iter()
            .map(|t| t.parse())
            .collect::<Result<_, _>>()?,
        reps: a[4].parse()?,
        seed: 1,
    };
    let gpu = Gpu::new()?;
    eprintln!("backend: {}", gpu.describe());
    let rows = bench::run(&gpu, &params, |what| eprintln!("bench: {what}"))?;
    print!("{}", bench::table(&gpu, &rows));
    let path = bench::write_csv(std::path::Path::new(&a[5]), &rows)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
