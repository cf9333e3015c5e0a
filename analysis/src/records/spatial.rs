//! `accuracy spatial --json FILE`: the energy and depth of every message pattern of every
//! layout, at every size, with the fitted exponent (docs/design.md §12). `format_version`
//! changes when a field changes meaning or goes away; fields added later are `Option`s.

use crate::Op;
use crate::spatial::{Curve, LinearOrder};
use serde::{Deserialize, Serialize};

/// The version of this document's format. 2: `depth` is the depth under the model's limit of
/// one message sent and one received per processor per round (1's `depth` is `chain_depth`);
/// the layout's and the virtual tree's construction are patterns; the time estimate.
pub const FORMAT_VERSION: u32 = 2;

/// The whole document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpatialRecord {
    pub format_version: u32,
    pub tool: String,
    pub version: String,
    pub command_line: Vec<String>,
    /// The weight model (`gensum`, …, or `file`), its target condition number and the seed.
    pub weights: String,
    pub target_cond: f64,
    pub seed: u64,
    pub ops: Vec<Op>,
    /// One per size of a topology, or one per tree file, in the order of the points.
    pub trees: Vec<TreeRecord>,
    /// The parameters of the time estimate (`analysis::spatial::time_model`).
    pub time_model: TimeModelRecord,
    /// One per order × curve, orders outermost.
    pub layouts: Vec<LayoutRecord>,
    /// Batched LCA's answers, where queries were given (`--lca`, `--lca-random`).
    #[serde(default)]
    pub lca_queries: Option<LcaQueriesRecord>,
    /// Per op and algorithm, at the largest tree: bits, time, energy and depth side by side
    /// (`crate::records::spatial_answer`).
    #[serde(default)]
    pub answer: Vec<AnswerRecord>,
    pub timings: Timings,
}

/// T_R and the share of active links of the estimate T = max(C, E/N + L) + (2·T_R + 1)·D.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeModelRecord {
    /// T_R, cycles.
    pub ramp_latency: f64,
    /// N as a share of the directed links between the processors that hold a vertex.
    pub active_links: f64,
}

/// Batched LCA on given queries: where they came from, where the answers went, and what the
/// replay that gave them cost (the `lca` pattern of every preorder layout, whose answers agree).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LcaQueriesRecord {
    /// The queries file, or `random K (seed S)`.
    pub source: String,
    pub queries: u64,
    /// The CSV of answers (`u,v,lca`).
    pub answers: String,
}

/// One algorithm on one op, at the largest tree: what it loses, what it costs on a GPU (or
/// its CPU twin, said so), and its energy and depth on the cheapest layout counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerRecord {
    pub op: Op,
    pub algorithm: String,
    pub n: u64,
    /// The most bits it lost at a node on that layout's child order (`"inf"`: a non-finite
    /// result).
    #[serde(with = "bits")]
    pub lost_bits: Option<f64>,
    /// The most over every layout's child order.
    #[serde(with = "bits")]
    pub worst_lost_bits: Option<f64>,
    /// Seconds per vertex of its values: a GPU kernel's (from `--bench`), else its CPU twin's
    /// in this run.
    pub time_per_vertex_s: Option<f64>,
    /// `GPU kernel: <adapter>` or `CPU twin`.
    pub time_source: String,
    /// The layout of least energy for this algorithm's messages (the first listed of those
    /// that tie).
    pub order: LinearOrder,
    pub curve: Curve,
    /// The other layouts of the same least energy ("light-first z").
    pub tied: Vec<String>,
    pub energy_per_vertex: f64,
    /// Depth under the per-round limit, and without it.
    pub depth: u64,
    pub chain_depth: u64,
    pub congestion: u64,
    /// The time estimate on that layout, cycles.
    pub cycles: f64,
    /// Its energy's fitted exponent on that layout (several sizes).
    pub exponent: Option<f64>,
    /// What building that layout costs (the layout's construction, then the virtual tree's),
    /// once per tree; none where it is not counted (breadth-first).
    pub construction_energy_per_vertex: Option<f64>,
    pub construction_depth: Option<u64>,
}

/// A tree the layouts were counted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeRecord {
    /// The topology (`kary:2`) or the file's name.
    pub name: String,
    pub n: u64,
    pub height: u32,
    pub max_degree: u32,
    /// The file's SHA-256, for a tree file.
    pub sha256: Option<String>,
    /// 32-bit words of `vectorial-exact`'s fixed point on these weights.
    pub limbs: u32,
    /// The grid side of each curve, in the order of `curves`.
    pub sides: Vec<u32>,
    /// The directed links between the processors that hold a vertex, per curve (the time
    /// estimate's N before its share).
    pub links: Vec<u64>,
    pub curves: Vec<Curve>,
}

