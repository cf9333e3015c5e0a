//! f32 treefix kernels. Each CPU function here is the twin of a GPU kernel (or, for
//! `sequential` and `vectorial-seqscan`, a CPU-only order): it performs exactly the
//! same f32 additions in the same order (docs/design.md §5). The orders themselves are written once,
//! generically, in `analysis::orders`; the twins are those orders on f32, and the error
//! bounds are the same orders on bound values.

pub mod contraction;
pub mod parallel;
pub mod sequential;
pub mod vectorial;

use analysis::{Algorithm, Op};
use generators::Tree;

/// The f32 result of `op` on every vertex, computed on the CPU by `algo`'s order of additions.
pub fn cpu(tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Vec<f32> {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    match algo {
        Algorithm::Sequential | Algorithm::Parallel => {
            analysis::orders::tree_order(tree, w, algo, op)
        }
        Algorithm::Vectorial | Algorithm::VectorialSeqscan | Algorithm::VectorialChained => {
            analysis::orders::euler::vectorial(tree, w, algo, op)
        }
        Algorithm::VectorialCompensated => {
            analysis::orders::euler::vectorial_compensated(tree, w, op)
        }
        Algorithm::Contraction => match op {
            Op::Rootfix => contraction::rootfix(tree, w),
            Op::Leaffix => contraction::leaffix(tree, w),
        },
    }
}
