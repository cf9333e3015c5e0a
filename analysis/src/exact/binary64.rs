//! The correctly rounded treefix of f64 weights: the same one walk of the tree's own order on
//! the weights' fixed point as for f32 weights ([`super::correctly_rounded`]), with as many
//! limbs as the weights' span needs (f64's whole range takes 34), and one rounding of each
//! integer to the nearest f64 with f64's subnormals and overflow.

use super::walk::{Disjoint, WithAbs};
use super::{negative_zeros, walk, walk_with_few_terms};
use crate::node_error::{ErrorClass, NodeError};
use crate::{Op, orders};
use generators::Tree;
use generators::fixed::{Fixed, Scale};

/// Calls `$body` with the limb count `$limbs` (1 to 34) rounded up to one of those the f64
/// walks are built for (1 to 5 as for f32 weights, then 8, 16 and 34) as the const generic
/// `$l`: spans beyond 2^300 are rare, and each count is one more copy of the walks.
macro_rules! with_f64_limbs {
    ($limbs:expr, $l:ident => $body:expr) => {
        match $limbs {
            l @ 1..=5 => $crate::with_limbs!(l, $l => $body),
            6..=8 => {
                const $l: usize = 8;
                $body
            }
            9..=16 => {
                const $l: usize = 16;
                $body
            }
            l => {
                assert!(l <= generators::fixed::MAX_F64_LIMBS, "{l} limbs: more than f64's range needs");
                const $l: usize = generators::fixed::MAX_F64_LIMBS;
                $body
            }
        }
    };
}

/// Every vertex's exact rootfix or leaffix of the f64 weights `w`, rounded to the nearest f64,
/// ties to even, with f64's subnormals and ±∞ beyond its range: `vectorial-exact`'s results in
/// f64. As for f32 weights, an exact zero is +0 and a weight that is not finite gives NaN
/// everywhere (it has no fixed point).
///
/// ```
/// use analysis::{Op, exact};
/// use generators::{ChildOrder, NO_PARENT, Tree};
///
/// // A chain 1e16, 1, −1e16: f64 additions along it lose the 1; the exact treefix keeps it.
/// let chain = Tree::from_parents(vec![NO_PARENT, 0, 1], ChildOrder::Natural).unwrap();
/// let w = [1e16, 1.0, -1e16];
/// assert_eq!(exact::correctly_rounded_f64(&chain, &w, Op::Rootfix), [1e16, 1e16, 1.0]);
/// assert_eq!((w[0] + w[1]) + w[2], 0.0);
/// ```
pub fn correctly_rounded_f64(tree: &Tree, w: &[f64], op: Op) -> Vec<f64> {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let Some(scale) = Scale::for_f64_weights(w) else {
        return vec![f64::NAN; w.len()];
    };
    let mut out = vec![0f64; w.len()];
    let to = Disjoint::new(&mut out);
    // Each vertex is finished once, by exactly one of the three hooks below.
    let put = |v: usize, x: f64| unsafe { to.set(v, x) };
    let plus_zero = |x: f64| if x == 0.0 { 0.0 } else { x };
    with_f64_limbs!(scale.limbs(), L => walk_with_few_terms(
        tree,
        w,
        op,
        |x| scale.term_f64::<L>(x),
        |v, k: Fixed<L>| put(v, scale.round_f64(k)),
        // A two-term sum is one IEEE addition, correctly rounded.
        |v, a, b| {
            put(v, plus_zero(a + b));
            true
        },
        // A leaf's sum is its weight.
        |v, x| {
            put(v, plus_zero(x));
            true
        },
    ));
    out
}

/// Σw and Σ|w| of f64 weights, both exact, then rounded to the nearest f64 (±∞ beyond its
/// range); None where a weight is not finite.
pub fn sums_of_f64(w: &[f64]) -> Option<(f64, f64)> {
    let scale = Scale::for_f64_weights(w)?;
    Some(with_f64_limbs!(scale.limbs(), L => {
        let (sum, abs) = w.iter().fold((Fixed::<L>::ZERO, Fixed::<L>::ZERO), |(s, a), &x| {
            (s + scale.term_f64(x), a + scale.term_f64(x.abs()))
        });
        (scale.round_f64(sum), scale.round_f64(abs))
    }))
}

/// κ = Σ|w| / |Σw| of f64 weights, both sums exact, then rounded to f64 (∞ where Σw = 0; NaN
/// where a weight is not finite).
pub fn cond_f64(w: &[f64]) -> f64 {
    sums_of_f64(w).map_or(f64::NAN, |(sum, abs)| abs / sum.abs())
}

/// The exact treefix of f64 weights as the grading of f64 results reads it: each exact value
/// as the unevaluated sum of two f64, its correct rounding and the rounding of what is left
/// (an error is formed from both, to about 2^-106 of the value), and Σ|terms|.
#[derive(Debug, Clone)]
pub struct ExactSumsF64 {
    /// Each exact value rounded to the nearest f64, ties to even: the correctly rounded result
    /// (IEEE's sign of zero; ±∞ beyond f64's range; the IEEE sum where a weight is ±∞ or NaN).
    pub nearest: Vec<f64>,
    /// The exact value minus `nearest`, rounded to the nearest f64; where `nearest` is ±∞ and
    /// the weights finite, the exact value times 2^-64 instead (what a finite result's relative
    /// error needs); 0 where a weight is not finite.
    pub residual: Vec<f64>,
    /// Σ|terms| of each vertex's sum, exact, then rounded to the nearest f64.
    pub abs_sums: Vec<f64>,
}

