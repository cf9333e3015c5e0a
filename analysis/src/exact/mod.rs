//! The correctly rounded treefix (docs/design.md §8.1): every vertex's exact rootfix or
//! leaffix, rounded once.
//!
//! Every f32 weight is an integer multiple of the lowest bit any weight has, so on the
//! weights' own fixed-point [`Scale`] every path sum and subtree sum is an integer, and integer
//! addition is exact and associative: the cheapest order gives the exact values. That order
//! is the tree's own, walked once on 64-bit limbs (`walk`): rootfix in preorder (the
//! parent's value plus the vertex's weight), leaffix in reverse preorder (each subtree sum
//! added into its parent), with as many limbs as the weights need (1 to 5, the code
//! monomorphised for each), big trees cut into blocks walked on every core, the same integers
//! whatever the threads. One rounding of each integer to nearest f32, ties to even, gives the
//! correctly rounded result — the value `vectorial-exact`'s GPU kernel computes by its
//! Euler-tour scan, bit for bit.
//!
//! [`treefix`] returns what the exact reference needs besides ([`ExactTreefix`]);
//! [`correctly_rounded`] only the rounded results (`vectorial-exact`'s CPU twin).

mod binary64;
#[cfg(test)]
mod format_tests;
mod values;
mod walk;

pub use binary64::{ExactSumsF64, cond_f64, correctly_rounded_f64, sums_f64, sums_of_f64};
pub use values::ExactValues;

use crate::Op;
use crate::directed::{nudge, two_sum_err};
use crate::orders::tree as tree_orders;
use crate::scan_value::Abs;
use generators::exact_sum::ExactSum;
use generators::fixed::{Fixed, Scale};
use generators::{Precision, Tree};
use rayon::prelude::*;
use values::Held;
use walk::{Disjoint, Exact, Weight, WithAbs};

/// Calls `$body` with the limb count `$limbs` (1 to 5) as the const generic `$l`.
#[macro_export]
macro_rules! with_limbs {
    ($limbs:expr, $l:ident => $body:expr) => {
        match $limbs {
            1 => {
                const $l: usize = 1;
                $body
            }
            2 => {
                const $l: usize = 2;
                $body
            }
            3 => {
                const $l: usize = 3;
                $body
            }
            4 => {
                const $l: usize = 4;
                $body
            }
            5 => {
                const $l: usize = 5;
                $body
            }
            l => unreachable!("{l} limbs: more than f32's range needs"),
        }
    };
}

/// The exact treefix of one op on one weighted tree, per vertex.
#[derive(Debug, Clone)]
pub struct ExactTreefix {
    /// The exact values.
    pub exact: ExactValues,
    /// Each exact value rounded to the nearest f32, ties to even; ±∞ beyond f32's range (from
    /// 2^128·(1 − 2^-25) on), as IEEE rounding gives. An exact zero is −0 if every term of its
    /// sum is −0, else +0 (IEEE's sign of a sum, and MPFR's).
    pub rounded: Vec<f32>,
    /// Each exact value rounded to the nearest f64, ties to even (the same sign of zero).
    pub nearest_f64: Vec<f64>,
    /// Σ|terms| of each vertex's sum (its path or its subtree), exact, then rounded to the
    /// nearest f64.
    pub abs_sums: Vec<f64>,
}

/// What the exact reference holds of a treefix: the exact values, Σ|terms| and the signs of
/// exact zeros; the f64 and f32 roundings are made when read (an error reads the exact value
/// anyway, and 12 bytes per vertex less are held through every evaluation).
#[derive(Debug, Clone)]
pub struct ExactSums {
    /// The exact values.
    pub exact: ExactValues,
    /// Σ|terms| of each vertex's sum, exact, then rounded to the nearest f64.
    pub abs_sums: Vec<f64>,
    /// The vertices whose sum is −0 (every term −0), ascending; an exact zero elsewhere is +0.
    pub negative_zeros: Vec<u32>,
}

impl ExactSums {
    /// Vertex v's exact value rounded to the nearest f64, ties to even (IEEE's sign of zero).
    #[inline]
    pub fn to_f64(&self, v: usize) -> f64 {
        self.signed(v, self.exact.to_f64(v))
    }

    /// Vertex v's exact value rounded to the nearest f32, ties to even: the correctly rounded
    /// result (±∞ beyond f32's range; IEEE's sign of zero).
    #[inline]
    pub fn to_f32(&self, v: usize) -> f32 {
        self.signed(v, self.exact.to_f32(v))
    }

