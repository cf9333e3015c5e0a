//! The a priori bounds (§9.1–§9.3): the value each addition of a summation order carries
//! ([`APrioriIn`]) and the (deterministic, sharp, probabilistic) bounds read from it.

use super::*;

/// The arithmetic of one addition of a summation order, for the a priori bounds: its unit
/// roundoff (every addition is fl(a + b) = (a + b)(1 + δ), |δ| ≤ unit) and how the read
/// stage finishes.
pub trait Roundoff: Copy + std::fmt::Debug + PartialEq + Send + Sync {
    /// The unit of one addition (a power of two for a format's own additions).
    const UNIT: f64;
    /// x·unit for x ≥ 0, rounded upward.
    fn times(x: f64) -> f64;
    /// x·unit for x ≥ 0, rounded to nearest (exact for u = 2^-24).
    fn times_nearest(x: f64) -> f64;
    /// An f64 ≥ 1 + unit.
    const ONE_PLUS: f64;
    /// Roundings to nearest per addition along the longest chain of the recursion's
    /// evaluation (k of docs/design.md §9.5): 4 for f32 additions, whose unit scales
    /// exactly, 5 for float-float ones, whose unit's product rounds once more.
    const ROUNDINGS: u64;
    /// Whether the vectorial read rounds its float-float result once more to f32.
    const READ_ROUNDS_TO_F32: bool;
}

/// f32 addition: unit u = 2^-24.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F32Add;

impl Roundoff for F32Add {
    const UNIT: f64 = U;
    #[inline]
    fn times(x: f64) -> f64 {
        times_u(x)
    }
    #[inline]
    fn times_nearest(x: f64) -> f64 {
        x * U
    }
    const ONE_PLUS: f64 = 1.0 + U;
    const ROUNDINGS: u64 = 4;
    const READ_ROUNDS_TO_F32: bool = false;
}

/// Float-float addition ([`dw_add`], JMP 2017 Algorithm 6): unit u_dw = 3u²/(1 − 4u)
/// ([`U_DW`], rounded upward).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DwAdd;

impl Roundoff for DwAdd {
    const UNIT: f64 = U_DW;
    #[inline]
    fn times(x: f64) -> f64 {
        mul_up(x, U_DW)
    }
    #[inline]
    fn times_nearest(x: f64) -> f64 {
        x * U_DW
    }
    /// 1 + u_dw rounded to nearest, one ulp up: above 1 + u_dw whatever the rounding did.
    const ONE_PLUS: f64 = f64::from_bits((1.0 + U_DW).to_bits() + 1);
    const ROUNDINGS: u64 = 5;
    const READ_ROUNDS_TO_F32: bool = true;
}

/// The additions of an accumulation format `T` other than f32 (f64, f16, bf16: unit 2^-p).
/// f32's are [`F32Add`], written apart so that the f32 bounds' constants stay literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AddIn<T>(PhantomData<T>);

impl<T: Stored + std::fmt::Debug + PartialEq + Send + Sync> Roundoff for AddIn<T> {
    const UNIT: f64 = T::UNIT;
    #[inline]
    fn times(x: f64) -> f64 {
        times_unit(x, T::UNIT)
    }
    #[inline]
    fn times_nearest(x: f64) -> f64 {
        x * T::UNIT
    }
    /// 1 + u, exact for u ≥ 2^-52; f64's 1 + 2^-53 is not an f64, and 1 + 2^-52 is above it.
    const ONE_PLUS: f64 = 1.0
        + if T::UNIT < f64::EPSILON {
            f64::EPSILON
        } else {
            T::UNIT
        };
    const ROUNDINGS: u64 = 4;
    const READ_ROUNDS_TO_F32: bool = false;
}

/// The additions of an accumulation format's values: how a walk in that format charges them.
pub trait Additions: Stored {
    type Add: Roundoff;
}

impl Additions for f32 {
    type Add = F32Add;
}

impl Additions for f64 {
    type Add = AddIn<f64>;
}

impl<F: crate::accumulate::NarrowFormat> Additions for crate::accumulate::Narrow<F> {
    type Add = AddIn<crate::accumulate::Narrow<F>>;
}

