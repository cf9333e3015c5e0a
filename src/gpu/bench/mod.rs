//! `accuracy bench`: time per vertex of the GPU kernels, compute only and with transfers, the
//! ratio parallel / vectorial (the paper's regularity-versus-load-balancing question), and in
//! the same run the baselines they are judged against: a device copy kernel (`copy`) and plain
//! host↔device buffer copies (`upload`, `download`). Rows are
//! [`analysis::records::bench::BenchRecord`]s: medians over the repetitions with min and max.

mod baselines;
mod copying;
mod kernel;
mod parts;
mod warmer;

pub use parts::{Part, parts};

use super::Gpu;
use crate::Error;
use crate::experiment::Backend;
use analysis::records::bench::BenchRecord;
use analysis::{Algorithm, Op};
use baselines::baselines_warm;
use generators::{ChildOrder, Topology, Tree, WeightModel};
use kernel::{measure, sequential_row};
use reports::bench::table;
use warmer::Warmer;

/// What to measure (saved in `bench.json` by `bench --out`, and compared on resume).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BenchParams {
    pub topologies: Vec<Topology>,
    /// Sizes 2^min_log2 ..= 2^max_log2, unless `nodes` names the sizes.
    pub min_log2: u32,
    pub max_log2: u32,
    /// Vertex counts to time instead of the powers of two (`--nodes`: a sweep's own size, so
    /// that its report compares times of the size it measured).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<usize>,
    pub ops: Vec<Op>,
    /// GPU algorithms timed (sequential, the CPU baseline, always is).
    pub algos: Vec<Algorithm>,
    /// Timed repetitions after one warm-up call (fewer when one call takes long).
    pub reps: usize,
    pub seed: u64,
}

impl BenchParams {
    /// The vertex counts of the generated trees, in the order they are timed.
    pub fn sizes(&self) -> Vec<usize> {
        if self.nodes.is_empty() {
            (self.min_log2..=self.max_log2).map(|k| 1 << k).collect()
        } else {
            self.nodes.clone()
        }
    }
}

/// Stop repeating a measurement once it has used this much wall time.
const BUDGET_S: f64 = 15.0;

/// Measures parts on one device, keeping its clocks up before each timed call.
pub struct Bench<'a> {
    gpu: &'a Gpu,
    params: &'a BenchParams,
    warmer: Warmer,
}

/// The tree and weights a bench times for a generated part of `n` vertices: the topology's
/// tree, then normal weights, from one generator seeded with `seed`.
pub fn generated_input(topology: Topology, n: usize, seed: u64) -> Result<(Tree, Vec<f32>), Error> {
    let mut rng = generators::rng(seed);
    let tree = topology.generate(n, ChildOrder::Natural, &mut rng)?;
    let w = WeightModel::Normal.weights(n, 1.0, &mut rng)?;
    Ok((tree, w))
}

impl<'a> Bench<'a> {
    pub fn new(gpu: &'a Gpu, params: &'a BenchParams) -> Result<Bench<'a>, Error> {
        Ok(Bench {
            gpu,
            params,
            warmer: Warmer::new(gpu)?,
        })
    }

    /// The rows of one part; `files` are the tree files (name, tree) that `Part::File` indexes.
    pub fn measure(&self, part: Part, files: &[(String, Tree)]) -> Result<Vec<BenchRecord>, Error> {
        let p = self.params;
        match part {
            Part::Baselines(n) => baselines_warm(self.gpu, &self.warmer, n, p.reps),
            Part::Generated(topology, n) => {
                let (tree, w) = generated_input(topology, n, p.seed)?;
                self.tree(&topology.to_string(), &tree, &w)
            }
            Part::File(i) => {
                let (name, tree) = &files[i];
                // Normal weights from the seed, as for a generated tree.
                let n = tree.len();
                let w = WeightModel::Normal.weights(n, 1.0, &mut generators::rng(p.seed))?;
                let mut rows = baselines_warm(self.gpu, &self.warmer, n, p.reps)?;
                rows.extend(self.tree(name, tree, &w)?);
                Ok(rows)
            }
        }
    }

    /// Every op on one tree: the sequential CPU baseline, then each algorithm.
    fn tree(&self, name: &str, tree: &Tree, w: &[f32]) -> Result<Vec<BenchRecord>, Error> {
        let p = self.params;
        let mut rows = Vec::new();
        for &op in &p.ops {
            rows.push(sequential_row(self.gpu, name, (tree, w), op, p.reps));
            for &algo in &p.algos {
                rows.extend(measure(
                    self.gpu,
                    &self.warmer,
                    name,
                    (tree, w),
                    (algo, op),
                    p.reps,
                )?);
            }
        }
        Ok(rows)
    }
}

/// The terminal's tables of a run ([`table::terminal`]) in markdown: ns per vertex of each
/// kernel (medians; compute only and with weights up and results down), the ratio parallel /
/// vectorial, then the baselines and how close the vectorial stages and the transfers come to
/// them.
pub fn table(gpu: &Gpu, rows: &[BenchRecord]) -> String {
    let heading = format!(
        "{}; compute time by {}; medians of the repetitions, each after {} ms of GPU work (clocks up); ns per vertex",
        gpu.describe(),
        gpu.timing_method(),
        warmer::WARM_MS
    );
    table::markdown(&table::terminal(&heading, rows))
}