    /// Vertex v's exact value rounded to nearest in `p`, ties to even (±∞ beyond its range;
    /// IEEE's sign of zero), as an f64: the correctly rounded result in that format.
    #[inline]
    pub fn to_precision(&self, v: usize, p: Precision) -> f64 {
        self.signed(v, self.exact.to_precision(v, p))
    }

    /// [`ExactSums::to_f64`] and [`ExactSums::to_f32`] from one normalisation.
    #[inline]
    pub fn roundings(&self, v: usize) -> (f64, f32) {
        let (x, x32) = self.exact.roundings(v);
        (self.signed(v, x), self.signed(v, x32))
    }

    /// A rounding `x` of vertex v's value with IEEE's sign of zero: −0 where every term is −0
    /// (the roundings give +0 for every zero).
    #[inline]
    fn signed<F: Copy + Default + PartialEq + std::ops::Neg<Output = F>>(
        &self,
        v: usize,
        x: F,
    ) -> F {
        if x == F::default()
            && !self.negative_zeros.is_empty()
            && self.negative_zeros.binary_search(&(v as u32)).is_ok()
        {
            -x
        } else {
            x
        }
    }
}

impl From<ExactSums> for ExactTreefix {
    fn from(s: ExactSums) -> ExactTreefix {
        // Both roundings from one normalisation per vertex.
        let (nearest_f64, rounded) = (0..s.abs_sums.len())
            .into_par_iter()
            .map(|v| s.roundings(v))
            .unzip();
        ExactTreefix {
            rounded,
            nearest_f64,
            abs_sums: s.abs_sums,
            exact: s.exact,
        }
    }
}

/// The exact rootfix or leaffix of every vertex of `tree` with weights `w`: its correctly
/// rounded f32, its f64 rounding, Σ|terms| and the exact value itself ([`ExactTreefix`]).
/// Non-finite weights follow IEEE's rules (their sums are ±∞ or NaN).
///
/// ```
/// use analysis::{Op, exact};
/// use generators::{ChildOrder, NO_PARENT, Tree};
///
/// // a(b(c), d) with weights a = 1e8, b = 1, c = −1e8, d = 0.5.
/// let tree = Tree::from_parents(vec![NO_PARENT, 0, 1, 0], ChildOrder::Natural).unwrap();
/// let w = [1e8f32, 1.0, -1e8, 0.5];
/// let root = exact::treefix(&tree, &w, Op::Rootfix);
/// // c's path sum is 1e8 + 1 − 1e8 = 1 exactly; f32 additions along the path give 0.
/// assert_eq!(root.rounded, [1e8, 1e8, 1.0, 1e8]);
/// assert_eq!((w[0] + w[1]) + w[2], 0.0);
/// assert_eq!(root.nearest_f64[1], 100_000_001.0);
/// assert_eq!(root.abs_sums[2], 200_000_001.0);
/// let leaf = exact::treefix(&tree, &w, Op::Leaffix);
/// assert_eq!(leaf.rounded, [1.5, -99_999_999.0, -1e8, 0.5]);
/// ```
pub fn treefix(tree: &Tree, w: &[f32], op: Op) -> ExactTreefix {
    ExactTreefix::from(sums(tree, w, op))
}

/// κ = Σ|w| / |Σw| of f32 weights as `generators::exact_sum::condition_number` gives it (both
/// sums exact, the quotient taken at 64 bits and rounded to f64; ∞ for a zero sum), the sums
/// made on the weights' fixed point, on every core for large vectors (the wide accumulator
/// adds one weight at a time, on one).
pub fn cond(w: &[f32]) -> f64 {
    let Some(scale) = Scale::for_weights(w) else {
        return generators::exact_sum::condition_number(w);
    };
    with_limbs!(scale.limbs(), L => {
        let add = |(s, a): (Fixed<L>, Fixed<L>), &x: &f32| {
            (s + scale.term::<L>(x), a + scale.term::<L>(x.abs()))
        };
        let both = |(s, a): (Fixed<L>, Fixed<L>), (t, b): (Fixed<L>, Fixed<L>)| (s + t, a + b);
        let zero = (Fixed::<L>::ZERO, Fixed::<L>::ZERO);
        let (sum, abs) = if w.len() < 1 << 16 {
            w.iter().fold(zero, add)
        } else {
            w.par_iter().fold(|| zero, add).reduce(|| zero, both)
        };
        if sum.is_zero() {
            return f64::INFINITY;
        }
        let (sum, abs) = (scale.to_exact(sum).to_float(), scale.to_exact(abs).to_float());
        rug::Float::with_val(64, &abs / &sum).abs().to_f64()
    })
}

