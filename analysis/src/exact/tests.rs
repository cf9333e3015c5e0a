//! The exact treefix's walks: the same integers whatever the blocks and the threads, equal to
//! MPFR's sums; the signs of exact zeros. (Its roundings against MPFR: the reference's tests
//! and `tests/exact.rs`.)

use super::walk::{self as walks, Disjoint};
use super::*;
use generators::{ChildOrder, Topology, WeightModel};
use rug::Float;

/// Every vertex's exact sum by MPFR at 320 bits, one addition per vertex, written
/// independently of the walks: rootfix from the parent in preorder, leaffix into the parent in
/// postorder.
fn mpfr(tree: &Tree, w: &[f32], op: Op) -> Vec<Float> {
    let mut out: Vec<Float> = w.iter().map(|&x| Float::with_val(320, x)).collect();
    match op {
        Op::Rootfix => {
            for &v in tree.preorder() {
                if let Some(p) = tree.parent(v) {
                    let above = out[p as usize].clone();
                    out[v as usize] += above;
                }
            }
        }
        Op::Leaffix => {
            for &v in tree.postorder() {
                if let Some(p) = tree.parent(v) {
                    let below = out[v as usize].clone();
                    out[p as usize] += below;
                }
            }
        }
    }
    out
}

/// The walk of `op` with blocks of `len` on 3 limbs.
fn walk_in_blocks(tree: &Tree, w: &[f32], op: Op, scale: Scale, len: usize) -> Vec<Fixed<3>> {
    let by_depth = walk_in_blocks_keeping(tree, w, op, scale, len, false);
    if op == Op::Rootfix {
        let branches = walk_in_blocks_keeping(tree, w, op, scale, len, true);
        assert!(
            by_depth == branches,
            "rootfix keeping only the branch vertices differs"
        );
    }
    by_depth
}

/// [`walk_in_blocks`] with rootfix keeping the whole root path by depth, or (`deep`) only the
/// vertices with several children.
fn walk_in_blocks_keeping(
    tree: &Tree,
    w: &[f32],
    op: Op,
    scale: Scale,
    len: usize,
    deep: bool,
) -> Vec<Fixed<3>> {
    let mut out = vec![Fixed::<3>::ZERO; w.len()];
    let mut finished = vec![0u8; w.len()];
    {
        let (to, count) = (Disjoint::new(&mut out), Disjoint::new(&mut finished));
        let term = |x| scale.term::<3>(x);
        // Each vertex once: counted.
        let finish = |v, k| unsafe {
            to.set(v, k);
            count.set(v, count.get(v) + 1);
        };
        match op {
            Op::Rootfix => {
                let pair = |_, _, _| false;
                walks::rootfix_keeping(tree, w, (term, finish, pair), len, deep)
            }
            Op::Leaffix => walks::leaffix(tree, w, term, finish, |_, _| false, len),
        }
    }
    assert!(
        finished.iter().all(|&c| c == 1),
        "every vertex finished once"
    );
    out
}

/// Blocks of 1, 2, 3, 7, 64 and 1000 vertices and one block give the same integers, equal to
/// MPFR's sums, on every topology and child order, rootfix keeping the root path by depth or
/// only its branch vertices: every way a block boundary can cut a path
/// or a subtree (a chain's every vertex its own block, a star's root alone).
#[test]
fn blocks_change_no_integer() {
    for topology in Topology::all_defaults() {
        for order in ChildOrder::ALL {
            for (seed, n) in [1usize, 2, 5, 300, 2500].into_iter().enumerate() {
                let mut rng = generators::rng(40 + seed as u64);
                let tree = topology.generate(n, order, &mut rng).unwrap();
                let model = if n < 3 {
                    WeightModel::Normal
                } else {
                    WeightModel::Gensum
                };
                let w = model.weights(n, 1e12, &mut rng).unwrap();
                let scale = Scale::for_weights(&w).unwrap();
                assert!(scale.limbs() <= 3, "{topology} {n}");
                for op in Op::ALL {
                    let want = mpfr(&tree, &w, op);
                    let one = walk_in_blocks(&tree, &w, op, scale, n);
                    for (v, k) in one.iter().enumerate() {
                        assert_eq!(
                            scale.to_exact(*k).to_float(),
                            want[v],
                            "{topology} {order} n={n} {op} v={v}"
                        );
                    }
                    for len in [1, 2, 3, 7, 64, 1000] {
                        assert_eq!(
                            walk_in_blocks(&tree, &w, op, scale, len),
                            one,
                            "{topology} {order} n={n} {op}, blocks of {len}"
                        );
                    }
                }
            }
        }
    }
}