/// (1 + unit)·x for x ≥ 0, rounded upward.
#[inline]
pub(super) fn one_plus_unit_times<R: Roundoff>(x: f64) -> f64 {
    add_up_nonneg(x, R::times(x))
}

/// 2^-52.
const EPS: f64 = f64::EPSILON;
/// 2^-53, the unit roundoff of f64.
const U53: f64 = EPS / 2.0;

/// What the a priori bounds carry through a summation tree: one (partial) sum's magnitude,
/// deterministic and sharp error bounds, an enclosure of its exact value and its depth, for
/// additions of the arithmetic `R`.
///
/// An addition of two input terms evaluates the bounds rounded upward, as they are read (its
/// enclosure exact). Every later addition evaluates the recursions of docs/design.md
/// §9.1–§9.2 in f64 rounded to nearest, a handful of operations without a branch; the
/// roundings of that evaluation are accounted for once, when a bound is read: every quantity
/// is a sum or product of nonnegative terms, so each rounding to nearest loses at most a
/// factor (1 − 2^-53) of it, at most [`Roundoff::ROUNDINGS`] of them per level evaluated so,
/// and the read multiplies by 1 + k·levels·2^-52 ≥ (1 − 2^-53)^(−k·levels), rounded upward
/// (docs/design.md §9.5 gives the argument). The fields hold the values as evaluated; the
/// methods give the rigorous bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct APrioriIn<R: Roundoff> {
    /// Σ|t_i| over the terms summed so far, rounded to nearest at each addition.
    pub mag: f64,
    /// The deterministic bound's recursion (1 + u)(B_a + B_b) + u·A, evaluated to nearest
    /// ([`APrioriIn::err_up`] bounds |ŝ − s|).
    pub err: f64,
    /// The largest number of additions any term has gone through (D of γ̃_D).
    pub depth: u32,
    /// The levels of the summation tree evaluated to nearest (all but an addition of two
    /// terms): the roundings [`APrioriIn::err_up`] and the others account for.
    pub levels: u32,
    /// The partial sum in f64, rounded to nearest at each addition, and a bound on its
    /// distance from the exact s, evaluated to nearest: r_s = r_a + r_b + 2^-53·|mid_s|
    /// ([`APrioriIn::lo`], [`APrioriIn::hi`] enclose s).
    pub mid: f64,
    pub rad: f64,
    /// The sharp bound's recursion (1 + u)(S_a + S_b) + u·|s|̄, |s|̄ from the enclosure,
    /// evaluated to nearest ([`APrioriIn::sharp_up`] bounds |ŝ − s|).
    pub sharp: f64,
    roundoff: PhantomData<R>,
}

/// The a priori bounds of f32 sums.
pub type APriori = APrioriIn<F32Add>;

impl<R: Roundoff> APrioriIn<R> {
    /// One input term: exact, no addition yet.
    pub fn term(t: f32) -> Self {
        APrioriIn {
            mag: t.abs() as f64,
            err: 0.0,
            depth: 0,
            levels: 0,
            mid: t as f64,
            rad: 0.0,
            sharp: 0.0,
            roundoff: PhantomData,
        }
    }

    /// This sum's values as evaluated, ready to be raised to rigorous bounds, the factor
    /// formed once for every value a read takes of it.
    #[inline]
    pub(crate) fn raised(&self) -> Raised<'_, R> {
        // 1 + k·2^-52 is exact for k < 2^52 (the spacing of f64 in [1, 2)): no rounding to
        // direct.
        Raised {
            x: self,
            factor: 1.0 + (R::ROUNDINGS * self.levels as u64) as f64 * EPS,
        }
    }

    /// The sum of two input terms a and b, its bounds rounded upward: u·(|a| + |b|), and u·|s|̄
    /// with |s|̄ from the directed roundings of a + b; the enclosure [mid − rad, mid + rad]
    /// is exact (TwoSum).
    fn two_terms(a: f64, b: f64) -> Self {
        let mag = add_up_nonneg(a.abs(), b.abs());
        let mid = a + b;
        let abs = add_down(a, b).abs().max(add_up(a, b).abs()).min(mag);
        APrioriIn {
            mag,
            err: R::times(mag),
            depth: 1,
            levels: 0,
            mid,
            rad: two_sum_err(a, b, mid).abs(),
            sharp: R::times(abs),
            roundoff: PhantomData,
        }
    }

    /// Σ|t_i|, rounded upward.
    pub fn mag_up(&self) -> f64 {
        self.raised().mag_up()
    }

    /// The deterministic bound on |ŝ − s|: Σ((1 + u)^{d_i} − 1)|t_i| or above.
    pub fn err_up(&self) -> f64 {
        self.raised().err_up()
    }

    /// The sharp bound on |ŝ − s|.
    pub fn sharp_up(&self) -> f64 {
        self.raised().sharp_up()
    }

    /// A bound on |mid − s|.
    pub fn radius_up(&self) -> f64 {
        self.raised().radius_up()
    }

    /// The lower end of an enclosure of the exact partial sum s.
    pub fn lo(&self) -> f64 {
        self.raised().enclosure().0
    }

    /// The upper end of an enclosure of the exact partial sum s.
    pub fn hi(&self) -> f64 {
        self.raised().enclosure().1
    }

    /// Upper bound of |s|, the exact partial sum's magnitude.
    pub fn abs_bound(&self) -> f64 {
        self.raised().abs_bound()
    }
}

