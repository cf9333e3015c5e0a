//! The vectorial orders (the paper's Algorithm 2, after Blelloch): write the Euler-tour
//! vector E, scan it, read each vertex's answer.

use crate::Op;
use crate::accumulate::Stored;
use crate::float_float::{FloatFloat, dw_add};
use crate::scan_plan::{self, Plan};
use crate::scan_value::ScanValue;
use generators::Tree;
use generators::fixed::{Fixed, Scale};
use rayon::prelude::*;

/// Stage "write": rootfix `E[open v] = w, E[close v] = −w`; leaffix `E[open v] = w,
/// E[close v] = 0`.
pub fn write<T: ScanValue>(tree: &Tree, w: &[f32], op: Op) -> Vec<T> {
    write_with(tree, w, op, T::term)
}

/// [`fn@write`] with the terms made by `term` (the exact scan's terms depend on its scale).
pub fn write_with<W: Copy + std::ops::Neg<Output = W>, T: ScanValue>(
    tree: &Tree,
    w: &[W],
    op: Op,
    term: impl Fn(W) -> T,
) -> Vec<T> {
    let mut e = vec![T::zero(); 2 * tree.len()];
    for (v, &x) in w.iter().enumerate() {
        e[tree.open()[v] as usize] = term(x);
        e[tree.close()[v] as usize] = match op {
            Op::Rootfix => term(-x),
            Op::Leaffix => T::zero(),
        };
    }
    e
}

/// An inclusive scan S of the Euler-tour vector, as the read stage sees it. The f32 twin
/// reads plain values; the bounds read values together with how their errors combine.
pub trait ScannedTour: Sync {
    /// What the read yields per vertex.
    type Out: Send;
    /// Rootfix: `S[p]` with p = open v.
    fn prefix(&self, p: usize) -> Self::Out;
    /// Leaffix of vertex v: `S[close] − S[before]`, with `before = None` standing for
    /// S[−1] = 0 (v opens the tour).
    fn difference(&self, v: usize, close: usize, before: Option<usize>) -> Self::Out;
}

/// The partial sums of any accumulation format, read as the kernel reads them: the leaffix
/// difference rounded in that format (S\[close\] − 0 is S\[close\], so without S\[open v − 1\] no
/// subtraction is made).
impl<T: Stored> ScannedTour for [T] {
    type Out = T;
    #[inline]
    fn prefix(&self, p: usize) -> T {
        self[p]
    }
    #[inline]
    fn difference(&self, _v: usize, close: usize, before: Option<usize>) -> T {
        match before {
            Some(o) => self[close].minus(self[o]),
            None => self[close],
        }
    }
}

/// Stage "read" from the inclusive scan S: rootfix `r[v] = S[open v]`; leaffix
/// `l[v] = S[close v] − S[open v − 1]` with S[−1] = 0.
pub fn read<S: ScannedTour + ?Sized>(tree: &Tree, op: Op, s: &S) -> Vec<S::Out> {
    // Each vertex reads on its own: in parallel, the same values.
    (0..tree.len())
        .into_par_iter()
        .map(|v| {
            let open = tree.open()[v] as usize;
            match op {
                Op::Rootfix => s.prefix(open),
                Op::Leaffix => s.difference(v, tree.close()[v] as usize, open.checked_sub(1)),
            }
        })
        .collect()
}

/// Write, scan with `plan`, read: the f32 result of a vectorial algorithm.
pub fn vectorial(tree: &Tree, w: &[f32], plan: Plan, op: Op) -> Vec<f32> {
    vectorial_in(tree, w, plan, op)
}

/// [`vectorial`] with the partial sums of any accumulation format (`crate::accumulate`).
pub fn vectorial_in<T: Stored>(tree: &Tree, w: &[f32], plan: Plan, op: Op) -> Vec<T> {
    let mut e: Vec<T> = write(tree, w, op);
    plan.scan(&mut e);
    read(tree, op, &e[..])
}

/// [`vectorial`] on f64 weights, adding in f64 (f64 storage): the same write, scan and read.
pub fn vectorial_f64(tree: &Tree, w: &[f64], plan: Plan, op: Op) -> Vec<f64> {
    let mut e: Vec<f64> = write_with(tree, w, op, |x| x);
    plan.scan(&mut e);
    read(tree, op, &e[..])
}

/// The compensated read (vectorial-compensated): rootfix `S[open v].hi`; leaffix the
/// float-float difference `S[close v] + (−S[open v − 1])` ([`dw_add`]), then its hi. Every
/// scanned value is normalized (hi = RN(hi + lo)), so taking hi rounds the float-float value
/// once to f32. Without S[open v − 1] (v opens the tour), `S[close v].hi`.
impl ScannedTour for [FloatFloat] {
    type Out = f32;
    #[inline]
    fn prefix(&self, p: usize) -> f32 {
        self[p].hi
    }
    #[inline]
    fn difference(&self, _v: usize, close: usize, before: Option<usize>) -> f32 {
        match before {
            None => self[close].hi,
            Some(o) => dw_add(self[close], -self[o]).hi,
        }
    }
}

/// vectorial-compensated: E written as float-float terms (w, 0), the scan plan's pairing
/// with [`dw_add`] as the addition, the compensated read.
pub fn vectorial_compensated(tree: &Tree, w: &[f32], op: Op) -> Vec<f32> {
    let mut e: Vec<FloatFloat> = write(tree, w, op);
    scan_plan::inclusive_scan(&mut e);
    read(tree, op, &e[..])
}

/// The exact read: rootfix `S[open v]`, leaffix `S[close v] − S[open v − 1]`, both exact
/// integers, each rounded to f32 once.
struct ExactTour<'a, const L: usize> {
    s: &'a [Fixed<L>],
    scale: Scale,
}

impl<const L: usize> ScannedTour for ExactTour<'_, L> {
    type Out = f32;
    #[inline]
    fn prefix(&self, p: usize) -> f32 {
        self.scale.to_f32(self.s[p])
    }
    #[inline]
    fn difference(&self, _v: usize, close: usize, before: Option<usize>) -> f32 {
        let s = self.s;
        self.scale
            .to_f32(before.map_or(s[close], |o| s[close] - s[o]))
    }
}

/// The integers of the Euler-tour scan are summed by the same generic plan as every other
/// order; `term` is never used (the terms need the scale, see [`Scale::term`]).
impl<const L: usize> ScanValue for Fixed<L> {
    fn term(_: f32) -> Self {
        unreachable!("fixed-point terms are made by Scale::term")
    }
    #[inline]
    fn zero() -> Self {
        Fixed::ZERO
    }
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        self + rhs
    }
}

/// The order of `vectorial-exact`'s GPU kernel on the CPU: E written as fixed-point integers
/// at the weights' scale, scanned with `plan` (any plan gives the same integers: integer
/// addition is associative), read exactly and rounded once to nearest f32 — the correctly
/// rounded results, which the algorithm's twin ([`crate::exact::correctly_rounded`]) computes
/// by a walk of the tree instead. NaN everywhere if a weight is not finite.
pub fn vectorial_exact(tree: &Tree, w: &[f32], plan: Plan, op: Op) -> Vec<f32> {
    let Some(scale) = Scale::for_weights(w) else {
        return vec![f32::NAN; tree.len()];
    };
    crate::with_limbs!(scale.limbs(), L => {
        let mut e: Vec<Fixed<L>> = write_with(tree, w, op, |x| scale.term(x));
        plan.scan(&mut e);
        read(tree, op, &ExactTour { s: &e, scale })
    })
}
