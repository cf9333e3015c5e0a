//! The references: the paper's Fig. 2, exact against f64 and MPFR, flagged and non-finite errors.

use super::*;
use generators::{ChildOrder, NO_PARENT};

fn fig2() -> Tree {
    Tree::from_parents(vec![NO_PARENT, 0, 1, 1, 1, 0], ChildOrder::Natural).unwrap()
}

#[test]
fn fig2_values() {
    let t = fig2();
    let w = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    for kind in [ReferenceKind::Exact, ReferenceKind::Dd] {
        let r = Reference::compute(kind, &t, &w, Op::Rootfix);
        let got: Vec<f64> = (0..6).map(|v| r.value_f64(v)).collect();
        assert_eq!(got, vec![1.0, 3.0, 6.0, 7.0, 8.0, 7.0]);
        let l = Reference::compute(kind, &t, &w, Op::Leaffix);
        let got: Vec<f64> = (0..6).map(|v| l.value_f64(v)).collect();
        assert_eq!(got, vec![21.0, 14.0, 3.0, 4.0, 5.0, 6.0]);
    }
}

#[test]
fn exact_sees_what_f64_cannot() {
    // 2^100 + 1 − 2^100 on a chain: exact gives 1 at the leaf.
    let t = Tree::from_parents(vec![NO_PARENT, 0, 1], ChildOrder::Natural).unwrap();
    let w = [2f32.powi(100), 1.0, -(2f32.powi(100))];
    let r = Reference::compute(ReferenceKind::Exact, &t, &w, Op::Rootfix);
    assert_eq!(r.value_f64(2), 1.0);
    assert_eq!(r.value_string(2), "1.00000000000000000000000000000");
    assert_eq!(r.cond(2), 2f64.powi(101) + 1.0);
    let e = r.error(2, 0.0);
    assert_eq!((e.rel, e.flagged()), (1.0, false));
    assert_eq!(e.lost_bits(), 24.0);
}

#[test]
fn flags_zero_references() {
    let t = Tree::from_parents(vec![NO_PARENT, 0], ChildOrder::Natural).unwrap();
    let r = Reference::compute(ReferenceKind::Exact, &t, &[1.0, -1.0], Op::Rootfix);
    assert!(r.error(1, 1e-8).flagged());
    let ok = r.error(1, 0.0);
    assert!(!ok.flagged() && ok.rel == 0.0);
}

/// A NaN or ±∞ result is an infinite loss, unless it is the correct rounding of a value
/// beyond f32's range; the double-double rounding to f32 is the correct one.
#[test]
fn nonfinite_results() {
    let t = Tree::from_parents(vec![NO_PARENT, 0, 0], ChildOrder::Natural).unwrap();
    let big = 3e38f32;
    for kind in [ReferenceKind::Exact, ReferenceKind::Dd] {
        let r = Reference::compute(kind, &t, &[big, big, -big], Op::Rootfix);
        // Vertex 1: 6e38, beyond f32's range; vertex 2: 0.
        assert!(r.beyond_f32(1) && !r.beyond_f32(0) && !r.beyond_f32(2));
        assert_eq!(r.rounded_f32(1), f32::INFINITY);
        let inf = r.error(1, f32::INFINITY);
        assert_eq!(
            (inf.class, inf.rel, inf.lost_bits()),
            (ErrorClass::Overflow, 0.0, 0.0)
        );
        for (v, c) in [
            (1, f32::NEG_INFINITY),
            (1, f32::NAN),
            (0, f32::INFINITY),
            (2, f32::NAN),
        ] {
            let e = r.error(v, c);
            assert_eq!(e.class, ErrorClass::NonFinite, "{kind:?} v={v} {c}");
            assert!(e.nonfinite() && e.has_rel() && !e.flagged());
            assert_eq!(
                (e.rel, e.abs, e.lost_bits()),
                (f64::INFINITY, f64::INFINITY, f64::INFINITY)
            );
        }
    }
    // dd_to_f32 = MPFR's rounding of hi + lo, ties and near-ties at 24 bits included.
    let mut rng = generators::rng(3);
    use rand::RngExt;
    for _ in 0..20000 {
        let hi = (1.0 + rng.random_range(0..1u64 << 30) as f64 * 2f64.powi(-29))
            * 2f64.powi(rng.random_range(-140..120));
        let hi = if rng.random() { hi } else { -hi };
        let ulp = f64::from_bits(hi.abs().to_bits() + 1) - hi.abs();
        let lo = [0.0, ulp / 4.0, -ulp / 4.0, ulp / 2f64.powi(30)][rng.random_range(0..4)];
        let x = TwoFloat::new_add(hi, lo);
        let mut m = Float::with_val(EXACT_PREC, x.hi());
        m += x.lo();
        assert_eq!(
            dd_to_f32(x).to_bits(),
            m.to_f32().to_bits(),
            "{hi:e} {lo:e}"
        );
    }
}

/// The exact values by MPFR, one addition per vertex along the path or subtree sums,
/// written independently of the orders: rootfix from the parent, leaffix from the
/// children.
fn mpfr_reference(tree: &Tree, w: &[f32], op: Op, abs: bool) -> Vec<Float> {
    let term = |v: usize| Float::with_val(EXACT_PREC, if abs { w[v].abs() } else { w[v] });
    let mut out: Vec<Float> = (0..tree.len()).map(term).collect();
    match op {
        Op::Rootfix => {
            for &v in tree.preorder() {
                if let Some(p) = tree.parent(v) {
                    let parent = out[p as usize].clone();
                    out[v as usize] += &parent;
                }
            }
        }
        Op::Leaffix => {
            for &v in tree.postorder() {
                if let Some(p) = tree.parent(v) {
                    let child = out[v as usize].clone();
                    out[p as usize] += &child;
                }
            }
        }
    }
    out
}