/// A big tree on pools of 1, 2 and 3 threads (blocks of the default length, several per
/// thread): the same results.
#[test]
fn threads_change_no_bit() {
    let n = 300_000;
    for topology in [Topology::Chain, Topology::Star, Topology::RandomRecursive] {
        let mut rng = generators::rng(3);
        let tree = topology.generate(n, ChildOrder::Natural, &mut rng).unwrap();
        let w = WeightModel::Gensum.weights(n, 1e8, &mut rng).unwrap();
        for op in Op::ALL {
            let on = |threads| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| (treefix(&tree, &w, op), correctly_rounded(&tree, &w, op)))
            };
            let (one, one_twin) = on(1);
            for threads in [2, 3] {
                let (t, twin) = on(threads);
                let bits = |x: &[f32]| x.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&t.rounded), bits(&one.rounded), "{topology} {op}");
                assert_eq!(t.nearest_f64, one.nearest_f64, "{topology} {op}");
                assert_eq!(t.abs_sums, one.abs_sums, "{topology} {op}");
                assert_eq!(bits(&twin), bits(&one_twin), "{topology} {op}");
            }
            assert_eq!(one.rounded, one_twin);
        }
    }
}

/// An exact zero is −0 where every term is −0 (MPFR's sign), +0 otherwise; the twin always
/// gives +0, as the GPU kernel does.
#[test]
fn signs_of_exact_zeros() {
    // a(b(c), d): weights −0, −0, +0, 1 − 1 pattern.
    let tree =
        Tree::from_parents(vec![generators::NO_PARENT, 0, 1, 0, 3], ChildOrder::Natural).unwrap();
    let w = [-0.0f32, -0.0, 0.0, 1.0, -1.0];
    let root = treefix(&tree, &w, Op::Rootfix);
    let signs: Vec<bool> = root.rounded.iter().map(|x| x.is_sign_negative()).collect();
    assert_eq!(signs, [true, true, false, false, false]);
    assert_eq!(root.rounded, [0.0, 0.0, 0.0, 1.0, 0.0]);
    assert!(root.nearest_f64[1].is_sign_negative() && !root.nearest_f64[2].is_sign_negative());
    let leaf = treefix(&tree, &w, Op::Leaffix);
    let signs: Vec<bool> = leaf.rounded.iter().map(|x| x.is_sign_negative()).collect();
    assert_eq!(signs, [false, false, false, false, true]);
    assert!(
        correctly_rounded(&tree, &w, Op::Rootfix)
            .iter()
            .all(|x| !x.is_sign_negative())
    );
}

/// Non-finite weights: IEEE's sums in [`treefix`], NaN everywhere in the twin.
#[test]
fn non_finite_weights() {
    let tree = Tree::from_parents(vec![generators::NO_PARENT, 0, 0], ChildOrder::Natural).unwrap();
    let w = [1.0f32, f32::INFINITY, 2.0];
    let root = treefix(&tree, &w, Op::Rootfix);
    assert_eq!(root.rounded, [1.0, f32::INFINITY, 3.0]);
    assert_eq!(root.exact.limbs(), None);
    assert!(
        correctly_rounded(&tree, &w, Op::Leaffix)
            .iter()
            .all(|x| x.is_nan())
    );
}

/// Adversarial pairs of f32: ties at every binade (even and odd), just off ties, cancellation,
/// subnormals, the overflow threshold, and random bit patterns.
fn adversarial_pairs() -> Vec<(f32, f32)> {
    let mut pairs = Vec::new();
    let h = |e: i32| 2f32.powi(e);
    for e in [-126, -100, -24, -1, 0, 1, 23, 24, 60, 100, 126, 127] {
        let a = h(e);
        for a in [
            a,
            -a,
            f32::from_bits(a.to_bits() + 1),
            f32::from_bits(a.to_bits() + 2),
        ] {
            let half = h(e - 24);
            for b in [half, -half, h(e - 25), -h(e - 25), h(e - 23)] {
                pairs.push((a, b));
                pairs.push((a, b * 1.5));
                pairs.push((a, f32::from_bits(b.to_bits() + 1)));
                pairs.push((a, f32::from_bits(b.to_bits().saturating_sub(1))));
                pairs.push((a, -a));
                pairs.push((a, -f32::from_bits(a.to_bits() + 1)));
            }
        }
    }
    let max = f32::MAX;
    let ulp_top = h(104);
    pairs.extend([
        (max, max),
        (max, ulp_top / 2.0),
        (max, ulp_top / 2.0 - h(80)),
        (-max, -ulp_top / 2.0),
        (max, -max),
        (f32::from_bits(1), f32::from_bits(1)),
        (f32::from_bits(1), -f32::from_bits(2)),
        (f32::MIN_POSITIVE, -f32::from_bits(1)),
        (0.0, 0.0),
        (-0.0, -0.0),
        (-0.0, 1e-40),
        (1.0, 1e-30),
        (-1.0, 1e-30),
    ]);
    let mut rng = generators::rng(17);
    use rand::RngExt as _;
    for _ in 0..20_000 {
        let a = f32::from_bits(rng.random::<u32>());
        let b = f32::from_bits(rng.random::<u32>());
        if a.is_finite() && b.is_finite() {
            pairs.push((a, b));
            // Near cancellation and near ties too.
            pairs.push((a, -f32::from_bits(a.to_bits() ^ 1)));
        }
    }
    // The steps by one bit above may leave the finite numbers (−0 less one is a NaN).
    pairs.retain(|(a, b)| a.is_finite() && b.is_finite());
    pairs
}