/// The exact values of `op` on `tree` with weights `w` and Σ|terms| ([`ExactSums`]): what
/// [`treefix`] rounds, in one walk.
pub fn sums(tree: &Tree, w: &[f32], op: Op) -> ExactSums {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let Some(scale) = Scale::for_weights(w) else {
        return full_range(tree, w, op);
    };
    let mut out = with_limbs!(scale.limbs(), L => scaled::<L>(tree, w, op, scale));
    if w.iter().any(|x| x.to_bits() == 0x8000_0000) {
        out.negative_zeros = negative_zeros(tree, w, op);
    }
    out
}

/// Every vertex's exact rootfix or leaffix rounded to the nearest f32, ties to even (±∞
/// beyond range): [`treefix`]'s `rounded`, except that an exact zero is always +0 (as the GPU
/// kernel gives it). NaN everywhere if a weight is not finite (it has no fixed point).
///
/// `vectorial-exact`'s CPU twin: the values its kernel computes, by another order.
pub fn correctly_rounded(tree: &Tree, w: &[f32], op: Op) -> Vec<f32> {
    rounded_with(tree, w, op, |x, _| x)
}

/// [`correctly_rounded`] with, per vertex, whether its one rounding changed the value.
pub fn correctly_rounded_inexact(tree: &Tree, w: &[f32], op: Op) -> Vec<(f32, bool)> {
    rounded_with(tree, w, op, |x, inexact| (x, inexact))
}

/// [`treefix`]'s `rounded` alone: every vertex's exact rootfix or leaffix rounded to the
/// nearest f32, ties to even, with IEEE's sign of zero and its sums of ±∞ and NaN. On finite
/// weights [`correctly_rounded`]'s one walk (4 bytes written per vertex, where the reference
/// also keeps the integers and Σ|terms|), then −0 where every term is −0; otherwise the
/// sequential orders' exact sums.
pub fn rounded(tree: &Tree, w: &[f32], op: Op) -> Vec<f32> {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let Some(scale) = Scale::for_weights(w) else {
        let sums = full_range(tree, w, op);
        return (0..w.len())
            .into_par_iter()
            .map(|v| sums.to_f32(v))
            .collect();
    };
    let mut out = rounded_on(scale, tree, w, op, |x, _| x);
    if w.iter().any(|x| x.to_bits() == 0x8000_0000) {
        for v in negative_zeros(tree, w, op) {
            out[v as usize] = -0.0;
        }
    }
    out
}

/// Half the spacing of f32 values at x (for the correctly rounded x̂ = RN(x),
/// |x̂ − x| ≤ half_ulp(x̂)): 2^(e − 24) for 2^e ≤ |x̂| < 2^(e+1), 2^-150 among subnormals.
pub fn half_ulp(x: f32) -> f64 {
    let biased = ((x.to_bits() >> 23) & 0xff) as i32;
    if biased == 0xff {
        return f64::INFINITY;
    }
    2f64.powi(biased.max(1) - 127 - 24)
}

/// The walk of `op` on the integers `term` makes, each vertex's value handed to `finish`.
fn walk<W: Weight, T: Exact>(
    tree: &Tree,
    w: &[W],
    op: Op,
    term: impl Fn(W) -> T + Sync,
    finish: impl Fn(usize, T) + Sync,
) {
    walk_with_few_terms(tree, w, op, term, finish, |_, _, _| false, |_, _| false)
}

/// [`walk`], where a vertex whose sum has one or two terms may be handed to `pair` or `leaf`
/// with them instead of making its integer (each returns true if it took the vertex):
/// rootfix hands `pair` a childless vertex of depth 1 with the root's weight and its own;
/// leaffix hands `leaf` a leaf with its weight.
fn walk_with_few_terms<W: Weight, T: Exact>(
    tree: &Tree,
    w: &[W],
    op: Op,
    term: impl Fn(W) -> T + Sync,
    finish: impl Fn(usize, T) + Sync,
    pair: impl Fn(usize, W, W) -> bool + Sync,
    leaf: impl Fn(usize, W) -> bool + Sync,
) {
    let len = walk::block_len(tree.len());
    match op {
        Op::Rootfix => walk::rootfix(tree, w, term, finish, pair, len),
        Op::Leaffix => walk::leaffix(tree, w, term, finish, leaf, len),
    }
}