/// Every node's value, Σ|terms|, f64 roundings, decimal string and error of a computed
/// value agree with MPFR bit for bit.
/// Returns the limbs of the scale used (None: a weight not finite).
fn check_against_mpfr(tree: &Tree, w: &[f32], what: &str) -> Option<usize> {
    let mut limbs = None;
    for op in Op::ALL {
        let r = Reference::compute(ReferenceKind::Exact, tree, w, op);
        if let Reference::Exact(sums) = &r {
            limbs = sums.exact.limbs();
        }
        let values = mpfr_reference(tree, w, op, false);
        let abs_sums = mpfr_reference(tree, w, op, true);
        // A computed value to measure: the f32 rounding of each exact value, and w itself.
        for v in 0..tree.len() {
            let x = &values[v];
            assert_eq!(r.value_exact(v), *x, "{what} {op} v={v}");
            assert_eq!(
                r.value_f64(v).to_bits(),
                x.to_f64().to_bits(),
                "{what} {op} v={v}"
            );
            assert_eq!(r.abs_sum_f64(v).to_bits(), abs_sums[v].to_f64().to_bits());
            assert_eq!(r.value_string(v), decimal(x));
            assert_eq!(
                r.rounded_f32(v).to_bits(),
                x.to_f32().to_bits(),
                "{what} {op} v={v}"
            );
            assert_eq!(
                r.beyond_f32(v),
                x.to_f32().is_infinite(),
                "{what} {op} v={v}"
            );
            for computed in [x.to_f32(), w[v], 0.0] {
                let e = r.error(v, computed);
                if !computed.is_finite() {
                    // The correct rounding of a value beyond f32's range.
                    assert_eq!(e.class, ErrorClass::Overflow, "{what} {op} v={v}");
                    continue;
                }
                let mut d = Float::with_val(EXACT_PREC, computed);
                d -= x;
                let (diff, xa) = (d.to_f64().abs(), x.to_f64().abs());
                assert_eq!(e.abs.to_bits(), diff.to_bits(), "{what} {op} v={v}");
                if xa != 0.0 {
                    assert_eq!(e.rel.to_bits(), (diff / xa).to_bits());
                } else {
                    assert_eq!(e.flagged(), diff != 0.0);
                }
            }
        }
    }
    limbs
}

/// Gensum weights up to κ = 1e30 on every topology.
#[test]
fn exact_reference_matches_mpfr_on_gensum() {
    use generators::{Topology, WeightModel};
    let mut scales = std::collections::BTreeMap::new();
    for (i, topo) in Topology::all_defaults().into_iter().enumerate() {
        for (j, cond) in [1e1, 1e10, 1e20, 1e30].into_iter().enumerate() {
            let mut rng = generators::rng(100 + 10 * i as u64 + j as u64);
            let n = 600;
            let tree = topo.generate(n, ChildOrder::Natural, &mut rng).unwrap();
            let w = WeightModel::Gensum.weights(n, cond, &mut rng).unwrap();
            let limbs = check_against_mpfr(&tree, &w, &format!("{topo} κ={cond:e}"));
            scales
                .entry(limbs)
                .or_insert_with(Vec::new)
                .push(format!("κ={cond:e}"));
        }
        // Small integers (one limb) and a 220-bit spread of powers of two (four).
        let n = 600;
        let tree = topo
            .generate(n, ChildOrder::Natural, &mut generators::rng(7))
            .unwrap();
        let small: Vec<f32> = (0..n).map(|v| (v % 7) as f32 - 3.0).collect();
        let spread: Vec<f32> = (0..n)
            .map(|v| (if v % 2 == 0 { 1.0f32 } else { -1.5 }) * 2f32.powi(v as i32 % 211 - 110))
            .collect();
        for (w, what) in [(small, "small integers"), (spread, "spread")] {
            let limbs = check_against_mpfr(&tree, &w, &format!("{topo} {what}"));
            scales
                .entry(limbs)
                .or_insert_with(Vec::new)
                .push(what.to_string());
        }
    }
    // Every scale, 1 to 4 limbs, is exercised (5, the full range: by the edge values).
    assert!((1..=4).all(|l| scales.contains_key(&Some(l))), "{scales:?}");
}

/// The ends of the f32 range: max, min normal, subnormals, signed zeros, and exact
/// cancellation to 0.
#[test]
fn exact_reference_matches_mpfr_on_edge_values() {
    use generators::Topology;
    let max = f32::MAX;
    let min_normal = f32::MIN_POSITIVE;
    let sub = f32::from_bits(1);
    let edges = [
        max,
        -max,
        min_normal,
        -min_normal,
        sub,
        -sub,
        f32::from_bits(0x7f_ffff),
        0.0,
        -0.0,
        1.0,
        -1.0,
        2f32.powi(-24),
    ];
    for (i, topo) in Topology::all_defaults().into_iter().enumerate() {
        let mut rng = generators::rng(7 + i as u64);
        let n = 200;
        let tree = topo.generate(n, ChildOrder::Natural, &mut rng).unwrap();
        // Edge values in a pattern that also cancels exactly (x then −x).
        let w: Vec<f32> = (0..n)
            .map(|v| {
                let x = edges[(v / 2) % edges.len()];
                if v % 2 == 0 { x } else { -x }
            })
            .collect();
        // The whole f32 range: the most limbs.
        assert_eq!(
            check_against_mpfr(&tree, &w, &format!("{topo} edges")),
            Some(5)
        );
        let zeros: Vec<f32> = (0..n)
            .map(|v| if v % 3 == 0 { 0.0 } else { -0.0 })
            .collect();
        check_against_mpfr(&tree, &zeros, &format!("{topo} zeros"));
    }
}
