//! References for treefix results: exact (the correctly rounded treefix of [`crate::exact`],
//! fixed point on the weights' own scale) and double-double (a fast cross-check).
//!
//! Both are computed incrementally, one addition per vertex along the tree's own orders
//! (rootfix from the parent's value, leaffix from the children's values), never by re-summing
//! paths.

use crate::Op;
use crate::exact::{self, ExactTreefix, ExactValues};
use crate::orders::{Abs, ScanValue, tree};
use generators::Tree;
use generators::exact_sum::{EXACT_PREC, ExactSum};
use rug::Float;
use serde::{Deserialize, Serialize};
use std::str::FromStr;
use twofloat::TwoFloat;

/// Which reference the errors are measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReferenceKind {
    /// Exact: fixed point on the weights' own scale (the whole f32 range at most).
    #[default]
    Exact,
    /// Double-double (≈ 106 bits, not exact: an ill-conditioned sum beyond ~1e16 loses it).
    Dd,
}

impl ReferenceKind {
    pub fn name(self) -> &'static str {
        match self {
            ReferenceKind::Exact => "exact",
            ReferenceKind::Dd => "dd",
        }
    }
}

impl FromStr for ReferenceKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "exact" => Ok(ReferenceKind::Exact),
            "dd" => Ok(ReferenceKind::Dd),
            _ => Err(format!("unknown reference '{s}' (expected exact or dd)")),
        }
    }
}

/// Per-node reference values of one operation on one weighted tree.
pub enum Reference {
    Exact {
        values: ExactValues,
        /// `values` rounded to f64 (to nearest), read for every error.
        rounded: Vec<f64>,
        /// Σ|terms| of each node, exact, then rounded to f64 (to nearest).
        abs_sums: Vec<f64>,
        /// `values` rounded to the nearest f32: the correctly rounded results.
        rounded_f32: Vec<f32>,
    },
    Dd {
        values: Vec<TwoFloat>,
        abs_sums: Vec<f64>,
    },
}

/// The error of one computed value against the reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeError {
    /// |x̂ − x| / |x|; 0 when both are zero (and for [`ErrorClass::Flagged`] and
    /// [`ErrorClass::Overflow`] nodes, which have no relative error); +∞ for
    /// [`ErrorClass::NonFinite`].
    pub rel: f64,
    /// |x̂ − x| (+∞ for a non-finite result).
    pub abs: f64,
    pub class: ErrorClass,
}

/// What kind of error a node has: which statistics it enters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// A finite result: `rel` is its relative error (0 when both it and x are zero).
    Relative,
    /// The exact value is 0 but the finite result is not: the relative error is undefined,
    /// only `abs` is kept.
    Flagged,
    /// The result is NaN or ±∞ and is not the rounding of the exact value: an infinite loss
    /// (`rel` = `abs` = +∞), whatever the cause.
    NonFinite,
    /// The exact value lies beyond f32's range and the result is its correct rounding, ±∞ as
    /// IEEE gives: no finite answer exists (no relative error; `abs` = +∞).
    Overflow,
}

impl NodeError {
    /// `log2(rel) + 24`, floored at 0: bits lost against a correctly rounded f32 (+∞ for a
    /// non-finite result).
    pub fn lost_bits(&self) -> f64 {
        lost_bits(self.rel)
    }

    /// Whether the relative error is undefined because the exact value is zero.
    pub fn flagged(&self) -> bool {
        self.class == ErrorClass::Flagged
    }

    /// Whether the result is NaN or ±∞ where a finite one exists.
    pub fn nonfinite(&self) -> bool {
        self.class == ErrorClass::NonFinite
    }

    /// Whether the node enters the relative-error statistics (max, median, p99, lost bits):
    /// finite results and non-finite ones (an infinite loss), not flagged or overflowing ones.
    pub fn has_rel(&self) -> bool {
        matches!(self.class, ErrorClass::Relative | ErrorClass::NonFinite)
    }
}

/// `log2(e) + 24`, floored at 0 (+∞ for e = +∞; NaN is never passed: a non-finite result
/// has e = +∞).
pub fn lost_bits(rel: f64) -> f64 {
    if rel > 0.0 {
        (rel.log2() + 24.0).max(0.0)
    } else {
        0.0
    }
}

impl Reference {
    /// Computes the reference of `op` on `tree` with weights `w`.
    pub fn compute(kind: ReferenceKind, tree: &Tree, w: &[f32], op: Op) -> Reference {
        match kind {
            ReferenceKind::Exact => Reference::from(exact::treefix(tree, w, op)),
            ReferenceKind::Dd => Reference::Dd {
                values: incremental(tree, w, op),
                abs_sums: incremental::<Abs<f64>>(tree, w, op)
                    .into_iter()
                    .map(|x| x.0)
                    .collect(),
            },
        }
    }

