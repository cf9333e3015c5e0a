//! The library API's calls (those the Python package makes), each estimated before it
//! allocates, as a command's is: a host program gets an error it can handle (Python: a
//! `MemoryError`) instead of an aborted allocation, which ends the whole process.

use super::{Estimate, bytes, model, process, threads};
use analysis::{Algorithm, ReferenceKind};

/// The most vertices a tree may have (32-bit vertex ids).
pub const MAX_VERTICES: u64 = 1 << 31;

/// Peak bytes per vertex of generating a tree, the tree included: the Prüfer decoding's
/// arrays (sequence 8, degrees 4, adjacency lists 24 and their blocks) are the largest, freed
/// before the tree is built. Peak RSS growth of `generate_tree` in a Python process (glibc's
/// allocator) at 2·10^6 vertices: prufer 73.6, chain 56.4, random-recursive 44.3, profile
/// 44.4; 96 covers them with a margin.
pub const GENERATE: f64 = 96.0;

fn estimate(n: u64, per_vertex: f64, what: String) -> Estimate {
    Estimate {
        bytes: bytes(process(threads()) + n as f64 * per_vertex),
        what,
        eager: false,
    }
}

/// `generate_tree(topology, n)`.
pub fn generate_tree(n: u64) -> Estimate {
    let per_vertex = GENERATE.max(model::TREE_BUILD + 4.0);
    estimate(n, per_vertex, format!("a tree of {n} vertices"))
}

/// `tree_from_parents` of `n` parents: their 32-bit copy, then the tree.
pub fn tree_from_parents(n: u64) -> Estimate {
    estimate(
        n,
        4.0 + model::TREE_BUILD,
        format!("a tree of {n} vertices"),
    )
}

/// `gensum(n)`: the weights.
pub fn gensum(n: u64) -> Estimate {
    estimate(n, model::WEIGHTS, format!("{n} weights"))
}

/// `rootfix`/`leaffix` by `algorithm` on a tree of `n` vertices: its evaluation (whose peak
/// the model counts with its errors and bounds: a bound above the kernel alone) and the
/// result.
pub fn treefix(n: u64, algorithm: Algorithm) -> Estimate {
    let per_vertex = model::evaluation_peak(algorithm) + model::WEIGHTS;
    estimate(n, per_vertex, format!("{n} vertices ({algorithm})"))
}

/// `exact` on a tree of `n` vertices: the exact reference's computation and the result.
pub fn exact(n: u64) -> Estimate {
    let per_vertex = model::REFERENCE_EXACT_PEAK + model::WEIGHTS;
    estimate(n, per_vertex, format!("{n} vertices (exact)"))
}

/// `score` of `ops` ops of results on a tree of `n` vertices ([`super::score`]).
pub fn score(n: u64, ops: usize, reference: ReferenceKind) -> Estimate {
    super::score(n, "the results", ops, reference)
}