/// 2^-64: the scale of sums beyond f64's range (n·2^1024 with n < 2^32 is below 2^1056).
const BEYOND: f64 = 1.0 / 18_446_744_073_709_551_616.0;

impl ExactSumsF64 {
    pub fn len(&self) -> usize {
        self.nearest.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nearest.is_empty()
    }

    /// κ_v = Σ|terms| / |x| (∞ where x = 0).
    pub fn cond(&self, v: usize) -> f64 {
        self.abs_sums[v] / self.nearest[v].abs()
    }

    /// The error of `computed` at vertex v, classed as an f32 result's is
    /// ([`crate::Reference::error`]): |computed − exact| formed from the two parts, then
    /// divided by |nearest|.
    pub fn error(&self, v: usize, computed: f64) -> NodeError {
        let (x, r) = (self.nearest[v], self.residual[v]);
        if !computed.is_finite() {
            let overflow = computed == x;
            return NodeError {
                rel: if overflow { 0.0 } else { f64::INFINITY },
                abs: f64::INFINITY,
                class: if overflow {
                    ErrorClass::Overflow
                } else {
                    ErrorClass::NonFinite
                },
            };
        }
        if !x.is_finite() {
            // Beyond range (r is the exact value scaled by 2^-64): a finite result is off by
            // more than f64 holds, relatively by |computed·2^-64 − r| / |r|.
            // (r = 0: a non-finite weight makes the sum ±∞ whatever the finite ones.)
            let rel = if r == 0.0 {
                f64::INFINITY
            } else {
                ((computed * BEYOND - r) / r).abs()
            };
            return NodeError {
                rel,
                abs: f64::INFINITY,
                class: ErrorClass::Relative,
            };
        }
        // Near the top of the range, computed − x could overflow: formed 2^-64 lower there.
        let big = computed.abs().max(x.abs()) > 2f64.powi(1000);
        let s = if big { BEYOND } else { 1.0 };
        let scaled = ((computed * s - x * s) - r * s).abs();
        let abs = scaled / s;
        if x == 0.0 {
            NodeError {
                rel: 0.0,
                abs,
                class: if abs != 0.0 {
                    ErrorClass::Flagged
                } else {
                    ErrorClass::Relative
                },
            }
        } else {
            NodeError {
                rel: scaled / (x * s).abs(),
                abs,
                class: ErrorClass::Relative,
            }
        }
    }

    /// |computed − exact| at vertex v ([`ExactSumsF64::error`]).
    pub fn abs_error(&self, v: usize, computed: f64) -> f64 {
        self.error(v, computed).abs
    }
}

/// The exact rootfix or leaffix of every vertex of `tree` with f64 weights `w`, as two f64 per
/// vertex, and Σ|terms| ([`ExactSumsF64`]), in one walk. Weights ±∞ and NaN follow IEEE's
/// rules: a vertex whose sum has one is the IEEE sum of its non-finite terms.
pub fn sums_f64(tree: &Tree, w: &[f64], op: Op) -> ExactSumsF64 {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    if w.iter().any(|x| !x.is_finite()) {
        return with_non_finite(tree, w, op);
    }
    let scale = Scale::for_f64_weights(w).expect("finite weights have a scale");
    let n = w.len();
    let (mut nearest, mut residual, mut abs_sums) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    {
        let to = (
            Disjoint::new(&mut nearest),
            Disjoint::new(&mut residual),
            Disjoint::new(&mut abs_sums),
        );
        with_f64_limbs!(scale.limbs(), L => walk(
            tree,
            w,
            op,
            |x| WithAbs(scale.term_f64::<L>(x), scale.term_f64(x.abs())),
            // Each vertex is finished once.
            |v, WithAbs(k, m): WithAbs<Fixed<L>>| {
                let x = scale.round_f64(k);
                let r = if x.is_finite() {
                    scale.round_f64(k - scale.term_f64(x))
                } else {
                    k.round_f64_at(scale.unit() - 64)
                };
                unsafe {
                    to.0.set(v, x);
                    to.1.set(v, r);
                    to.2.set(v, scale.round_f64(m));
                }
            },
        ));
    }
    if w.iter().any(|x| x.to_bits() == 1 << 63) {
        for v in negative_zeros(tree, w, op) {
            nearest[v as usize] = -0.0;
        }
    }
    ExactSumsF64 {
        nearest,
        residual,
        abs_sums,
    }
}

/// [`sums_f64`] where a weight is ±∞ or NaN: the finite weights' exact sums, and where a
/// vertex's sum has a non-finite term, the IEEE sum of those terms (±∞, or NaN for a NaN or
/// both infinities), which the finite ones cannot change.
fn with_non_finite(tree: &Tree, w: &[f64], op: Op) -> ExactSumsF64 {
    let finite: Vec<f64> = w
        .iter()
        .map(|&x| if x.is_finite() { x } else { 0.0 })
        .collect();
    let infinite: Vec<f64> = w
        .iter()
        .map(|&x| if x.is_finite() { 0.0 } else { x })
        .collect();
    let mut sums = sums_f64(tree, &finite, op);
    let special = orders::tree::sequential_f64(tree, &infinite, op);
    for (v, &s) in special.iter().enumerate() {
        if s != 0.0 {
            sums.nearest[v] = s;
            sums.residual[v] = 0.0;
            sums.abs_sums[v] = s.abs();
        }
    }
    sums
}

#[cfg(test)]
mod tests;
