//! CPU kernels against the paper's example and against exact arithmetic.

use analysis::{Algorithm, Op, Reference, ReferenceKind};
use generators::exact_sum::EXACT_PREC;
use generators::{ChildOrder, NO_PARENT, Topology, Tree, WeightModel};
use rug::Float;

/// The paper's Fig. 2 tree a(b(c,d,e),f), ids a=0..f=5.
fn fig2() -> Tree {
    Tree::from_parents(vec![NO_PARENT, 0, 1, 1, 1, 0], ChildOrder::Natural).unwrap()
}

#[test]
fn fig2_every_algorithm() {
    let t = fig2();
    let w = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    for algo in Algorithm::ALL {
        assert_eq!(
            algo.twin(&t, &w, Op::Rootfix),
            vec![1.0, 3.0, 6.0, 7.0, 8.0, 7.0],
            "{algo}"
        );
        assert_eq!(
            algo.twin(&t, &w, Op::Leaffix),
            vec![21.0, 14.0, 3.0, 4.0, 5.0, 6.0],
            "{algo}"
        );
        // All weights 1: rootfix = depth + 1, leaffix = subtree size.
        let ones = [1.0f32; 6];
        let depth1: Vec<f32> = t.depths().iter().map(|&d| d as f32 + 1.0).collect();
        let sizes: Vec<f32> = t.subtree_sizes().iter().map(|&s| s as f32).collect();
        assert_eq!(algo.twin(&t, &ones, Op::Rootfix), depth1);
        assert_eq!(algo.twin(&t, &ones, Op::Leaffix), sizes);
    }
}

#[test]
fn fig2_euler_vector() {
    // The paper's Fig. 3: E for rootfix holds +w at "(v" and −w at "v)".
    let t = fig2();
    let w = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let e = analysis::orders::euler::write::<f32>(&t, &w, Op::Rootfix);
    assert_eq!(
        e,
        vec![
            1.0, 2.0, 3.0, -3.0, 4.0, -4.0, 5.0, -5.0, -2.0, 6.0, -6.0, -1.0
        ]
    );
}

/// Sizes around the scan plan's tile boundaries, and every topology and child order.
fn cases() -> Vec<(Topology, usize, ChildOrder)> {
    let mut v = Vec::new();
    for topo in Topology::all_defaults() {
        for n in [1, 2, 3, 17, 511, 512, 513, 1500, 5000] {
            for order in ChildOrder::ALL {
                v.push((topo, n, order));
            }
        }
    }
    v
}

#[test]
fn integer_weights_are_exact_for_every_algorithm() {
    for (i, (topo, n, order)) in cases().into_iter().enumerate() {
        let mut rng = generators::rng(i as u64);
        let tree = topo.generate(n, order, &mut rng).unwrap();
        let w = WeightModel::Integers.weights(n, 1.0, &mut rng).unwrap();
        for op in Op::ALL {
            let reference = Reference::compute(ReferenceKind::Exact, &tree, &w, op);
            for algo in Algorithm::ALL {
                let got = algo.twin(&tree, &w, op);
                for (v, &x) in got.iter().enumerate() {
                    let e = reference.error(v, x);
                    assert!(
                        e.abs == 0.0,
                        "{topo} n={n} {order} {algo} {op} vertex {v}: {x} vs {}",
                        reference.value_f64(v)
                    );
                }
            }
        }
    }
}

#[test]
fn parallel_twin_equals_sequential_bit_for_bit() {
    for (i, (topo, n, order)) in cases().into_iter().enumerate() {
        let mut rng = generators::rng(1000 + i as u64);
        let tree = topo.generate(n, order, &mut rng).unwrap();
        let normal = WeightModel::Normal.weights(n, 1.0, &mut rng).unwrap();
        let gensum = (n >= 2).then(|| WeightModel::Gensum.weights(n, 1e12, &mut rng).unwrap());
        for w in [Some(normal), gensum].into_iter().flatten() {
            for op in Op::ALL {
                let seq = Algorithm::SEQUENTIAL.twin(&tree, &w, op);
                let par = Algorithm::PARALLEL.twin(&tree, &w, op);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&seq), bits(&par), "{topo} n={n} {order} {op}");
            }
        }
    }
}