/// a + b rounded to the nearest f32, ties to even (±∞ beyond range; +0 for an exact zero),
/// and whether the rounding changed the value: the exact sum rounded to odd at 53 bits
/// ([`odd_sum_of_two`]), whose 53 bits round to f32's 24 as the exact sum does.
#[inline]
pub fn sum_of_two(a: f32, b: f32) -> (f32, bool) {
    let odd = odd_sum_of_two(a, b);
    let x = odd as f32;
    (x, x as f64 != odd)
}

/// a + b rounded to odd at 53 bits (+0 for an exact zero): the exact sum is s + e with
/// s = a + b in f64 and e its error (TwoSum; no f32 sum overflows f64), and its rounding to
/// odd is s, or where e ≠ 0 and s is even, its neighbour towards e (the one of the two around
/// the exact sum with an odd last bit). Any rounding to nearest at 51 bits or fewer of it is
/// that of the exact sum.
#[inline]
pub fn odd_sum_of_two(a: f32, b: f32) -> f64 {
    let (a, b) = (a as f64, b as f64);
    let s = a + b;
    if s == 0.0 {
        // a = −b exactly: no f64 sum of two f32 underflows.
        return 0.0;
    }
    let e = two_sum_err(a, b, s);
    // Without a branch: whether s is odd is the weights' coin toss.
    nudge(s, (e != 0.0) & (s.to_bits() & 1 == 0), e > 0.0)
}

/// Every vertex's exact rootfix or leaffix rounded to nearest in `storage` (f16, bf16 or
/// f32, carried as f32), ties to even, ±∞ beyond its range: `vectorial-exact`'s results in
/// that format. The exact value is rounded to odd at 53 bits, then to nearest at the
/// format's p ≤ 24 (`generators::precision`): one rounding of the exact value. As
/// [`correctly_rounded`], an exact zero is +0 and a weight that is not finite gives NaN.
pub fn correctly_rounded_in(tree: &Tree, w: &[f32], op: Op, storage: Precision) -> Vec<f32> {
    assert!(
        storage.fits_in(Precision::F32),
        "{storage} values are carried as f64, not f32"
    );
    if storage == Precision::F32 {
        return correctly_rounded(tree, w, op);
    }
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let Some(scale) = Scale::for_weights(w) else {
        return vec![f32::NAN; w.len()];
    };
    let mut out = vec![0f32; w.len()];
    let to = Disjoint::new(&mut out);
    // Rounded to odd at f32's 24 bits (still ≥ p + 2), then to nearest in the storage
    // format: one rounding of the exact value, without going back through f64.
    let round = |odd: f64| storage.round_f32(generators::precision::odd_f32(odd));
    // Each vertex is finished once, by exactly one of the three hooks below.
    let put = |v: usize, x: f32| unsafe { to.set(v, x) };
    with_limbs!(scale.limbs(), L => walk_with_few_terms(
        tree,
        w,
        op,
        |x| scale.term::<L>(x),
        |v, k: Fixed<L>| put(v, round(k.to_f64_odd_at(scale.unit()))),
        |v, a, b| {
            put(v, round(odd_sum_of_two(a, b)));
            true
        },
        // A leaf's sum is its weight, a value of the storage format.
        |v, x| {
            put(v, if x == 0.0 { 0.0 } else { x });
            true
        },
    ));
    out
}

fn rounded_with<R: Send + Copy + Default>(
    tree: &Tree,
    w: &[f32],
    op: Op,
    finish: impl Fn(f32, bool) -> R + Sync,
) -> Vec<R> {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    match Scale::for_weights(w) {
        Some(scale) => rounded_on(scale, tree, w, op, finish),
        None => vec![finish(f32::NAN, true); w.len()],
    }
}

/// [`rounded_with`] on the weights' `scale`.
fn rounded_on<R: Send + Copy + Default>(
    scale: Scale,
    tree: &Tree,
    w: &[f32],
    op: Op,
    finish: impl Fn(f32, bool) -> R + Sync,
) -> Vec<R> {
    let mut out = vec![R::default(); w.len()];
    let to = Disjoint::new(&mut out);
    // Each vertex is finished once, by exactly one of the three hooks below.
    let put = |v: usize, (x, inexact): (f32, bool)| unsafe { to.set(v, finish(x, inexact)) };
    with_limbs!(scale.limbs(), L => walk_with_few_terms(
        tree,
        w,
        op,
        |x| scale.term::<L>(x),
        |v, k| put(v, scale.round_f32(k)),
        // A two-term sum rounds from f64, without its integer (a star's every leaf).
        |v, a, b| {
            put(v, sum_of_two(a, b));
            true
        },
        // A leaf's sum is its weight, exact (an exact zero +0, as everywhere here).
        |v, x| {
            put(v, (if x == 0.0 { 0.0 } else { x }, false));
            true
        },
    ));
    out
}