/// One layout: a linear order on a curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutRecord {
    pub order: LinearOrder,
    pub curve: Curve,
    pub patterns: Vec<PatternRecord>,
}

/// One message pattern on one layout, at every size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternRecord {
    /// `layout`, `virtual-tree`, `local`, an algorithm's name, `pointer-jumping` or `lca`.
    pub pattern: String,
    /// The op of an algorithm's pattern.
    pub op: Option<Op>,
    /// One per tree (empty when the pattern does not apply).
    pub points: Vec<PointRecord>,
    /// The least-squares slope of ln energy against ln n over the points (two sizes or more).
    pub exponent: Option<f64>,
    /// R² of that fit.
    pub r2: Option<f64>,
    /// Why the pattern does not apply to this layout (batched LCA on a breadth-first one, or
    /// its construction).
    pub not_applicable: Option<String>,
}

/// One pattern on one layout of one tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointRecord {
    pub n: u64,
    /// Σ words × Manhattan distance over every message.
    pub energy: u64,
    pub energy_per_vertex: f64,
    /// Rounds under the model's limit of one message sent and one received per processor per
    /// round (`analysis::spatial::messages`).
    pub depth: u64,
    /// The longest chain of dependent messages, without that limit.
    pub chain_depth: u64,
    /// The most messages one processor sends or receives in one phase.
    pub congestion: u64,
    /// The most words one processor sends or receives in one step (the estimate's C).
    pub contention: u64,
    /// The longest distance one message travels (the estimate's L).
    pub longest: u32,
    /// T = max(C, E/N + L) + (2·T_R + 1)·D, cycles, its steps' added.
    pub cycles: f64,
    pub messages: u64,
    /// The algorithm's largest lost bits on this tree in this layout's child order (its own
    /// evaluation against the exact reference); none for local messaging and LCA. A
    /// non-finite result loses infinitely many: the string `"inf"`.
    #[serde(with = "bits")]
    pub lost_bits: Option<f64>,
}

/// Where the time went (seconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Laying out and counting every layout of every tree (placements included).
    pub count_s: f64,
    /// The accuracy evaluations (lost bits).
    pub bits_s: f64,
    pub wall_s: f64,
}

impl PatternRecord {
    /// `local`, `parallel rootfix`, `lca`: the pattern and its op, as tables and figures name it.
    pub fn label(&self) -> String {
        match self.op {
            Some(op) => format!("{} {op}", self.pattern),
            None => self.pattern.clone(),
        }
    }
}

impl SpatialRecord {
    /// The pattern record of (order, curve, label), if any.
    pub fn pattern(
        &self,
        order: LinearOrder,
        curve: Curve,
        pattern: &str,
        op: Option<Op>,
    ) -> Option<&PatternRecord> {
        self.layouts
            .iter()
            .find(|l| l.order == order && l.curve == curve)?
            .patterns
            .iter()
            .find(|p| p.pattern == pattern && p.op == op)
    }
}

/// Lost bits as a number, or the string `"inf"` (JSON has no infinity).
mod bits {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match x {
            Some(v) if !v.is_finite() => s.serialize_str(&v.to_string()),
            Some(v) => s.serialize_some(v),
            None => s.serialize_none(),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum NumberOrString {
        Number(f64),
        String(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        match Option::<NumberOrString>::deserialize(d)? {
            None => Ok(None),
            Some(NumberOrString::Number(v)) => Ok(Some(v)),
            Some(NumberOrString::String(s)) => s
                .parse::<f64>()
                .map(Some)
                .map_err(|_| serde::de::Error::custom(format!("lost bits '{s}'"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infinite_lost_bits_round_trip() {
        for bits in [None, Some(3.5), Some(f64::INFINITY)] {
            let p = PointRecord {
                n: 2,
                energy: 1,
                energy_per_vertex: 0.5,
                depth: 1,
                chain_depth: 1,
                congestion: 1,
                contention: 1,
                longest: 1,
                cycles: 6.0,
                messages: 1,
                lost_bits: bits,
            };
            let text = serde_json::to_string(&p).unwrap();
            assert_eq!(
                serde_json::from_str::<PointRecord>(&text).unwrap(),
                p,
                "{text}"
            );
        }
    }
}