/// The rayon twin of the contraction order performs the generic order's additions: the same
/// bits, on the small cases and on trees of 10^5 whose phases and rakes are large enough to be
/// split across threads (a chain's first rounds, a star's single rake).
#[test]
fn contraction_twin_equals_generic_order_bit_for_bit() {
    let mut trees = Vec::new();
    for (i, (topo, n, order)) in cases().into_iter().enumerate() {
        let mut rng = generators::rng(2000 + i as u64);
        trees.push((
            topo,
            n,
            order,
            topo.generate(n, order, &mut rng).unwrap(),
            rng,
        ));
    }
    for topo in [
        Topology::Chain,
        Topology::Star,
        Topology::RandomRecursive,
        Topology::Prufer,
    ] {
        let mut rng = generators::rng(3000);
        let n = 100_000;
        let order = ChildOrder::Natural;
        trees.push((
            topo,
            n,
            order,
            topo.generate(n, order, &mut rng).unwrap(),
            rng,
        ));
    }
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for (topo, n, order, tree, mut rng) in trees {
        let normal = WeightModel::Normal.weights(n, 1.0, &mut rng).unwrap();
        let gensum = (n >= 2).then(|| WeightModel::Gensum.weights(n, 1e12, &mut rng).unwrap());
        for w in [Some(normal), gensum].into_iter().flatten() {
            for op in Op::ALL {
                let twin = Algorithm::CONTRACTION.twin(&tree, &w, op);
                let generic: Vec<f32> = analysis::orders::contraction::order(&tree, &w, op);
                assert_eq!(bits(&twin), bits(&generic), "{topo} n={n} {order} {op}");
            }
        }
    }
}

#[test]
fn child_order_never_changes_exact_results() {
    let mut rng = generators::rng(5);
    let tree = Topology::Prufer
        .generate(3000, ChildOrder::Natural, &mut rng)
        .unwrap();
    let w = WeightModel::Normal.weights(3000, 1.0, &mut rng).unwrap();
    for op in Op::ALL {
        let base = Reference::compute(ReferenceKind::Exact, &tree, &w, op);
        for order in ChildOrder::ALL {
            let other = Reference::compute(ReferenceKind::Exact, &tree.with_order(order), &w, op);
            for v in 0..tree.len() {
                assert_eq!(base.value_string(v), other.value_string(v));
            }
        }
    }
}

/// Double-double against exact: each double-double addition has relative error below
/// 4·2^-106 = 2^-104 (Joldes, Muller & Popescu 2017, AccurateDWPlusDW: 3u² + 13u³), so a
/// value built from at most n additions of terms with magnitude sum A is within n·2^-104·A·(1+tiny).
#[test]
fn exact_and_double_double_agree_within_dd_accuracy() {
    for (i, topo) in Topology::all_defaults().into_iter().enumerate() {
        let n = 4000;
        let mut rng = generators::rng(77 + i as u64);
        let tree = topo.generate(n, ChildOrder::Natural, &mut rng).unwrap();
        let w = WeightModel::Normal.weights(n, 1.0, &mut rng).unwrap();
        for op in Op::ALL {
            let exact = Reference::compute(ReferenceKind::Exact, &tree, &w, op);
            let dd = Reference::compute(ReferenceKind::Dd, &tree, &w, op);
            let tol_per_add = 2f64.powi(-104) * 1.001;
            for v in 0..n {
                let diff = Float::with_val(EXACT_PREC, exact.value_exact(v) - dd.value_exact(v))
                    .abs()
                    .to_f64();
                let bound = n as f64 * tol_per_add * exact.abs_sum_f64(v);
                assert!(
                    diff <= bound,
                    "{topo} {op} v={v}: |exact − dd| = {diff:e} > {bound:e}"
                );
            }
        }
    }
}
