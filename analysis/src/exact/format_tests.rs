//! The exact treefix rounded to every storage format carried as f32 (f16, bf16, f32), against
//! MPFR rounding the exact sums at the format's precision with its subnormals and overflow, on
//! every topology and child order, and on each format's gadgets: sums on a tie, on the
//! overflow threshold, at the smallest subnormal, and −0.

use super::*;
use generators::{ChildOrder, Topology, WeightModel};
use rug::Float;
use rug::float::Round;

/// Every vertex's exact sum by MPFR at `prec` bits (as the walks' own test, independently of
/// them): 400 hold any sum of f32 weights, 2200 any of f64 ones.
pub(super) fn exact_sums<W: Copy>(tree: &Tree, w: &[W], op: Op, prec: u32) -> Vec<Float>
where
    Float: rug::Assign<W>,
{
    let mut out: Vec<Float> = w.iter().map(|&x| Float::with_val(prec, x)).collect();
    let order: Vec<u32> = match op {
        Op::Rootfix => tree.preorder().to_vec(),
        Op::Leaffix => tree.postorder().to_vec(),
    };
    for v in order {
        if let Some(p) = tree.parent(v) {
            let (from, to) = match op {
                Op::Rootfix => (p as usize, v as usize),
                Op::Leaffix => (v as usize, p as usize),
            };
            let x = out[from].clone();
            out[to] += x;
        }
    }
    out
}

/// `x` rounded to nearest in `p` by MPFR: p bits, then p's subnormals, then ±∞ beyond range.
fn mpfr_round(p: Precision, x: &Float) -> f64 {
    let (mut f, ord) = Float::with_val_round(p.p(), x, Round::Nearest);
    f.subnormalize_round(p.emin() + 1, ord, Round::Nearest);
    let r = f.to_f64();
    if r.abs() > p.max_finite() {
        f64::INFINITY.copysign(r)
    } else {
        r
    }
}

/// The three formats carried as f32, with weights of each.
const FORMATS: [Precision; 3] = [Precision::F16, Precision::Bf16, Precision::F32];

fn check(p: Precision, tree: &Tree, w: &[f32], what: &str) {
    assert!(p.first_outside(w).is_none(), "{what}: weights of {p}");
    for op in Op::ALL {
        let want = exact_sums(tree, w, op, 400);
        let twin = correctly_rounded_in(tree, w, op, p);
        let sums = sums(tree, w, op);
        for v in 0..w.len() {
            let m = mpfr_round(p, &want[v]);
            // The twin gives +0 for every exact zero (as the GPU kernel); the reference keeps
            // IEEE's sign (−0 when every term is −0).
            let plus_zero = if m == 0.0 { 0.0 } else { m };
            assert_eq!(
                (twin[v] as f64).to_bits(),
                plus_zero.to_bits(),
                "{what} {p} {op} vertex {v}: twin {:e}, MPFR {m:e}",
                twin[v]
            );
            // MPFR's exact sums keep IEEE's sign of zero (−0 only when every term is −0).
            let r = sums.to_precision(v, p);
            assert_eq!(
                r.to_bits(),
                m.to_bits(),
                "{what} {p} {op} vertex {v}: reference {r:e}, MPFR {m:e}"
            );
        }
    }
}

#[test]
fn every_topology_and_child_order_rounds_as_mpfr() {
    for p in FORMATS {
        for topology in Topology::all_defaults() {
            for order in ChildOrder::ALL {
                for (seed, (n, cond)) in [(7usize, 1e2), (300, 1e6), (2000, 1e12)]
                    .into_iter()
                    .enumerate()
                {
                    let mut rng = generators::rng(460 + seed as u64);
                    let tree = topology.generate(n, order, &mut rng).unwrap();
                    for model in [
                        WeightModel::Gensum,
                        WeightModel::Normal,
                        WeightModel::Integers,
                    ] {
                        let w = model.weights(n, cond, &mut rng).unwrap();
                        // Scaled by a power of two so that no sum reaches the format's
                        // overflow (the gadgets test it), then rounded to the format: the
                        // smallest weights land among its subnormals or on zero.
                        let top = w.iter().fold(0f32, |m, x| m.max(x.abs())) as f64;
                        let room = p.max_finite() / (2.0 * n as f64);
                        let scale = 2f64.powi((room / top).log2().floor() as i32);
                        let w: Vec<f32> = w
                            .iter()
                            .map(|&x| p.round(x as f64 * scale) as f32)
                            .collect();
                        check(p, &tree, &w, &format!("{topology} {order} n={n} {model}"));
                    }
                }
            }
        }
    }
}

/// Each format's gadgets on a chain (rootfix: the running sums; leaffix: the suffix sums) and
/// a star (rootfix: root + leaf; leaffix: the root's whole sum).
#[test]
fn each_formats_gadgets_round_as_mpfr() {
    for p in FORMATS {
        let ulp1 = p.ulp(1.0) as f32;
        let max = p.max_finite() as f32;
        let top_ulp = p.ulp(p.max_finite()) as f32;
        let sub = p.min_subnormal() as f32;
        let gadgets: Vec<(&str, Vec<f32>)> = vec![
            // 1 + ulp/2: a tie, to even (1); 1 + ulp + ulp/2: a tie, to even (1 + 2 ulp).
            ("tie down", vec![1.0, ulp1 / 2.0]),
            ("tie up", vec![1.0 + ulp1, ulp1 / 2.0]),
            ("just above a tie", vec![1.0, ulp1 / 2.0, sub]),
            // The largest finite value and half its ulp: the overflow threshold, rounded to ∞.
            ("overflow threshold", vec![max, top_ulp / 2.0]),
            ("below the threshold", vec![max, top_ulp / 4.0]),
            ("beyond and back", vec![max, max, -max]),
            ("smallest subnormal", vec![sub, sub, -sub]),
            ("half the smallest subnormal", vec![2.0 * sub, -sub, sub]),
            ("cancelled to zero", vec![1.0, -1.0]),
            ("negative zeros", vec![-0.0, -0.0, -0.0]),
            ("a negative zero and a zero", vec![-0.0, 0.0]),
        ];
        for (what, w) in gadgets {
            for topology in [Topology::Chain, Topology::Star] {
                let tree = topology
                    .generate(w.len(), ChildOrder::Natural, &mut generators::rng(1))
                    .unwrap();
                check(p, &tree, &w, &format!("{what} on a {topology}"));
            }
        }
    }
}
