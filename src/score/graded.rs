//! One op's results beside their reference, as the score reads them node by node: results of
//! a format f32 carries (f16, bf16, f32) against [`Reference`], f64 results against the f64
//! weights' two-part exact sums ([`ExactSumsF64`]). Every figure of the score is made from
//! these few per-node questions, so one scoring serves both.

use analysis::exact::ExactSumsF64;
use analysis::{NodeError, Reference, ReferenceKind};
use generators::Precision;
use rug::Float;

/// One op's results and reference, per node.
pub trait Graded: Sync {
    /// The reference's kind.
    fn kind(&self) -> ReferenceKind;
    /// The result at vertex v (exact as an f64).
    fn value(&self, v: usize) -> f64;
    /// The exact value rounded to f64 and to the storage format (as f64): read once per node.
    fn roundings(&self, v: usize, storage: Precision) -> (f64, f64);
    /// The result's error, given [`Graded::roundings`].
    fn error(&self, v: usize, roundings: (f64, f64)) -> NodeError;
    /// Σ|terms| of the node's sum, rounded to f64.
    fn abs_sum(&self, v: usize) -> f64;
    /// κ_v = Σ|terms| / |x| (∞ where x = 0).
    fn cond(&self, v: usize) -> f64;
    /// Whether the result's exact error exceeds `bound`, its error being `abs`
    /// ([`Graded::error`]).
    fn exceeds(&self, v: usize, abs: f64, bound: f64, scratch: &mut Float) -> bool;
    /// Distance in ulps of `storage` between the result and the correctly rounded one (None:
    /// infinitely far).
    fn ulps(&self, v: usize, rounded: f64, storage: Precision) -> Option<u64> {
        let a = self.value(v);
        if a.is_nan() || rounded.is_nan() {
            return None;
        }
        Some((storage.ordinal(a) - storage.ordinal(rounded)).unsigned_abs())
    }
}

/// Results of a format f32 carries, against the f32 weights' reference.
pub struct CarriedAsF32<'a> {
    pub reference: Reference,
    pub values: &'a [f32],
}

impl Graded for CarriedAsF32<'_> {
    fn kind(&self) -> ReferenceKind {
        self.reference.kind()
    }
    fn value(&self, v: usize) -> f64 {
        f64::from(self.values[v])
    }
    fn roundings(&self, v: usize, storage: Precision) -> (f64, f64) {
        match storage {
            Precision::F32 => {
                let (x, x32) = self.reference.roundings(v);
                (x, f64::from(x32))
            }
            _ => (
                self.reference.value_f64(v),
                self.reference.rounded_in(v, storage),
            ),
        }
    }
    fn error(&self, v: usize, (x, rounded): (f64, f64)) -> NodeError {
        self.reference
            .error_at(v, self.values[v], (x, rounded as f32))
    }
    fn abs_sum(&self, v: usize) -> f64 {
        self.reference.abs_sum_f64(v)
    }
    fn cond(&self, v: usize) -> f64 {
        self.reference.cond(v)
    }
    fn exceeds(&self, v: usize, abs: f64, bound: f64, scratch: &mut Float) -> bool {
        analysis::bounds::exceeds(&self.reference, v, self.values[v], abs, bound, scratch)
    }
    fn ulps(&self, v: usize, rounded: f64, storage: Precision) -> Option<u64> {
        analysis::metrics::ulps_in(storage, self.values[v], rounded as f32)
    }
}

/// f64 results against the f64 weights' exact sums.
pub struct F64<'a> {
    pub reference: ExactSumsF64,
    pub values: &'a [f64],
}

/// The relative width within which an f64 error, formed from two parts in a few roundings,
/// cannot tell which side of a bound the exact error lies on.
const UNDECIDED: f64 = 1.0 / (1u64 << 50) as f64;

impl Graded for F64<'_> {
    fn kind(&self) -> ReferenceKind {
        ReferenceKind::Exact
    }
    fn value(&self, v: usize) -> f64 {
        self.values[v]
    }
    fn roundings(&self, v: usize, _: Precision) -> (f64, f64) {
        (self.reference.nearest[v], self.reference.nearest[v])
    }
    fn error(&self, v: usize, _: (f64, f64)) -> NodeError {
        self.reference.error(v, self.values[v])
    }
    fn abs_sum(&self, v: usize) -> f64 {
        self.reference.abs_sums[v]
    }
    fn cond(&self, v: usize) -> f64 {
        self.reference.cond(v)
    }
    /// The error is the exact one to about 2^-52 of itself (and of the residual's last bit):
    /// where it lies that close to the bound, the node counts as above it, the judgement that
    /// cannot pass a kernel the bound does not hold for.
    fn exceeds(&self, v: usize, abs: f64, bound: f64, _: &mut Float) -> bool {
        let band = UNDECIDED * abs.max(bound) + self.reference.residual[v].abs() * f64::EPSILON;
        abs > bound - band
    }
}
