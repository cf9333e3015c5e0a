//! Measuring one kernel on one tree (checked bit for bit against its CPU twin first), and the
//! sequential CPU baseline: the rows of their repetitions' medians, min and max.

use super::BUDGET_S;
use super::warmer::Warmer;
use crate::Error;
use crate::experiment::Backend;
use crate::gpu::Gpu;
use analysis::algorithms::PaperRole;
use analysis::records::bench::BenchRecord;
use analysis::{Algorithm, Op};
use generators::Tree;
use std::time::Instant;

/// Median ([`analysis::stats::median`]: the lower middle of an even count), min and max of
/// some times.
fn stats(mut xs: Vec<f64>) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    let m = xs.len();
    let median = analysis::stats::median(&mut xs).unwrap_or(f64::NAN);
    (median, xs[0], xs[m - 1])
}

/// Bytes a kernel must move at least (each input read once, each output written once; a
/// parent's or child's value counted once), per stage: the model behind the GB/s figures, from
/// the algorithm's descriptor.
fn kernel_bytes(algo: Algorithm, op: Op, w: &[f32]) -> Vec<(&'static str, u64)> {
    algo.gpu().map_or_else(Vec::new, |k| (k.traffic)(op, w))
}

struct Samples {
    compute: Vec<f64>,
    transfer: Vec<f64>,
    stages: Vec<Vec<f64>>,
}

/// A row named `algorithm` for `op` on a tree of `n` vertices.
pub(super) fn named(
    gpu: &Gpu,
    topology: &str,
    n: usize,
    height: u32,
    op: &str,
    algorithm: &str,
) -> BenchRecord {
    BenchRecord {
        topology: topology.to_string(),
        n,
        height,
        op: op.to_string(),
        algorithm: algorithm.to_string(),
        backend: gpu.describe(),
        compute_s: 0.0,
        compute_min_s: 0.0,
        compute_max_s: 0.0,
        transfer_s: 0.0,
        transfer_min_s: 0.0,
        transfer_max_s: 0.0,
        bytes_moved: 0,
        reps: 0,
    }
}

/// The sequential CPU twin on one core (the seed paper's speed-up baseline, its Fig. 5): wall
/// time of each repetition, backend `cpu`, no transfers.
pub(super) fn sequential_row(
    gpu: &Gpu,
    name: &str,
    (tree, w): (&Tree, &[f32]),
    op: Op,
    reps: usize,
) -> BenchRecord {
    let baseline = Algorithm::with_role(PaperRole::Baseline);
    let mut row = named(
        gpu,
        name,
        tree.len(),
        tree.height(),
        op.name(),
        baseline.name(),
    );
    row.backend = "cpu".into();
    let start = Instant::now();
    let mut times = Vec::new();
    while times.len() < reps.max(1)
        && (times.is_empty() || start.elapsed().as_secs_f64() < BUDGET_S)
    {
        let t = Instant::now();
        std::hint::black_box(baseline.twin(tree, w, op));
        times.push(t.elapsed().as_secs_f64());
    }
    let zeros = vec![0.0; times.len()];
    // Each weight read once and each result written once.
    timed(row, times, zeros, 8 * tree.len() as u64)
}

/// `row` with the statistics of its repetitions and the bytes it moves.
pub(super) fn timed(
    mut row: BenchRecord,
    compute: Vec<f64>,
    transfer: Vec<f64>,
    bytes_moved: u64,
) -> BenchRecord {
    row.reps = compute.len();
    (row.compute_s, row.compute_min_s, row.compute_max_s) = stats(compute);
    (row.transfer_s, row.transfer_min_s, row.transfer_max_s) = stats(transfer);
    row.bytes_moved = bytes_moved;
    row
}

/// One kernel on one tree: a warm-up call checked bit for bit against the CPU twin, then the
/// timed repetitions. Rows: the kernel, then (vectorial, with timestamps) each stage.
pub(super) fn measure(
    gpu: &Gpu,
    warmer: &Warmer,
    name: &str,
    (tree, w): (&Tree, &[f32]),
    (algo, op): (Algorithm, Op),
    reps: usize,
) -> Result<Vec<BenchRecord>, Error> {
    let (values, _) = gpu.compute_timed(tree, w, algo, op)?;
    let twin = algo.twin(tree, w, op);
    if let Some(v) = (0..values.len()).find(|&v| values[v].to_bits() != twin[v].to_bits()) {
        return Err(Error::Gpu(format!(
            "{algo} {op}: GPU result {} differs from the CPU twin {} at vertex {v}",
            values[v], twin[v]
        )));
    }
    let mut s = Samples {
        compute: Vec::new(),
        transfer: Vec::new(),
        stages: Vec::new(),
    };
    let start = Instant::now();
    while s.compute.len() < reps.max(1) {
        warmer.run(gpu)?;
        let (_, t) = gpu.compute_timed(tree, w, algo, op)?;
        s.compute.push(t.compute_s);
        s.transfer.push(t.transfer_s());
        s.stages.resize(t.stages.len(), Vec::new());
        for (k, &(_, x)) in t.stages.iter().enumerate() {
            s.stages[k].push(x);
        }
        if start.elapsed().as_secs_f64() > BUDGET_S {
            break;
        }
    }
    let bytes = kernel_bytes(algo, op, w);
    let total: u64 = bytes.iter().map(|b| b.1).sum();
    let reps = s.compute.len();
    let row = |algorithm: &str| {
        named(
            gpu,
            name,
            tree.len(),
            tree.height(),
            &op.to_string(),
            algorithm,
        )
    };
    let mut rows = vec![timed(row(&algo.to_string()), s.compute, s.transfer, total)];
    // A row per timed phase of a kernel of several, as its traffic model names them.
    if !s.stages.is_empty() && s.stages.len() == bytes.len() {
        for (k, times) in s.stages.into_iter().enumerate() {
            let stage = row(&format!("{algo}/{}", bytes[k].0));
            rows.push(timed(stage, times, vec![0.0; reps], bytes[k].1));
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(stats(vec![3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(stats(vec![4.0, 1.0, 2.0, 3.0]), (2.0, 1.0, 4.0));
    }
}
