//! The a priori bounds (§9.1–§9.3): the value each addition of a summation order carries
//! ([`APrioriIn`]) and the (deterministic, sharp, probabilistic) bounds read from it.

use super::*;

/// The arithmetic of one addition of a summation order, for the a priori bounds: its unit
/// roundoff (every addition is fl(a + b) = (a + b)(1 + δ), |δ| ≤ unit) and how the read
/// stage finishes.
pub trait Roundoff: Copy + std::fmt::Debug + PartialEq + Send + Sync {
    /// x·unit for x ≥ 0, rounded upward.
    fn times(x: f64) -> f64;
    /// Whether the vectorial read rounds its float-float result once more to f32.
    const READ_ROUNDS_TO_F32: bool;
}

/// f32 addition: unit u = 2^-24.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F32Add;

impl Roundoff for F32Add {
    #[inline]
    fn times(x: f64) -> f64 {
        times_u(x)
    }
    const READ_ROUNDS_TO_F32: bool = false;
}

/// Float-float addition ([`dw_add`], JMP 2017 Algorithm 6): unit u_dw = 3u²/(1 − 4u)
/// ([`U_DW`], rounded upward).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DwAdd;

impl Roundoff for DwAdd {
    #[inline]
    fn times(x: f64) -> f64 {
        mul_up(x, U_DW)
    }
    const READ_ROUNDS_TO_F32: bool = true;
}

/// (1 + unit)·x for x ≥ 0, rounded upward.
#[inline]
pub(super) fn one_plus_unit_times<R: Roundoff>(x: f64) -> f64 {
    add_up_nonneg(x, R::times(x))
}

/// What the a priori bounds carry through a summation tree: one (partial) sum's
/// magnitude, deterministic error bound and depth, for additions of the arithmetic `R`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct APrioriIn<R: Roundoff> {
    /// Σ|t_i| over the terms summed so far, rounded upward (exact in practice).
    pub mag: f64,
    /// Rigorous bound on |ŝ − s|: Σ((1 + u)^{d_i} − 1)|t_i|, rounded upward.
    pub err: f64,
    /// The largest number of roundings any term has gone through (D of γ̃_D).
    pub depth: u32,
    /// An enclosure [lo, hi] of the exact partial sum s (interval arithmetic, outward
    /// rounding; its width stays below depth·2^-52·mag, far below u·mag).
    pub lo: f64,
    pub hi: f64,
    /// The sharp a priori bound: the same recursion with u·|s| (the exact partial sum,
    /// through its enclosure) in place of u·Σ|t_i|: (1 + u)(S_a + S_b) + u·|a + b|.
    pub sharp: f64,
    roundoff: PhantomData<R>,
}

/// The a priori bounds of f32 sums.
pub type APriori = APrioriIn<F32Add>;
/// The a priori bounds of float-float sums (vectorial-compensated's scan).
pub type APrioriDw = APrioriIn<DwAdd>;

impl<R: Roundoff> APrioriIn<R> {
    /// One input term: exact, no addition yet.
    pub fn term(t: f32) -> Self {
        APrioriIn {
            mag: t.abs() as f64,
            err: 0.0,
            depth: 0,
            lo: t as f64,
            hi: t as f64,
            sharp: 0.0,
            roundoff: PhantomData,
        }
    }

    /// Upper bound of |s|, the exact partial sum's magnitude.
    pub fn abs_bound(&self) -> f64 {
        self.lo.abs().max(self.hi.abs()).min(self.mag)
    }
}

impl APriori {
    /// Higham–Mary bound of this sum: γ̃_D(λ)·Σ|t_i|.
    pub fn prob(&self, lambda: f64) -> f64 {
        mul_up(gamma_tilde(self.depth, lambda), self.mag)
    }
}

impl<R: Roundoff> ScanValue for APrioriIn<R> {
    fn term(w: f32) -> Self {
        APrioriIn::term(w)
    }
    /// One rounded addition: (1 + u)(B_a + B_b) + u·(A_a + A_b), u the unit of `R`; exact if
    /// an operand is an exact zero (all its terms are 0; for float-float too: `dw_add` of
    /// (0, 0) and x returns x).
    #[inline]
    fn plus(self, rhs: Self) -> Self {
        if self.mag == 0.0 {
            return rhs;
        }
        if rhs.mag == 0.0 {
            return self;
        }
        let mag = add_up_nonneg(self.mag, rhs.mag);
        let err = add_up_nonneg(
            one_plus_unit_times::<R>(add_up_nonneg(self.err, rhs.err)),
            R::times(mag),
        );
        let mut out = APrioriIn {
            mag,
            err,
            depth: self.depth.max(rhs.depth) + 1,
            lo: add_down(self.lo, rhs.lo),
            hi: add_up(self.hi, rhs.hi),
            sharp: 0.0,
            roundoff: PhantomData,
        };
        out.sharp = add_up_nonneg(
            one_plus_unit_times::<R>(add_up_nonneg(self.sharp, rhs.sharp)),
            R::times(out.abs_bound()),
        );
        out
    }
}

/// The a priori bounds of every node.
#[derive(Debug, Clone, PartialEq)]
pub struct APrioriBounds {
    pub det: Vec<f64>,
    pub sharp: Vec<f64>,
    pub prob: Vec<f64>,
}

/// γ̃_D(λ) by depth D, computed once per depth and thread: runs have few distinct depths
/// (at most the height of the tree or of the scan plan), and exp_m1 is costly.
pub(crate) struct GammaTilde {
    lambda: f64,
}

thread_local! {
    /// (λ, γ̃_D(λ) for D = 0, 1, …; NaN where not computed yet).
    static GAMMA_TILDE: RefCell<(f64, Vec<f64>)> = const { RefCell::new((f64::NAN, Vec::new())) };
}

impl GammaTilde {
    pub(super) fn new(lambda: f64) -> Self {
        GammaTilde { lambda }
    }
    /// The probabilistic bound of `x`: γ̃_D(λ)·Σ|t_i|, as [`APriori::prob`].
    pub(super) fn prob<R: Roundoff>(&self, x: &APrioriIn<R>) -> f64 {
        let d = x.depth as usize;
        let g = GAMMA_TILDE.with_borrow_mut(|(lambda, table)| {
            if lambda.to_bits() != self.lambda.to_bits() {
                *lambda = self.lambda;
                table.clear();
            }
            if table.len() <= d {
                table.resize(d + 1, f64::NAN);
            }
            if table[d].is_nan() {
                table[d] = gamma_tilde(x.depth, self.lambda);
            }
            table[d]
        });
        mul_up(g, x.mag)
    }
    /// (deterministic, sharp, probabilistic) bounds of one sum.
    pub(super) fn bounds<R: Roundoff>(&self, x: &APrioriIn<R>) -> (f64, f64, f64) {
        (x.err, x.sharp, self.prob(x))
    }
}
