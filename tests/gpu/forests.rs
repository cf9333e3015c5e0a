//! Trees run as forests (several trees in one dispatch) equal one tree at a time.

use super::{GpuTest, MODELS, assert_bits, gpu_algos, tree, weights};
use analysis::{Algorithm, Op};
use generators::{Topology, Tree, WeightModel};
use treefix_accuracy::experiment::Backend;
use treefix_accuracy::gpu::Gpu;

/// This module's tests: name and body.
pub(super) const TESTS: &[(&str, GpuTest)] = &[
    (
        "forests_equal_one_tree_at_a_time",
        forests_equal_one_tree_at_a_time,
    ),
    (
        "forest_of_four_chains_matches_twin",
        forest_of_four_chains_matches_twin,
    ),
];

/// compute_many runs trees as forests (parallel: level d of every tree in one dispatch;
/// vectorial: every tree's tile-aligned Euler-tour segment in the same scans): the results
/// are those of one tree at a time, bit for bit, in job order.
fn forests_equal_one_tree_at_a_time(gpu: &Gpu) {
    let mut trees = Vec::new();
    let mut ws = Vec::new();
    for (i, topology) in Topology::all_defaults().into_iter().enumerate() {
        for n in [1, 3, 600, 2500] {
            let seed = 100 + i as u64 * 10 + n as u64;
            trees.push(tree(topology, n, seed));
            ws.push(weights(MODELS[i % MODELS.len()], n, seed));
        }
    }
    // A tree with two levels of block sums among small ones.
    trees.push(tree(Topology::RandomRecursive, 600_000, 3));
    ws.push(weights(WeightModel::Normal, 600_000, 3));
    let jobs: Vec<(&Tree, &[f32])> = trees.iter().zip(&ws).map(|(t, w)| (t, &w[..])).collect();
    for algo in gpu_algos() {
        for op in Op::ALL {
            let many = gpu.compute_many(&jobs, algo, op).unwrap();
            assert_eq!(many.len(), jobs.len());
            for (k, (t, w)) in jobs.iter().enumerate() {
                let one = gpu.compute(t, w, algo, op).unwrap();
                assert_bits(
                    &many[k],
                    &one,
                    &format!("forest job {k} {algo} {op} vs alone"),
                );
                let twin = algo.twin(t, w, op);
                assert_bits(
                    &many[k],
                    &twin,
                    &format!("forest job {k} {algo} {op} vs twin"),
                );
            }
        }
    }
}

/// Regression: a forest of four chains has levels of four vertices, walked serially by one
/// invocation of the narrow leaffix kernel. Its loops ran 12 iterations per level where the
/// host's plan charged 10, so a dispatch planned within llvmpipe's loop budget (5 611 levels)
/// ran past Mesa's 65 535 and was silently cut short after 5 161 levels: every level above
/// came out wrong (four chains of 700 000 plus a random-recursive tree: 694 572 vertices of
/// every chain). Chains of 6000 fill one such dispatch.
fn forest_of_four_chains_matches_twin(gpu: &Gpu) {
    let n = 6000;
    let mut trees: Vec<Tree> = (0..4).map(|i| tree(Topology::Chain, n, i)).collect();
    trees.push(tree(Topology::RandomRecursive, n, 4));
    let ws: Vec<Vec<f32>> = (0..trees.len() as u64)
        .map(|i| weights(WeightModel::Normal, n, i))
        .collect();
    let jobs: Vec<(&Tree, &[f32])> = trees.iter().zip(&ws).map(|(t, w)| (t, &w[..])).collect();
    for op in Op::ALL {
        let many = gpu.compute_many(&jobs, Algorithm::PARALLEL, op).unwrap();
        for (k, (t, w)) in jobs.iter().enumerate() {
            let twin = Algorithm::PARALLEL.twin(t, w, op);
            assert_bits(&many[k], &twin, &format!("four chains + rr, job {k}, {op}"));
        }
    }
}
