//! `accuracy spatial --json FILE`: the energy and depth of every message pattern of every
//! layout, at every size, with the fitted exponent (docs/design.md §12). `format_version`
//! changes when a field changes meaning or goes away; fields added later are `Option`s.

use crate::Op;
use crate::spatial::{Curve, LinearOrder};
use serde::{Deserialize, Serialize};

/// The version of this document's format.
pub const FORMAT_VERSION: u32 = 1;

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
    /// One per order × curve, orders outermost.
    pub layouts: Vec<LayoutRecord>,
    /// Per op and algorithm, at the largest tree: bits, time, energy and depth side by side
    /// (`analysis::spatial::answer`).
    #[serde(default)]
    pub answer: Vec<AnswerRecord>,
    pub timings: Timings,
}

/// One algorithm on one op, at the largest tree: what it loses, what it costs on a GPU (or
/// its CPU twin, said so), and its energy and depth on the cheapest layout counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerRecord {
    pub op: Op,
    pub algorithm: String,
    pub n: u64,
    /// The most bits it lost at a node, over the layouts' child orders (`"inf"`: a non-finite
    /// result).
    #[serde(with = "bits")]
    pub lost_bits: Option<f64>,
    /// Seconds per vertex of its values: a GPU kernel's (from `--bench`), else its CPU twin's
    /// in this run.
    pub time_per_vertex_s: Option<f64>,
    /// `GPU kernel: <adapter>` or `CPU twin`.
    pub time_source: String,
    /// The layout of least energy for this algorithm's messages.
    pub order: LinearOrder,
    pub curve: Curve,
    pub energy_per_vertex: f64,
    pub depth: u32,
    /// Its energy's fitted exponent on that layout (several sizes).
    pub exponent: Option<f64>,
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
    /// `local`, an algorithm's name, or `lca`.
    pub pattern: String,
    /// The op of an algorithm's pattern.
    pub op: Option<Op>,
    /// One per tree (empty when the pattern does not apply).
    pub points: Vec<PointRecord>,
    /// The least-squares slope of ln energy against ln n over the points (two sizes or more).
    pub exponent: Option<f64>,
    /// R² of that fit.
    pub r2: Option<f64>,
    /// Why the pattern does not apply to this layout (batched LCA on a breadth-first one).
    pub not_applicable: Option<String>,
}

/// One pattern on one layout of one tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointRecord {
    pub n: u64,
    /// Σ words × Manhattan distance over every message.
    pub energy: u64,
    pub energy_per_vertex: f64,
    /// The longest chain of dependent messages.
    pub depth: u32,
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
