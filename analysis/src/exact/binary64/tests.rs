//! The exact treefix of f64 weights against MPFR rounding the exact sums to f64 (53 bits, its
//! subnormals, ±∞ beyond range), on every topology and child order, on weights of 53 bits
//! spread over a few binades or over f64's whole range, and on f64's gadgets.

use super::*;
use crate::exact::format_tests::exact_sums;
use generators::{ChildOrder, Topology, WeightModel};
use rand::RngExt;
use rug::Float;
use rug::float::Round;

/// Bits that hold any sum of up to 2^31 f64 values exactly.
const PREC: u32 = 2200;

/// `x` rounded to nearest f64 by MPFR, with f64's subnormals; an exact zero +0 (the twin's).
fn mpfr_f64(x: &Float) -> f64 {
    let (mut f, ord) = Float::with_val_round(53, x, Round::Nearest);
    f.subnormalize_round(-1021, ord, Round::Nearest);
    let r = f.to_f64();
    if r == 0.0 { 0.0 } else { r }
}

fn check(tree: &Tree, w: &[f64], what: &str) {
    for op in Op::ALL {
        let want = exact_sums(tree, w, op, PREC);
        let got = correctly_rounded_f64(tree, w, op);
        for v in 0..w.len() {
            let m = mpfr_f64(&want[v]);
            assert_eq!(
                got[v].to_bits(),
                m.to_bits(),
                "{what} {op} vertex {v}: {:e} against MPFR {m:e}",
                got[v]
            );
        }
    }
}

/// f64 weights of an ill-conditioned sum: the generator's, each given 29 more random bits
/// below its own (a value of f64, not of f32) and a random sign flip for some.
fn wide_bits(w: &[f32], rng: &mut generators::Rng) -> Vec<f64> {
    w.iter()
        .map(|&x| {
            let x = x as f64;
            let extra = rng.random_range(0..1u64 << 29) as f64 * x.abs() * 2f64.powi(-53);
            x + extra.copysign(x)
        })
        .collect()
}

#[test]
fn every_topology_and_child_order_rounds_as_mpfr() {
    for topology in Topology::all_defaults() {
        for order in ChildOrder::ALL {
            for (seed, (n, cond)) in [(7usize, 1e2), (300, 1e8), (1500, 1e16)]
                .into_iter()
                .enumerate()
            {
                let mut rng = generators::rng(640 + seed as u64);
                let tree = topology.generate(n, order, &mut rng).unwrap();
                for model in [WeightModel::Gensum, WeightModel::Normal] {
                    let w = model.weights(n, cond, &mut rng).unwrap();
                    let w = wide_bits(&w, &mut rng);
                    check(&tree, &w, &format!("{topology} {order} n={n} {model}"));
                }
                // Magnitudes over f64's whole range: 2^-1074 to 2^1000, most limbs.
                let w: Vec<f64> = (0..n)
                    .map(|_| {
                        // Random sign and fraction, exponent field 0 (subnormal) to 2022.
                        let field = rng.random_range(0..2023u64);
                        f64::from_bits(rng.random::<u64>() & !(0x7ff << 52) | field << 52)
                    })
                    .collect();
                check(&tree, &w, &format!("{topology} {order} n={n} full range"));
            }
        }
    }
}

/// f64's gadgets on a chain and a star: ties, the overflow threshold, the smallest subnormal,
/// the boundary of the normal range, zeros.
#[test]
fn f64_gadgets_round_as_mpfr() {
    let ulp1 = f64::EPSILON;
    let max = f64::MAX;
    let top_ulp = 2f64.powi(971);
    let sub = f64::from_bits(1);
    let gadgets: Vec<(&str, Vec<f64>)> = vec![
        ("tie down", vec![1.0, ulp1 / 2.0]),
        ("tie up", vec![1.0 + ulp1, ulp1 / 2.0]),
        ("just above a tie", vec![1.0, ulp1 / 2.0, sub]),
        ("overflow threshold", vec![max, top_ulp / 2.0]),
        ("below the threshold", vec![max, top_ulp / 4.0]),
        ("beyond and back", vec![max, max, -max]),
        ("smallest subnormal", vec![sub, sub, -sub]),
        (
            "to the normal range",
            vec![f64::MIN_POSITIVE - sub, sub, -sub],
        ),
        ("cancelled to zero", vec![1.0, -1.0]),
        ("negative zeros", vec![-0.0, -0.0, -0.0]),
        ("a huge and a tiny weight", vec![1e300, sub, -1e300]),
    ];
    for (what, w) in gadgets {
        for topology in [Topology::Chain, Topology::Star] {
            let tree = topology
                .generate(w.len(), ChildOrder::Natural, &mut generators::rng(1))
                .unwrap();
            check(&tree, &w, &format!("{what} on a {topology}"));
        }
    }
    let chain = Topology::Chain
        .generate(2, ChildOrder::Natural, &mut generators::rng(1))
        .unwrap();
    let nan = correctly_rounded_f64(&chain, &[1.0, f64::INFINITY], Op::Rootfix);
    assert!(nan.iter().all(|x| x.is_nan()));
}

