//! The names every part agrees on: which treefix operation, computed by which algorithm.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A treefix operation (inclusive, as in the paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    /// Σ w(u) over the path root → v, v included.
    Rootfix,
    /// Σ w(u) over the subtree of v, v included.
    Leaffix,
}

impl Op {
    pub const ALL: [Op; 2] = [Op::Rootfix, Op::Leaffix];
    pub fn name(self) -> &'static str {
        match self {
            Op::Rootfix => "rootfix",
            Op::Leaffix => "leaffix",
        }
    }
}

/// How the f32 additions are ordered (docs/design.md §5). The order is part of the definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// The paper's CPU baseline: preorder recursion (rootfix), postorder gathers (leaffix).
    Sequential,
    /// The paper's Algorithm 1: level-synchronous BFS; same additions as `Sequential`.
    Parallel,
    /// The paper's Algorithm 2: Euler tour + inclusive scan with the fixed scan plan.
    Vectorial,
    /// Euler tour + a plain left-to-right scan (CPU only): isolates the scan order's effect.
    VectorialSeqscan,
    /// Euler tour + the chained scan plan: the same tiles, tile prefixes chained
    /// P_k = P_{k−1} + T_k so that all prefixes share their roundings.
    VectorialChained,
    /// The same Euler tour and scan plan on float-float (f32, f32) pairs with error-free
    /// transformations; the read rounds once to f32 (docs/design.md §5).
    VectorialCompensated,
    /// Tree contraction, rake and compress (seed 002): additions of depth O(log n); on a GPU,
    /// its traced additions one level per dispatch.
    Contraction,
}

impl Algorithm {
    pub const ALL: [Algorithm; 7] = [
        Algorithm::Sequential,
        Algorithm::Parallel,
        Algorithm::Vectorial,
        Algorithm::VectorialSeqscan,
        Algorithm::VectorialChained,
        Algorithm::VectorialCompensated,
        Algorithm::Contraction,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Sequential => "sequential",
            Algorithm::Parallel => "parallel",
            Algorithm::Vectorial => "vectorial",
            Algorithm::VectorialSeqscan => "vectorial-seqscan",
            Algorithm::VectorialChained => "vectorial-chained",
            Algorithm::VectorialCompensated => "vectorial-compensated",
            Algorithm::Contraction => "contraction",
        }
    }
    /// Whether the algorithm is an Euler tour + scan (the paper's "vectorial" family).
    pub fn is_vectorial(self) -> bool {
        matches!(
            self,
            Algorithm::Vectorial
                | Algorithm::VectorialSeqscan
                | Algorithm::VectorialChained
                | Algorithm::VectorialCompensated
        )
    }
    /// Whether a GPU kernel exists for this algorithm (the others are CPU-only by definition).
    pub fn has_gpu_kernel(self) -> bool {
        matches!(
            self,
            Algorithm::Parallel
                | Algorithm::Vectorial
                | Algorithm::VectorialChained
                | Algorithm::VectorialCompensated
                | Algorithm::Contraction
        )
    }
}

macro_rules! name_impls {
    ($t:ty, $what:literal) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
        impl FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                Self::ALL
                    .into_iter()
                    .find(|x| x.name() == s)
                    .ok_or_else(|| {
                        let names: Vec<&str> = Self::ALL.iter().map(|x| x.name()).collect();
                        format!(
                            concat!("unknown ", $what, " '{}' (expected one of: {})"),
                            s,
                            names.join(", ")
                        )
                    })
            }
        }
    };
}
name_impls!(Op, "operation");
name_impls!(Algorithm, "algorithm");
