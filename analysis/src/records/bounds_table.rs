//! `bounds-table.json` and `bounds-table.csv` (`accuracy bounds-table`): per topology,
//! condition number, op and algorithm, the bits measured lost and allowed by the bounds.
//!
//! Fields added after this version must be `Option` with `#[serde(default)]`, so files
//! written before them still read.

use super::fields::field_names;
use crate::{Algorithm, Op};
use generators::{ChildOrder, Topology, WeightModel};
use serde::{Deserialize, Serialize};

/// The JSON file's name in a directory (the report looks for it in a sweep directory).
pub const FILE: &str = "bounds-table.json";

/// A grid of seeded instances: topologies × target condition numbers × trees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridParams {
    pub topologies: Vec<Topology>,
    pub conds: Vec<f64>,
    pub trees: usize,
    pub nodes: usize,
    pub weights: WeightModel,
    pub ops: Vec<Op>,
    pub algos: Vec<Algorithm>,
    pub child_order: ChildOrder,
    pub seed: u64,
}

impl GridParams {
    /// The seed of tree `k` of (topology, cond): derived from their names, not from a position
    /// in the grid, so any sub-grid regenerates exactly the same instances.
    pub fn instance_seed(&self, topology: &Topology, cond: f64, k: usize) -> u64 {
        // FNV-1a over the topology's name: stable across platforms and versions.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in topology.to_string().bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let s = generators::derive_seed(self.seed, h);
        let s = generators::derive_seed(s, cond.to_bits());
        generators::derive_seed(s, k as u64)
    }
}

/// One row of `bounds-table.csv` (and of `rows` in the JSON file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    pub topology: String,
    pub target_cond: f64,
    pub achieved_cond_median: f64,
    pub op: String,
    pub algorithm: String,
    pub trees: usize,
    pub nodes: usize,
    /// Most bits lost by any node (measured against the exact reference).
    pub max_lost_bits: f64,
    /// Percentiles (nearest rank) of the lost bits over the nodes with x ≠ 0.
    pub p50_lost_bits: f64,
    pub p90_lost_bits: f64,
    pub p99_lost_bits: f64,
    /// Most bits the a priori bound allows any node to lose: lost_bits(bound / |x|).
    pub max_bound_lost_bits: f64,
    /// Percentiles of the bits the a priori bound allows.
    pub p50_bound_lost_bits: f64,
    pub p99_bound_lost_bits: f64,
    /// The same for the sharp a priori bound.
    pub max_sharp_lost_bits: f64,
    /// |error| / a priori bound over the nodes.
    pub median_tightness: f64,
    pub max_tightness: f64,
    /// |error| / sharp a priori bound over the nodes.
    pub median_sharp_tightness: f64,
    pub max_sharp_tightness: f64,
    pub bound_violations: usize,
    pub sharp_violations: usize,
    pub running_violations: usize,
    pub prob_violations: usize,
    /// Vectorial algorithms: fraction of nodes whose predicted (a priori bound ratio) and
    /// measured (error ratio) extra lost bits over parallel agree within 1 bit, and the median
    /// of predicted − measured (empty for the other algorithms).
    pub extra_bits_agreement: Option<f64>,
    pub extra_bits_median_offset: Option<f64>,
    /// The same, predicted by the sharp bound's ratio.
    pub sharp_extra_bits_agreement: Option<f64>,
    pub sharp_extra_bits_median_offset: Option<f64>,
    pub extra_bits_nodes: usize,
}

impl TableRow {
    /// Every column of `bounds-table.csv` (and key of a JSON row), in file order.
    pub fn columns() -> &'static [&'static str] {
        field_names::<TableRow>()
    }
}

/// Pooled over every cell of one algorithm (or one algorithm and op).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlgoSummary {
    pub algorithm: String,
    pub op: Option<String>,
    pub nodes: usize,
    pub median_tightness: f64,
    pub max_tightness: f64,
    pub median_sharp_tightness: f64,
    pub max_sharp_tightness: f64,
    /// Per predictor (`PREDICTORS` of the bounds table): (fraction within 1 bit, median
    /// predicted − measured), for the vectorial algorithms.
    pub extra_bits: Vec<Option<Agreement>>,
    pub extra_bits_nodes: usize,
}

/// How well one bound ratio predicts the measured extra lost bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    pub predictor: String,
    /// Fraction of nodes with |predicted − measured| ≤ 1 bit.
    pub within_1_bit: f64,
    /// Median of predicted − measured, in bits.
    pub median_offset: f64,
}

/// What `bounds-table.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableReport {
    pub tool: String,
    pub version: String,
    pub command_line: Vec<String>,
    pub params: GridParams,
    pub backend: String,
    pub lambda: f64,
    pub reference: String,
    pub rows: Vec<TableRow>,
    pub per_algorithm: Vec<AlgoSummary>,
    pub per_algorithm_and_op: Vec<AlgoSummary>,
    pub wall_s: f64,
}
