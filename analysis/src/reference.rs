//! References for treefix results: exact (the correctly rounded treefix of [`crate::exact`],
//! fixed point on the weights' own scale) and double-double (a fast cross-check).
//!
//! Both are computed incrementally, one addition per vertex along the tree's own orders
//! (rootfix from the parent's value, leaffix from the children's values), never by re-summing
//! paths.

use crate::Op;
use crate::exact::{self, ExactSums};
use crate::orders::tree;
use crate::scan_value::{Abs, ScanValue};
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
    /// The exact values and Σ|terms|, rounded when read.
    Exact(ExactSums),
    Dd {
        values: Vec<TwoFloat>,
        abs_sums: Vec<f64>,
    },
}

pub use crate::f32_format::lost_bits;
pub use crate::node_error::{ErrorClass, NodeError};

impl Reference {
    /// Computes the reference of `op` on `tree` with weights `w`.
    pub fn compute(kind: ReferenceKind, tree: &Tree, w: &[f32], op: Op) -> Reference {
        match kind {
            ReferenceKind::Exact => Reference::Exact(exact::sums(tree, w, op)),
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
        exact::from_words(w, unit, words, values, abs_sums).map(Reference::Exact)
    }

    pub fn kind(&self) -> ReferenceKind {
        match self {
            Reference::Exact { .. } => ReferenceKind::Exact,
            Reference::Dd { .. } => ReferenceKind::Dd,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Reference::Exact(s) => s.abs_sums.len(),
            Reference::Dd { values, .. } => values.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The reference value of node v rounded to f64.
    pub fn value_f64(&self, v: usize) -> f64 {
        match self {
            Reference::Exact(s) => s.to_f64(v),
            Reference::Dd { values, .. } => values[v].hi() + values[v].lo(),
        }
    }

    /// Σ|terms| of node v's sum, rounded to f64.
    pub fn abs_sum_f64(&self, v: usize) -> f64 {
        match self {
            Reference::Exact(ExactSums { abs_sums, .. }) | Reference::Dd { abs_sums, .. } => {
                abs_sums[v]
            }
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
            Reference::Exact(s) => s.to_f32(v),
            Reference::Dd { values, .. } => dd_to_f32(values[v]),
        }
    }

    /// Node v's value rounded to nearest in `p` (ties to even, IEEE's sign of zero and
    /// subnormals), as the f64 that holds it.
    ///
    /// # Panics
    /// For a format other than f32 on the double-double reference, which cannot round
    /// correctly to it (an f64 rounding of its pair rounded again may miss a tie).
    pub fn rounded_in(&self, v: usize, p: generators::Precision) -> f64 {
        match self {
            Reference::Exact(s) => s.to_precision(v, p),
            Reference::Dd { .. } => {
                assert_eq!(
                    p,
                    generators::Precision::F32,
                    "rounded to {p} from the exact reference only"
                );
                self.rounded_f32(v) as f64
            }
        }
    }

    /// Node v's reference rounded to f64 and to f32 ([`Reference::value_f64`],
    /// [`Reference::rounded_f32`]) at once: what a measure reads of it, once per node.
    pub fn roundings(&self, v: usize) -> (f64, f32) {
        match self {
            Reference::Exact(s) => s.roundings(v),
            Reference::Dd { .. } => (self.value_f64(v), self.rounded_f32(v)),
        }
    }

    /// Whether node v's exact value lies beyond f32's range (its rounding is ±∞).
    pub fn beyond_f32(&self, v: usize) -> bool {
        self.rounded_f32(v).is_infinite()
    }

    /// The reference of node v as an MPFR number (exact: a double-double pair is added exactly).
    pub fn value_exact(&self, v: usize) -> Float {
        match self {
            Reference::Exact(s) => s.exact.get(v).to_float(),
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
    pub fn error(&self, v: usize, computed: f32) -> NodeError {
        self.error_at(v, computed, self.roundings(v))
    }

    /// [`Reference::error`] given node v's [`Reference::roundings`] `(x, x32)`.
    pub fn error_at(&self, v: usize, computed: f32, (x, x32): (f64, f32)) -> NodeError {
        if !computed.is_finite() {
            let class = if computed == x32 {
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
        let diff = match self {
            Reference::Exact(s) => s.exact.diff_f64(v, computed).abs(),
            Reference::Dd { values, .. } => {
                let d = TwoFloat::from(computed as f64) - values[v];
                (d.hi() + d.lo()).abs()
            }
        };
        let x = x.abs();
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
mod tests;