/// [`sum_of_two`] is MPFR's a + b rounded once to the nearest f32 (ties to even; ±∞ beyond
/// range; +0 for an exact zero, as the twin has it), and says whether that rounding changed
/// the value.
#[test]
fn a_sum_of_two_is_rounded_once() {
    for (a, b) in adversarial_pairs() {
        let exact = Float::with_val(320, a) + b;
        let want = if exact.is_zero() { 0.0 } else { exact.to_f32() };
        let (got, inexact) = sum_of_two(a, b);
        assert_eq!(got.to_bits(), want.to_bits(), "{a:e} + {b:e}");
        let changed = !got.is_finite() || Float::with_val(320, got) != exact;
        assert_eq!(inexact, changed, "{a:e} + {b:e}");
    }
}

/// The exact treefix and the twin's values with their inexactness, on `threads` threads.
fn reference_and_twin(
    tree: &Tree,
    w: &[f32],
    op: Op,
    threads: usize,
) -> (ExactTreefix, Vec<(f32, bool)>) {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| (treefix(tree, w, op), correctly_rounded_inexact(tree, w, op)))
}

/// Stars whose leaves are pairs with their root: the twin (which rounds a childless depth-1
/// vertex from its two weights) gives every leaf the bits the exact reference's integers round
/// to, whatever the blocks (a big star is cut into several, on 2 threads).
#[test]
fn star_leaves_round_as_the_integers_do() {
    let pairs = adversarial_pairs();
    let roots: Vec<f32> = [1.0f32, -3.0e38, 1.5e-45, 7.0, f32::MAX, -2.0f32.powi(-100)]
        .into_iter()
        .chain(pairs.iter().step_by(4_001).map(|p| p.0))
        .collect();
    for (k, &root) in roots.iter().enumerate() {
        let mut w: Vec<f32> = vec![root];
        w.extend(pairs.iter().map(|p| p.1));
        let n = w.len() * if k == 0 { 3 } else { 1 };
        w.resize(n, 0.0);
        for i in pairs.len() + 1..n {
            w[i] = w[i - pairs.len()];
        }
        let tree = Topology::Star
            .generate(n, ChildOrder::Natural, &mut generators::rng(1))
            .unwrap();
        for threads in [1, 2] {
            let (reference, twin) = reference_and_twin(&tree, &w, Op::Rootfix, threads);
            for (v, (&want, &(got, _))) in reference.rounded.iter().zip(&twin).enumerate() {
                let want = if want == 0.0 { 0.0 } else { want };
                assert_eq!(got.to_bits(), want.to_bits(), "root {root:e}, vertex {v}");
            }
        }
    }
}

/// Leaves take their leaffix from their weight (−0 and subnormals included): the twin equals
/// the rounding of the reference's integers at every vertex, on a star and a random tree cut
/// into blocks.
#[test]
fn leaves_round_as_the_integers_do() {
    let mut w: Vec<f32> = adversarial_pairs()
        .iter()
        .flat_map(|p| [p.0, p.1])
        .collect();
    w.extend([-0.0, 0.0, f32::from_bits(1), -f32::from_bits(3)]);
    // Weights that fit 2 limbs, so that sums stay finite and the blocks stay the default's.
    w.retain(|x| x.abs() < 1e30 && (x.abs() > 1e-30 || *x == 0.0 || x.abs() < 1e-44));
    let n = w.len();
    for topology in [Topology::Star, Topology::RandomRecursive, Topology::Chain] {
        let tree = topology
            .generate(n, ChildOrder::Natural, &mut generators::rng(5))
            .unwrap();
        let sums = mpfr(&tree, &w, Op::Leaffix);
        for threads in [1, 2] {
            let (reference, twin) = reference_and_twin(&tree, &w, Op::Leaffix, threads);
            for (v, (&want, &(got, inexact))) in reference.rounded.iter().zip(&twin).enumerate() {
                let want = if want == 0.0 { 0.0 } else { want };
                assert_eq!(got.to_bits(), want.to_bits(), "{topology} vertex {v}");
                let changed = Float::with_val(320, got) != sums[v];
                assert_eq!(inexact, changed, "{topology} vertex {v}");
            }
        }
    }
}

/// κ on the fixed point is the wide accumulator's, bit for bit: gensum weights of every κ and
/// size (large ones summed on every core), the full f32 range, a zero sum, a non-finite weight.
#[test]
fn cond_is_the_wide_accumulators() {
    use generators::exact_sum::condition_number;
    for (n, c) in [(10, 1e3), (10_000, 1e10), (100_000, 1e30), (300_000, 1.0)] {
        let w = generators::gensum::gensum(n, c, &mut generators::rng(n as u64)).unwrap();
        assert_eq!(
            cond(&w).to_bits(),
            condition_number(&w).to_bits(),
            "n={n} κ={c}"
        );
    }
    let wide = [f32::MAX, f32::from_bits(1), -1.5, 3e-30];
    assert_eq!(cond(&wide).to_bits(), condition_number(&wide).to_bits());
    assert_eq!(cond(&[1.0, -1.0]), f64::INFINITY);
    assert!(cond(&[1.0, f32::NAN]).is_nan() == condition_number(&[1.0, f32::NAN]).is_nan());
}
