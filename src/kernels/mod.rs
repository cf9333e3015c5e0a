//! f32 treefix kernels. Each CPU function here is the twin of a GPU kernel (or, for
//! `sequential` and `vectorial-seqscan`, a CPU-only reference order): it performs exactly the
//! same f32 additions in the same order (DESIGN §4).

pub mod parallel;
pub mod sequential;
pub mod vectorial;

use analysis::{Algorithm, Op};
use generators::Tree;

/// The f32 result of `op` on every vertex, computed on the CPU by `algo`'s order of additions.
pub fn cpu(tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Vec<f32> {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    match (algo, op) {
        (Algorithm::Sequential, Op::Rootfix) => sequential::rootfix(tree, w),
        (Algorithm::Sequential, Op::Leaffix) => sequential::leaffix(tree, w),
        (Algorithm::Parallel, Op::Rootfix) => parallel::rootfix(tree, w),
        (Algorithm::Parallel, Op::Leaffix) => parallel::leaffix(tree, w),
        (Algorithm::Vectorial, _) => {
            vectorial::vectorial(tree, w, op, analysis::scan_plan::inclusive_scan)
        }
        (Algorithm::VectorialSeqscan, _) => {
            vectorial::vectorial(tree, w, op, analysis::scan_plan::sequential_scan)
        }
    }
}
