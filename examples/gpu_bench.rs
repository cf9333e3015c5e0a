//! `accuracy bench` with its rows written to `bench.csv`, until the CLI has `--out` (a stand-in
//! for the device runs; same measurement code, `treefix_accuracy::gpu::bench`).
//!
//! Usage: `gpu_bench TOPOLOGIES MIN_LOG2 MAX_LOG2 OPS REPS OUT_DIR`, lists comma-separated;
//! `gpu_bench forest TOPOLOGY N TREES`: wall time of `compute_many` on TREES trees of N
//! vertices against one `compute` call per tree (the sweep's pattern), results compared.

use treefix_accuracy::experiment::Backend;
use treefix_accuracy::gpu::{Gpu, bench};

fn forest(a: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    use analysis::{Algorithm, Op};
    let topology: generators::Topology = a[0].parse()?;
    let (n, count): (usize, usize) = (a[1].parse()?, a[2].parse()?);
    let mut rng = generators::rng(1);
    let mut jobs = Vec::new();
    for _ in 0..count {
        let tree = topology.generate(n, generators::ChildOrder::Natural, &mut rng)?;
        let w = generators::WeightModel::Gensum.weights(n, 1e6, &mut rng)?;
        jobs.push((tree, w));
    }
    let jobs: Vec<(&generators::Tree, &[f32])> = jobs.iter().map(|(t, w)| (t, &w[..])).collect();
    let gpu = Gpu::new()?;
    println!("{}: {count} x {topology} n={n}", gpu.describe());
    for algo in [Algorithm::Parallel, Algorithm::Vectorial] {
        for op in Op::ALL {
            // First calls upload the structures; the second ones find them cached.
            for pass in ["upload", "cached"] {
                let t = std::time::Instant::now();
                let many = gpu.compute_many(&jobs, algo, op)?;
                let many_s = t.elapsed().as_secs_f64();
                let t = std::time::Instant::now();
                let ones: Vec<Vec<f32>> = jobs
                    .iter()
                    .map(|(t, w)| gpu.compute(t, w, algo, op))
                    .collect::<Result<_, _>>()?;
                let ones_s = t.elapsed().as_secs_f64();
                let same = many
                    .iter()
                    .zip(&ones)
                    .all(|(a, b)| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()));
                println!(
                    "{algo} {op} ({pass}): compute_many {:.3} ms, one by one {:.3} ms, ratio {:.1}, identical bits: {same}",
                    many_s * 1e3,
                    ones_s * 1e3,
                    ones_s / many_s
                );
            }
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.first().map(String::as_str) == Some("forest") && a.len() == 4 {
        return forest(&a[1..]);
    }
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