/// [`sums`] on the weights' scale with L limbs: the value and Σ|terms| in one walk (the
/// magnitudes fit the same scale).
fn scaled<const L: usize>(tree: &Tree, w: &[f32], op: Op, scale: Scale) -> ExactSums
where
    Fixed<L>: Held,
{
    let n = w.len();
    let mut exact = vec![Fixed::<L>::ZERO; n];
    let mut abs_sums = vec![0f64; n];
    {
        let (k, a) = (Disjoint::new(&mut exact), Disjoint::new(&mut abs_sums));
        walk(
            tree,
            w,
            op,
            |x| {
                let t = scale.term::<L>(x);
                // |t| from t: its magnitude (the weight's own bits, exact).
                WithAbs(t, scale.term(x.abs()))
            },
            // Each vertex is finished once.
            |v, WithAbs(x, m): WithAbs<Fixed<L>>| unsafe {
                k.set(v, x);
                a.set(v, scale.to_f64(m));
            },
        );
    }
    ExactSums {
        exact: Fixed::<L>::held(scale, exact),
        abs_sums,
        negative_zeros: Vec::new(),
    }
}

/// The vertices whose sum is −0: every term −0. Counts, by the same walk, each vertex's terms
/// that are not −0.
fn negative_zeros<W: Weight>(tree: &Tree, w: &[W], op: Op) -> Vec<u32> {
    let not_negative_zero = Fixed::<1>::from_words_u32(&[1], 0);
    let mut all_negative = vec![false; w.len()];
    {
        let to = Disjoint::new(&mut all_negative);
        walk(
            tree,
            w,
            op,
            |x| {
                if x.is_negative_zero() {
                    Fixed::ZERO
                } else {
                    not_negative_zero
                }
            },
            // Each vertex is finished once.
            |v, others: Fixed<1>| unsafe { to.set(v, others.is_zero()) },
        );
    }
    (0..w.len() as u32)
        .filter(|&v| all_negative[v as usize])
        .collect()
}

/// [`sums`] where a weight is not finite: [`ExactSum`]s along the sequential orders (their
/// roundings give IEEE's signs of zero themselves).
fn full_range(tree: &Tree, w: &[f32], op: Op) -> ExactSums {
    let n = tree.len();
    let mut values = vec![ExactSum::ZERO; n];
    let mut abs_sums = vec![0.0; n];
    let emit = |v: usize, (x, a): (ExactSum, Abs<ExactSum>)| {
        values[v] = x;
        abs_sums[v] = a.0.to_f64();
    };
    match op {
        Op::Rootfix => tree_orders::rootfix_sequential_each(tree, w, emit),
        Op::Leaffix => tree_orders::leaffix_sequential_each(tree, w, emit),
    }
    ExactSums {
        exact: ExactValues::Full(values),
        abs_sums,
        negative_zeros: Vec::new(),
    }
}

/// The exact sums of a treefix computed elsewhere (the GPU's exact scan of `w`): per vertex,
/// `words` 32-bit two's-complement words of the value and of Σ|terms|, in units of 2^unit.
/// Held as [`sums`] holds them (every exact zero +0: the caller keeps the CPU's where a weight
/// is −0). None where `w` has no fixed point (a non-finite weight).
pub fn from_words(
    w: &[f32],
    unit: i32,
    words: usize,
    values: &[u32],
    abs_sums: &[u32],
) -> Option<ExactSums> {
    let scale = Scale::for_weights(w)?;
    Some(with_limbs!(scale.limbs(), L => {
        let exact: Vec<Fixed<L>> = values
            .par_chunks_exact(words)
            .map(|x| scale.from_words_u32(x, unit))
            .collect();
        ExactSums {
            abs_sums: abs_sums
                .par_chunks_exact(words)
                .map(|x| scale.to_f64(scale.from_words_u32::<L>(x, unit)))
                .collect(),
            exact: Fixed::<L>::held(scale, exact),
            negative_zeros: Vec::new(),
        }
    }))
}

#[cfg(test)]
mod tests;