/// A sum's values ([`APrioriIn`]), each evaluated to nearest through its summation tree, read
/// as rigorous upper bounds of what they evaluate: x·(1 + k·levels·2^-52), rounded upward. A
/// single term and a sum of two are evaluated rounded upward already.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Raised<'a, R: Roundoff> {
    x: &'a APrioriIn<R>,
    factor: f64,
}

impl<R: Roundoff> Raised<'_, R> {
    #[inline]
    fn up(&self, x: f64) -> f64 {
        if self.factor == 1.0 || x == 0.0 {
            x
        } else {
            mul_up(x, self.factor)
        }
    }

    /// Σ|t_i|, rounded upward.
    #[inline]
    pub(crate) fn mag_up(&self) -> f64 {
        self.up(self.x.mag)
    }

    /// The deterministic bound on |ŝ − s|.
    #[inline]
    pub(crate) fn err_up(&self) -> f64 {
        self.up(self.x.err)
    }

    /// The sharp bound on |ŝ − s|.
    #[inline]
    pub(crate) fn sharp_up(&self) -> f64 {
        self.up(self.x.sharp)
    }

    /// A bound on |mid − s|.
    #[inline]
    pub(crate) fn radius_up(&self) -> f64 {
        self.up(self.x.rad)
    }

    /// The lower and upper ends of an enclosure of the exact partial sum s.
    #[inline]
    pub(crate) fn enclosure(&self) -> (f64, f64) {
        let r = self.radius_up();
        (add_down(self.x.mid, -r), add_up(self.x.mid, r))
    }

    /// Upper bound of |s|, the exact partial sum's magnitude.
    #[inline]
    pub(crate) fn abs_bound(&self) -> f64 {
        add_up_nonneg(self.x.mid.abs(), self.radius_up()).min(self.mag_up())
    }
}

impl APriori {
    /// Higham–Mary bound of this sum: γ̃_D(λ)·Σ|t_i|.
    pub fn prob(&self, lambda: f64) -> f64 {
        mul_up(gamma_tilde(self.depth, lambda), self.mag_up())
    }
}

impl<R: Roundoff> ScanValue for APrioriIn<R> {
    fn term(w: f32) -> Self {
        APrioriIn::term(w)
    }
    /// One rounded addition: (1 + u)(B_a + B_b) + u·(A_a + A_b), u the unit of `R`, and the
    /// same with u·|s|̄ for the sharp bound, evaluated to nearest; exact if an operand is an
    /// exact zero (all its terms are 0; for float-float too: `dw_add` of (0, 0) and x
    /// returns x).
    #[inline(always)]
    fn plus(self, rhs: Self) -> Self {
        if self.mag == 0.0 {
            return rhs;
        }
        if rhs.mag == 0.0 {
            return self;
        }
        if self.depth == 0 && rhs.depth == 0 {
            return Self::two_terms(self.mid, rhs.mid);
        }
        let mag = self.mag + rhs.mag;
        let mid = self.mid + rhs.mid;
        // |mid − s| ≤ r_a + r_b + |RN(x) − x|, and |RN(x) − x| ≤ 2^-53·|RN(x)|.
        let rad = (self.rad + rhs.rad) + mid.abs() * U53;
        // |s|̄ = min(|mid| + r, Σ|t_i|): the enclosure, capped by the magnitude.
        let abs = (mid.abs() + rad).min(mag);
        APrioriIn {
            mag,
            err: (self.err + rhs.err) * R::ONE_PLUS + R::times_nearest(mag),
            depth: self.depth.max(rhs.depth) + 1,
            levels: self.levels.max(rhs.levels) + 1,
            mid,
            rad,
            sharp: (self.sharp + rhs.sharp) * R::ONE_PLUS + R::times_nearest(abs),
            roundoff: PhantomData,
        }
    }
}