    /// The exact reference of `w`'s treefix from exact sums computed elsewhere (the GPU's
    /// fixed-point scan): per vertex, `words` 32-bit two's-complement words of the value and
    /// of Σ|terms|, in units of 2^unit ([`exact::from_words`]). None where a weight is not
    /// finite; the caller keeps the CPU reference where a weight is −0 (the sign of a zero sum).
    pub fn exact_from_words(
        w: &[f32],
        unit: i32,
        words: usize,
        values: &[u32],
        abs_sums: &[u32],
    ) -> Option<Reference> {
        exact::from_words(w, unit, words, values, abs_sums).map(Reference::from)
    }

    pub fn kind(&self) -> ReferenceKind {
        match self {
            Reference::Exact { .. } => ReferenceKind::Exact,
            Reference::Dd { .. } => ReferenceKind::Dd,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Reference::Exact { rounded, .. } => rounded.len(),
            Reference::Dd { values, .. } => values.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The reference value of node v rounded to f64.
    pub fn value_f64(&self, v: usize) -> f64 {
        match self {
            Reference::Exact { rounded, .. } => rounded[v],
            Reference::Dd { values, .. } => values[v].hi() + values[v].lo(),
        }
    }

    /// Σ|terms| of node v's sum, rounded to f64.
    pub fn abs_sum_f64(&self, v: usize) -> f64 {
        match self {
            Reference::Exact { abs_sums, .. } | Reference::Dd { abs_sums, .. } => abs_sums[v],
        }
    }

    /// The condition number of node v's sum: Σ|terms| / |Σ terms| (∞ if the sum is zero).
    pub fn cond(&self, v: usize) -> f64 {
        let x = self.value_f64(v).abs();
        if x == 0.0 {
            f64::INFINITY
        } else {
            self.abs_sum_f64(v) / x
        }
    }

    /// The reference of node v rounded to the nearest f32, ties to even: the correctly rounded
    /// result (±∞ beyond f32's range). Exact for the exact reference; from the double-double
    /// pair (rounded to odd at 53 bits, then to f32) for `dd`, whose pair may itself be off.
    pub fn rounded_f32(&self, v: usize) -> f32 {
        match self {
            Reference::Exact { rounded_f32, .. } => rounded_f32[v],
            Reference::Dd { values, .. } => dd_to_f32(values[v]),
        }
    }

    /// Whether node v's exact value lies beyond f32's range (its rounding is ±∞).
    pub fn beyond_f32(&self, v: usize) -> bool {
        // f64 rounding is monotone: |x| rounds to at least 2^128·(1 − 2^-25), the smallest
        // value whose f32 rounding is ∞, only if |x| is near it; decide those exactly.
        let x = self.value_f64(v).abs();
        if x < 3.4e38 {
            false
        } else {
            self.rounded_f32(v).is_infinite()
        }
    }

    /// The reference of node v as an MPFR number (exact: a double-double pair is added exactly).
    pub fn value_exact(&self, v: usize) -> Float {
        match self {
            Reference::Exact { values, .. } => values.get(v).to_float(),
            Reference::Dd { values, .. } => {
                let mut f = Float::with_val(EXACT_PREC, values[v].hi());
                f += values[v].lo();
                f
            }
        }
    }

    /// The reference of node v as a decimal string with 30 significant digits.
    pub fn value_string(&self, v: usize) -> String {
        decimal(&self.value_exact(v))
    }

    /// The error of `computed` at node v. The difference is formed exactly (exact reference)
    /// or in double-double, then divided in f64. A NaN or ±∞ result is an infinite loss,
    /// unless it is the correct rounding of a value beyond f32's range ([`ErrorClass`]).
    /// `_scratch` is no longer used (the exact difference needs no MPFR number); it stays for
    /// the callers.
    pub fn error(&self, v: usize, computed: f32, _scratch: &mut Float) -> NodeError {
        if !computed.is_finite() {
            let class = if computed == self.rounded_f32(v) {
                ErrorClass::Overflow
            } else {
                ErrorClass::NonFinite
            };
            return NodeError {
                rel: if class == ErrorClass::Overflow {
                    0.0
                } else {
                    f64::INFINITY
                },
                abs: f64::INFINITY,
                class,
            };
        }
        let (diff, x) = match self {
            Reference::Exact {
                values, rounded, ..
            } => (values.diff_f64(v, computed).abs(), rounded[v].abs()),
            Reference::Dd { values, .. } => {
                let d = TwoFloat::from(computed as f64) - values[v];
                (
                    (d.hi() + d.lo()).abs(),
                    (values[v].hi() + values[v].lo()).abs(),
                )
            }
        };
        if x == 0.0 {
            NodeError {
                rel: 0.0,
                abs: diff,
                class: if diff != 0.0 {
                    ErrorClass::Flagged
                } else {
                    ErrorClass::Relative
                },
            }
        } else {
            NodeError {
                rel: diff / x,
                abs: diff,
                class: ErrorClass::Relative,
            }
        }
    }
}

/// A double-double (hi, lo) rounded to f32: rounded to odd at 53 bits (hi, or its neighbour
/// towards lo when hi's last bit is even and lo ≠ 0), then to nearest f32, which is the
/// correct rounding of hi + lo (see `exact_sum`'s `to_f64_odd_at`).
fn dd_to_f32(x: TwoFloat) -> f32 {
    let (hi, lo) = (x.hi(), x.lo());
    if lo == 0.0 || !hi.is_finite() || hi.to_bits() & 1 == 1 {
        return hi as f32;
    }
    let toward = if (lo > 0.0) == (hi > 0.0) { 1 } else { -1i64 };
    (f64::from_bits((hi.to_bits() as i64 + toward) as u64)) as f32
}

impl From<ExactTreefix> for Reference {
    fn from(t: ExactTreefix) -> Reference {
        Reference::Exact {
            values: t.exact,
            rounded: t.nearest_f64,
            abs_sums: t.abs_sums,
            rounded_f32: t.rounded,
        }
    }
}

/// Decimal with 30 significant digits ("0" for zero).
pub fn decimal(f: &Float) -> String {
    if f.is_zero() {
        return "0".to_string();
    }
    f.to_string_radix(10, Some(30))
}

/// One addition per vertex: rootfix in preorder from the parent, leaffix in postorder from the
/// children (in child order).
fn incremental<T: ScanValue>(tree: &Tree, w: &[f32], op: Op) -> Vec<T> {
    match op {
        Op::Rootfix => tree::rootfix_sequential(tree, w),
        Op::Leaffix => tree::leaffix_sequential(tree, w),
    }
}

impl ScanValue for ExactSum {
    #[inline]
    fn term(w: f32) -> Self {
        ExactSum::from_f32(w)
    }
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        self + rhs
    }
}

impl ScanValue for TwoFloat {
    #[inline]
    fn term(w: f32) -> Self {
        TwoFloat::from(w as f64)
    }
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        self + rhs
    }
}

