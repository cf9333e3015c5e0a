//! `accuracy bench`: time per vertex of the GPU kernels, compute only and with transfers, and
//! the ratio parallel / vectorial (the paper's regularity-versus-load-balancing question).

use super::Gpu;
use crate::Error;
use crate::kernels;
use analysis::{Algorithm, Op};
use generators::{ChildOrder, Topology, WeightModel};
use std::fmt::Write;
use std::time::Instant;

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchParams {
    pub topologies: Vec<Topology>,
    /// Sizes 2^min_log2 ..= 2^max_log2.
    pub min_log2: u32,
    pub max_log2: u32,
    pub ops: Vec<Op>,
    /// Timed repetitions after one warm-up call (fewer when one call takes long).
    pub reps: usize,
    pub seed: u64,
}

/// Best-of-reps times of one kernel on one tree.
#[derive(Debug, Clone)]
pub struct Measure {
    pub compute_s: f64,
    pub with_transfers_s: f64,
    pub tree_upload_s: f64,
    pub reps: usize,
}

/// One (topology, n, op) with both kernels.
#[derive(Debug, Clone)]
pub struct BenchRow {
    pub topology: Topology,
    pub n: usize,
    pub height: u32,
    pub op: Op,
    pub parallel: Measure,
    pub vectorial: Measure,
}

/// Stop repeating a measurement once it has used this much wall time.
const BUDGET_S: f64 = 15.0;

fn measure(
    gpu: &Gpu,
    tree: &generators::Tree,
    w: &[f32],
    algo: Algorithm,
    op: Op,
    reps: usize,
) -> Result<Measure, Error> {
    // Warm-up: uploads the tree, and checks the result against the CPU twin bit for bit.
    let (values, first) = gpu.compute_timed(tree, w, algo, op)?;
    let twin = kernels::cpu(tree, w, algo, op);
    if let Some(v) = (0..values.len()).find(|&v| values[v].to_bits() != twin[v].to_bits()) {
        return Err(Error::Gpu(format!(
            "{algo} {op}: GPU result {} differs from the CPU twin {} at vertex {v}",
            values[v], twin[v]
        )));
    }
    let mut m = Measure {
        compute_s: f64::INFINITY,
        with_transfers_s: f64::INFINITY,
        tree_upload_s: first.tree_upload_s,
        reps: 0,
    };
    let start = Instant::now();
    while m.reps < reps.max(1) {
        let (_, t) = gpu.compute_timed(tree, w, algo, op)?;
        m.compute_s = m.compute_s.min(t.compute_s);
        m.with_transfers_s = m.with_transfers_s.min(t.with_transfers_s());
        m.reps += 1;
        if start.elapsed().as_secs_f64() > BUDGET_S {
            break;
        }
    }
    Ok(m)
}

/// Runs the benchmark; `progress` hears about each configuration before it runs.
pub fn run(
    gpu: &Gpu,
    p: &BenchParams,
    mut progress: impl FnMut(&str),
) -> Result<Vec<BenchRow>, Error> {
    let mut rows = Vec::new();
    for &topology in &p.topologies {
        for log2 in p.min_log2..=p.max_log2 {
            let n = 1usize << log2;
            let mut rng = generators::rng(p.seed);
            let tree = topology.generate(n, ChildOrder::Natural, &mut rng)?;
            let w = WeightModel::Normal.weights(n, 1.0, &mut rng)?;
            for &op in &p.ops {
                progress(&format!("{topology} n=2^{log2} {op}"));
                let parallel = measure(gpu, &tree, &w, Algorithm::Parallel, op, p.reps)?;
                let vectorial = measure(gpu, &tree, &w, Algorithm::Vectorial, op, p.reps)?;
                rows.push(BenchRow {
                    topology,
                    n,
                    height: tree.height(),
                    op,
                    parallel,
                    vectorial,
                });
            }
        }
    }
    Ok(rows)
}

/// A Markdown table: ns per vertex of each kernel, compute only and with transfers, and the
/// ratios parallel / vectorial.
pub fn table(gpu: &Gpu, rows: &[BenchRow]) -> String {
    use crate::experiment::Backend;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}; compute time by {}; best of the repetitions; ns per vertex",
        gpu.describe(),
        gpu.timing_method()
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| topology | n | height | op | parallel compute | vectorial compute | par/vec | parallel + transfers | vectorial + transfers | par/vec |"
    );
    let _ = writeln!(s, "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let per = |x: f64| x / r.n as f64 * 1e9;
        let _ = writeln!(
            s,
            "| {} | 2^{} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.topology,
            r.n.trailing_zeros(),
            r.height,
            r.op,
            per(r.parallel.compute_s),
            per(r.vectorial.compute_s),
            r.parallel.compute_s / r.vectorial.compute_s,
            per(r.parallel.with_transfers_s),
            per(r.vectorial.with_transfers_s),
            r.parallel.with_transfers_s / r.vectorial.with_transfers_s,
        );
    }
    s
}