/// The a priori bounds of every node.
#[derive(Debug, Clone, PartialEq)]
pub struct APrioriBounds {
    pub det: Vec<f64>,
    pub sharp: Vec<f64>,
    pub prob: Vec<f64>,
}

/// γ̃_D(λ) by depth D: exp_m1 is costly and most runs have few distinct depths (the height
/// of the tree or of the scan plan), so for λ = [`LAMBDA`] those below [`SHARED_DEPTHS`] are
/// computed once, in a table shared by every thread and filled a block at a time as depths
/// are asked for. Deeper sums (a chain's path, the sequential scan's prefixes, up to 2n
/// additions) are computed at each read: a table of them would hold 8 bytes per depth per
/// thread for the rest of the process, 16 bytes per vertex on one thread, beside every later
/// step's peak, to save about 15 ns per read.
pub(crate) struct GammaTilde {
    lambda: f64,
    /// The unit roundoff of the additions.
    unit: f64,
    /// Whether the shared table holds these γ̃ (λ = [`LAMBDA`], f32's u).
    shared: bool,
}

/// Depths whose γ̃_D(λ) at λ = [`LAMBDA`] the shared table holds, in blocks of
/// [`GAMMA_BLOCK`].
const SHARED_DEPTHS: usize = 1 << 16;
const GAMMA_BLOCK: usize = 1 << 10;

/// The shared table's blocks, each computed on first use.
static SHARED_GAMMAS: [std::sync::OnceLock<Box<[f64]>>; SHARED_DEPTHS / GAMMA_BLOCK] =
    [const { std::sync::OnceLock::new() }; SHARED_DEPTHS / GAMMA_BLOCK];

impl GammaTilde {
    pub(super) fn new(lambda: f64) -> Self {
        Self::with_unit(lambda, U)
    }

    /// γ̃ of the additions of `R`.
    pub(super) fn of<R: Roundoff>(lambda: f64) -> Self {
        Self::with_unit(lambda, R::UNIT)
    }

    fn with_unit(lambda: f64, unit: f64) -> Self {
        GammaTilde {
            lambda,
            unit,
            shared: lambda.to_bits() == LAMBDA.to_bits() && unit.to_bits() == U.to_bits(),
        }
    }

    /// γ̃_D(λ) for this λ, D = `depth`.
    #[inline]
    fn gamma(&self, depth: u32) -> f64 {
        let d = depth as usize;
        if d < SHARED_DEPTHS && self.shared {
            let block = SHARED_GAMMAS[d / GAMMA_BLOCK].get_or_init(|| {
                let first = d - d % GAMMA_BLOCK;
                (first..first + GAMMA_BLOCK)
                    .map(|k| gamma_tilde(k as u32, LAMBDA))
                    .collect()
            });
            return block[d % GAMMA_BLOCK];
        }
        gamma_tilde_in(depth, self.lambda, self.unit)
    }

    /// The probabilistic bound of `x`: γ̃_D(λ)·Σ|t_i|, as [`APriori::prob`].
    pub(super) fn prob<R: Roundoff>(&self, x: &Raised<'_, R>) -> f64 {
        mul_up(self.gamma(x.x.depth), x.mag_up())
    }

    /// (deterministic, sharp, probabilistic) bounds of one sum.
    pub(super) fn bounds<R: Roundoff>(&self, x: &APrioriIn<R>) -> (f64, f64, f64) {
        let x = x.raised();
        (x.err_up(), x.sharp_up(), self.prob(&x))
    }
}