/// The grading reference: `nearest` is the correct rounding (with IEEE's sign of zero),
/// `nearest + residual` the exact value to within half an ulp of the residual, and an error
/// formed from them |computed − exact| to 2^-50 of itself, against MPFR.
#[test]
fn the_two_parts_are_the_exact_value() {
    let mut rng = generators::rng(660);
    for topology in [Topology::Chain, Topology::Star, Topology::RandomRecursive] {
        let tree = topology
            .generate(800, ChildOrder::HeavyFirst, &mut rng)
            .unwrap();
        let w = WeightModel::Gensum.weights(800, 1e14, &mut rng).unwrap();
        let mut w = wide_bits(&w, &mut rng);
        w[3] = -0.0;
        for op in Op::ALL {
            let want = exact_sums(&tree, &w, op, PREC);
            let got = sums_f64(&tree, &w, op);
            let twin = correctly_rounded_f64(&tree, &w, op);
            for v in 0..w.len() {
                let (x, r) = (got.nearest[v], got.residual[v]);
                let m = Float::with_val_round(53, &want[v], Round::Nearest).0;
                assert_eq!(x, m.to_f64(), "{topology} {op} vertex {v}");
                assert_eq!(twin[v], if x == 0.0 { 0.0 } else { x });
                let left = Float::with_val(PREC, &want[v] - x) - r;
                assert!(left.abs() <= r.abs() * f64::EPSILON, "{topology} {op} {v}");
                // A computed value some ulps off: its error, and a twin's.
                let computed = x + (v as f64 - 400.0) * x.abs() * f64::EPSILON;
                let e = Float::with_val(PREC, &want[v] - computed).abs().to_f64();
                let got_e = got.abs_error(v, computed);
                assert!(
                    (got_e - e).abs() <= e * 2f64.powi(-50),
                    "{v}: {got_e:e} {e:e}"
                );
            }
        }
    }
}

/// Beyond f64's range, at zero, and with weights ±∞ and NaN: the classes of an f32 result.
#[test]
fn errors_beyond_range_and_at_non_finite_weights() {
    let chain = Topology::Chain
        .generate(3, ChildOrder::Natural, &mut generators::rng(1))
        .unwrap();
    let s = sums_f64(&chain, &[f64::MAX, f64::MAX, -f64::MAX], Op::Rootfix);
    assert_eq!(s.nearest, [f64::MAX, f64::INFINITY, f64::MAX]);
    assert_eq!(s.error(1, f64::INFINITY).class, ErrorClass::Overflow);
    // A finite result where the exact value is 2·MAX: half of it is wrong.
    let e = s.error(1, f64::MAX);
    assert_eq!((e.class, e.rel), (ErrorClass::Relative, 0.5));
    assert_eq!(s.error(2, f64::MAX).rel, 0.0);
    let z = sums_f64(&chain, &[1.0, -1.0, -0.0], Op::Rootfix);
    assert_eq!(z.error(1, 0.0).class, ErrorClass::Relative);
    assert_eq!(z.error(1, 1e-300).class, ErrorClass::Flagged);
    let inf = sums_f64(
        &chain,
        &[1.0, f64::INFINITY, f64::NEG_INFINITY],
        Op::Rootfix,
    );
    assert_eq!(inf.nearest[..2], [1.0, f64::INFINITY]);
    assert!(inf.nearest[2].is_nan());
    assert_eq!(inf.error(1, f64::INFINITY).class, ErrorClass::Overflow);
    // A finite result where the IEEE sum is ∞: an infinite loss.
    assert_eq!(inf.error(1, 5.0).rel, f64::INFINITY);
    assert_eq!(inf.error(1, 0.0).rel, f64::INFINITY);
}
