//! Every algorithm's twin in every arithmetic it runs in: through its hook in f32 the twin
//! itself, bit for bit; with f32 accumulation its f32 twin stored once; in f16 and bf16 an
//! independent scalar loop of `half`'s arithmetic; vectorial-exact the exact treefix rounded
//! to the storage format. And the bounds in every arithmetic: each walk's replay is the twin
//! in it bit for bit, and no computed value is outside any of its four bounds, against the
//! exact reference, on every topology, weight family and format.

use super::*;
use crate::bounds::{LAMBDA, NodeBounds, summarize};
use crate::exact;
use crate::reference::ReferenceKind;
use crate::{NodeError, Reference};
use generators::{ChildOrder, Topology, WeightModel};
use half::{bf16, f16};
use rug::Float;

fn arithmetics() -> Vec<Arithmetic> {
    let mut all = Vec::new();
    for s in [Precision::F16, Precision::Bf16, Precision::F32] {
        for a in Precision::ALL {
            if let Ok(arith) = Arithmetic::new(s, a) {
                all.push(arith);
            }
        }
    }
    all
}

/// Weights of `storage` on a tree of each shape, large enough to lose bits in f16.
fn cases(storage: Precision) -> Vec<(Tree, Vec<f32>)> {
    let mut out = Vec::new();
    for (i, topology) in [
        Topology::Chain,
        Topology::Star,
        Topology::RandomRecursive,
        Topology::Kary { k: 2 },
    ]
    .into_iter()
    .enumerate()
    {
        let mut rng = generators::rng(40 + i as u64);
        let tree = topology
            .generate(700, ChildOrder::Natural, &mut rng)
            .unwrap();
        let w: Vec<f32> = WeightModel::Uniform
            .weights(tree.len(), 1.0, &mut rng)
            .unwrap()
            .into_iter()
            .map(|x| storage.round_f32(x * 8.0 - 3.0))
            .collect();
        out.push((tree, w));
    }
    out
}

#[test]
fn the_f32_hook_is_the_twin_bit_for_bit() {
    for (tree, w) in cases(Precision::F32) {
        let walker = Walker::new(&tree);
        for algo in Algorithm::ALL {
            for op in Op::ALL {
                let twin = algo.twin_on(&walker, &w, op);
                let hook = (algo.hooks().twin_in)(&walker, &w, op, Arithmetic::F32);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&hook), bits(&twin), "{algo} {op}");
            }
        }
    }
}

#[test]
fn every_result_is_a_value_of_the_storage_format() {
    for arith in arithmetics() {
        for (tree, w) in cases(arith.storage) {
            let walker = Walker::new(&tree);
            for algo in Algorithm::ALL.into_iter().filter(|a| a.runs_in(arith)) {
                for op in Op::ALL {
                    let r = algo.twin_in(&walker, &w, op, arith);
                    assert_eq!(r.len(), w.len());
                    let stray = r.iter().find(|x| !arith.storage.holds(**x as f64));
                    assert!(
                        stray.is_none(),
                        "{algo} {op} in {}: {stray:?}",
                        arith.name()
                    );
                }
            }
        }
    }
}

/// Added in f32 and stored once, every order gives its f32 twin rounded to the storage.
#[test]
fn f32_accumulation_is_the_f32_twin_stored_once() {
    for storage in [Precision::F16, Precision::Bf16] {
        let arith = Arithmetic::new(storage, Precision::F32).unwrap();
        for (tree, w) in cases(storage) {
            let walker = Walker::new(&tree);
            for algo in Algorithm::ALL {
                if algo.correctly_rounded() {
                    continue;
                }
                for op in Op::ALL {
                    let mixed = algo.twin_in(&walker, &w, op, arith);
                    let f32_twin = algo.twin_on(&walker, &w, op);
                    let stored: Vec<f32> = f32_twin.iter().map(|&x| storage.round_f32(x)).collect();
                    assert_eq!(mixed, stored, "{algo} {op} in {}", arith.name());
                }
            }
        }
    }
}