#[cfg(test)]
mod tests {
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
        let mut s = Float::new(EXACT_PREC);
        let e = r.error(2, 0.0, &mut s);
        assert_eq!((e.rel, e.flagged()), (1.0, false));
        assert_eq!(e.lost_bits(), 24.0);
    }

    #[test]
    fn flags_zero_references() {
        let t = Tree::from_parents(vec![NO_PARENT, 0], ChildOrder::Natural).unwrap();
        let r = Reference::compute(ReferenceKind::Exact, &t, &[1.0, -1.0], Op::Rootfix);
        let mut s = Float::new(EXACT_PREC);
        assert!(r.error(1, 1e-8, &mut s).flagged());
        let ok = r.error(1, 0.0, &mut s);
        assert!(!ok.flagged() && ok.rel == 0.0);
    }

    /// A NaN or ±∞ result is an infinite loss, unless it is the correct rounding of a value
    /// beyond f32's range; the double-double rounding to f32 is the correct one.
    #[test]
    fn nonfinite_results() {
        let t = Tree::from_parents(vec![NO_PARENT, 0, 0], ChildOrder::Natural).unwrap();
        let big = 3e38f32;
        let mut s = Float::new(EXACT_PREC);
        for kind in [ReferenceKind::Exact, ReferenceKind::Dd] {
            let r = Reference::compute(kind, &t, &[big, big, -big], Op::Rootfix);
            // Vertex 1: 6e38, beyond f32's range; vertex 2: 0.
            assert!(r.beyond_f32(1) && !r.beyond_f32(0) && !r.beyond_f32(2));
            assert_eq!(r.rounded_f32(1), f32::INFINITY);
            let inf = r.error(1, f32::INFINITY, &mut s);
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
                let e = r.error(v, c, &mut s);
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
        let mut scratch = Float::new(EXACT_PREC);
        let mut limbs = None;
        for op in Op::ALL {
            let r = Reference::compute(ReferenceKind::Exact, tree, w, op);
            if let Reference::Exact { values, .. } = &r {
                limbs = values.limbs();
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
                    let e = r.error(v, computed, &mut scratch);
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
}
