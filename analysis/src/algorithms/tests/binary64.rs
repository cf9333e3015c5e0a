//! Every algorithm's twin on f64 weights (f64 storage, f64 additions): on weights f32 holds,
//! the same order generic over f64 partial sums, bit for bit; on weights of 53 bits, an
//! independent loop of f64 additions for the tree orders; vectorial-exact the exact treefix
//! (against MPFR in `crate::exact`), never further from it than any other algorithm.

use super::*;
use crate::exact;
use crate::orders::{contraction, euler, tree};
use crate::scan_plan::Plan;
use generators::{ChildOrder, Topology, WeightModel};

fn trees() -> Vec<(Tree, Vec<f32>)> {
    [
        Topology::Chain,
        Topology::Star,
        Topology::RandomRecursive,
        Topology::Kary { k: 2 },
    ]
    .into_iter()
    .enumerate()
    .map(|(i, topology)| {
        let mut rng = generators::rng(50 + i as u64);
        let tree = topology
            .generate(900, ChildOrder::HeavyFirst, &mut rng)
            .unwrap();
        let w = WeightModel::Gensum.weights(900, 1e12, &mut rng).unwrap();
        (tree, w)
    })
    .collect()
}

/// What each algorithm's order gives on f32 weights with f64 partial sums, unrounded.
fn generic_order(algo: Algorithm, tree: &Tree, w: &[f32], op: Op) -> Option<Vec<f64>> {
    let plan = match algo.name() {
        "sequential" => return Some(tree::sequential::<f64>(tree, w, op)),
        "parallel" => return Some(tree::parallel::<f64>(tree, w, op)),
        "vectorial" => Plan::Tiled,
        "vectorial-chained" => Plan::Chained,
        "vectorial-seqscan" => Plan::Sequential,
        "contraction" => return Some(contraction::order::<f64>(tree, w, op)),
        _ => return None,
    };
    Some(euler::vectorial_in::<f64>(tree, w, plan, op))
}

#[test]
fn on_f32_weights_the_f64_twin_is_the_order_on_f64_sums() {
    let mut compared = 0;
    for (tree, w) in trees() {
        let walker = Walker::new(&tree);
        let w64: Vec<f64> = w.iter().map(|&x| x as f64).collect();
        for algo in Algorithm::ALL {
            for op in Op::ALL {
                let Some(got) = algo.twin_f64(&walker, &w64, op) else {
                    assert!(!algo.runs_in_f64());
                    continue;
                };
                let want = match generic_order(algo, &tree, &w, op) {
                    Some(want) => want,
                    None => {
                        assert!(algo.correctly_rounded(), "{algo}: which order?");
                        exact::correctly_rounded_f64(&tree, &w64, op)
                    }
                };
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{algo} {op}");
                compared += 1;
            }
        }
    }
    // sequential, parallel, three vectorial plans, contraction and vectorial-exact, two ops,
    // four trees.
    assert_eq!(compared, 7 * 2 * 4);
}

#[test]
fn on_f64_weights_the_tree_orders_are_plain_f64_additions() {
    for (tree, w) in trees() {
        let walker = Walker::new(&tree);
        // 29 bits more than f32 holds, from a portable generator's bits.
        let w: Vec<f64> = w
            .iter()
            .enumerate()
            .map(|(i, &x)| x as f64 * (1.0 + (i as f64 * 0.618_033_988_749).fract() * 1e-9))
            .collect();
        let mut rootfix = vec![0f64; w.len()];
        for &v in tree.preorder() {
            let v = v as usize;
            rootfix[v] = tree.parent(v as u32).map_or(0.0, |p| rootfix[p as usize]) + w[v];
        }
        let mut leaffix = vec![0f64; w.len()];
        for &v in tree.postorder() {
            let v = v as usize;
            leaffix[v] = tree
                .children(v as u32)
                .iter()
                .fold(w[v], |a, &c| a + leaffix[c as usize]);
        }
        for algo in [Algorithm::SEQUENTIAL, Algorithm::PARALLEL] {
            assert_eq!(algo.twin_f64(&walker, &w, Op::Rootfix).unwrap(), rootfix);
            assert_eq!(algo.twin_f64(&walker, &w, Op::Leaffix).unwrap(), leaffix);
        }
        // Correctly rounded: no other algorithm's result is nearer the exact sum.
        for op in Op::ALL {
            let exact = Algorithm::VECTORIAL_EXACT
                .twin_f64(&walker, &w, op)
                .unwrap();
            let reference = crate::exact::sums_f64(&tree, &w, op);
            for algo in Algorithm::ALL.into_iter().filter(|a| a.runs_in_f64()) {
                let other = algo.twin_f64(&walker, &w, op).unwrap();
                for v in 0..w.len() {
                    assert!(
                        reference.abs_error(v, exact[v]) <= reference.abs_error(v, other[v]),
                        "{algo} {op} vertex {v}"
                    );
                }
            }
        }
    }
    // Its pairs are of f32.
    assert!(!Algorithm::VECTORIAL_COMPENSATED.runs_in_f64());
}