/// The sequential orders in f16 and bf16, each addition `half`'s own (f32 sum rounded to
/// the format), in preorder and postorder over the children in order.
#[test]
fn sequential_in_half_formats_is_halfs_arithmetic() {
    fn check<H: Copy + PartialEq + std::fmt::Debug>(
        storage: Precision,
        from: fn(f32) -> H,
        to: fn(H) -> f32,
    ) {
        let add = |a: H, b: H| from(to(a) + to(b));
        for (tree, w) in cases(storage) {
            let walker = Walker::new(&tree);
            let arith = Arithmetic::same(storage);
            let n = tree.len();
            // Rootfix: parents come before children in the generator's numbering.
            let mut r = vec![from(0.0); n];
            for v in 0..n {
                let p = tree.parent(v as u32);
                r[v] = match p {
                    None => from(w[v]),
                    Some(p) => add(r[p as usize], from(w[v])),
                };
            }
            // Leaffix: w[v] + l[c1] + l[c2] + …, children after their parent, so backwards.
            let mut l = vec![from(0.0); n];
            for v in (0..n).rev() {
                let mut s = from(w[v]);
                for &c in tree.children(v as u32) {
                    s = add(s, l[c as usize]);
                }
                l[v] = s;
            }
            let got_r = Algorithm::SEQUENTIAL.twin_in(&walker, &w, Op::Rootfix, arith);
            let got_l = Algorithm::SEQUENTIAL.twin_in(&walker, &w, Op::Leaffix, arith);
            assert_eq!(
                got_r,
                r.iter().map(|&x| to(x)).collect::<Vec<_>>(),
                "{storage} rootfix"
            );
            assert_eq!(
                got_l,
                l.iter().map(|&x| to(x)).collect::<Vec<_>>(),
                "{storage} leaffix"
            );
        }
    }
    check(Precision::F16, f16::from_f32, f16::to_f32);
    check(Precision::Bf16, bf16::from_f32, bf16::to_f32);
}

#[test]
fn vectorial_exact_is_the_exact_treefix_rounded_to_the_storage() {
    for arith in arithmetics() {
        for (tree, w) in cases(arith.storage) {
            let walker = Walker::new(&tree);
            for op in Op::ALL {
                let got = Algorithm::VECTORIAL_EXACT.twin_in(&walker, &w, op, arith);
                let want = exact::correctly_rounded_in(&tree, &w, op, arith.storage);
                assert_eq!(got, want, "{op} in {}", arith.name());
            }
        }
    }
}

#[test]
fn compensated_runs_only_with_f32_accumulation() {
    let a = Algorithm::VECTORIAL_COMPENSATED;
    assert!(a.runs_in(Arithmetic::new(Precision::Bf16, Precision::F32).unwrap()));
    assert!(!a.runs_in(Arithmetic::same(Precision::Bf16)));
    assert!(!Algorithm::SEQUENTIAL.runs_in(Arithmetic::same(Precision::F64)));
}

/// Weights of `storage` for each family: gensum at κ 1e2 and 1e3 scaled into the format's
/// range (`weights::in_format`), uniform in [−3, 5), and tiny ones whose sums end in the
/// storage format's subnormal range.
fn bound_weight_families(n: usize, storage: Precision, rng: &mut generators::Rng) -> Vec<Vec<f32>> {
    let mut out = Vec::new();
    for cond in [1e2, 1e3] {
        let w = WeightModel::Gensum.weights(n, cond, rng).unwrap();
        out.push(generators::weights::in_format(w, storage));
    }
    let uniform = WeightModel::Uniform.weights(n, 1.0, rng).unwrap();
    out.push(
        uniform
            .iter()
            .map(|&x| storage.round_f32(x * 8.0 - 3.0))
            .collect(),
    );
    // Multiples of the format's smallest subnormal, of both signs, a few hundred of them.
    let q = storage.min_subnormal() as f32;
    out.push(
        uniform
            .iter()
            .map(|&x| storage.round_f32(q * ((x * 600.0).floor() - 300.0)))
            .collect(),
    );
    out
}

fn check_bounds(arith: Arithmetic, topology: Topology, seed: u64) {
    let mut rng = generators::rng(seed);
    let tree = topology
        .generate(1500, ChildOrder::Natural, &mut rng)
        .unwrap();
    let walker = Walker::new(&tree);
    let mut scratch = Float::new(320);
    for w in bound_weight_families(tree.len(), arith.storage, &mut rng) {
        assert!(arith.storage.first_outside(&w).is_none());
        for op in Op::ALL {
            let r = Reference::compute(ReferenceKind::Exact, &tree, &w, op);
            for algo in Algorithm::ALL.into_iter().filter(|a| a.runs_in(arith)) {
                let what = format!("{algo} {op} in {} on {topology}", arith.name());
                let twin = algo.twin_in(&walker, &w, op, arith);
                let walked = algo.walk_in(&walker, &w, op, LAMBDA, arith);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&walked.values), bits(&twin), "{what}: replay ≠ twin");
                let errors: Vec<NodeError> = twin
                    .iter()
                    .enumerate()
                    .map(|(v, &x)| r.error(v, x))
                    .collect();
                let b = NodeBounds::of(walked, &twin);
                let s = summarize(&r, &twin, &errors, &b, &mut scratch);
                assert_eq!(
                    (
                        s.bound_violations,
                        s.sharp_violations,
                        s.running_violations,
                        s.prob_violations
                    ),
                    (0, 0, 0, 0),
                    "{what}: {:?}",
                    s.violations
                );
            }
        }
    }
}

#[test]
fn bounds_hold_in_every_arithmetic_on_chains_and_stars() {
    for arith in arithmetics() {
        check_bounds(arith, Topology::Chain, 1);
        check_bounds(arith, Topology::Star, 2);
    }
}

#[test]
fn bounds_hold_in_every_arithmetic_on_random_trees() {
    for arith in arithmetics() {
        check_bounds(arith, Topology::RandomRecursive, 3);
        check_bounds(arith, Topology::Kary { k: 2 }, 4);
        check_bounds(arith, Topology::CaterpillarLegs, 5);
    }
}

/// The store's bound has no absolute term (`StoreTo`): a sum of storage values in a wider
/// format, below the storage format's normal range, is a storage value already. Checked on
/// the accumulated values themselves (the twin in the accumulation format alone) of weights
/// that are a few hundred smallest subnormals.
#[test]
fn below_the_normal_range_the_store_is_exact() {
    for arith in arithmetics().into_iter().filter(|a| a.is_mixed()) {
        let mut rng = generators::rng(6);
        let tree = Topology::RandomRecursive
            .generate(1500, ChildOrder::Natural, &mut rng)
            .unwrap();
        let walker = Walker::new(&tree);
        let w = bound_weight_families(tree.len(), arith.storage, &mut rng)
            .pop()
            .unwrap();
        if arith.accumulate == Precision::F64 {
            // f64 partial sums are not carried as f32: the f32 storage's case is f32's own.
            continue;
        }
        let alone = Arithmetic::same(arith.accumulate);
        let mut below = 0;
        for algo in Algorithm::ALL.into_iter().filter(|a| a.runs_in(arith)) {
            for op in Op::ALL {
                for x in algo.twin_in(&walker, &w, op, alone) {
                    if (x as f64).abs() < arith.storage.min_normal() {
                        below += 1;
                        assert!(
                            arith.storage.holds(x as f64),
                            "{algo} {op} {}: {x}",
                            arith.name()
                        );
                    }
                }
            }
        }
        assert!(
            below > 100,
            "{}: {below} results below the normal range",
            arith.name()
        );
    }
}
