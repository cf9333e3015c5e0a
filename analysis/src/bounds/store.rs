//! The store: a result computed in the accumulation format, rounded once to a narrower
//! storage format (bf16 storage adding in f32, as GPU libraries do). Every bound of the
//! accumulation format's sum grows by that one rounding (docs/design.md §9.10).

use super::*;
use generators::{Arithmetic, Precision};

/// The rounding from the accumulation format to the storage format, where they differ.
///
/// With ŝ the accumulated value, B a bound on |ŝ − s| and M one on |s|, the stored value
/// is fl_S(ŝ) = ŝ(1 + δ), |δ| ≤ u_S, so |fl_S(ŝ) − s| ≤ B + u_S·(M + B) = (1 + u_S)·B +
/// u_S·M. No absolute term for the subnormal range: the weights are storage values, so
/// multiples of the storage format's smallest subnormal q, and so is every sum of them in a
/// wider format, rounded or not (a rounded sum is a multiple of its own ulp, which is a
/// multiple of q above 2^(p_A) q, and below it the sum is exact); a multiple of q below the
/// normal range is a storage value, stored exactly. The running bound knows both values and
/// charges |fl_S(ŝ) − ŝ| itself. Overflow is outside every a priori bound, as in one format
/// (the stored value is ±∞: its error is not bounded).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StoreTo {
    storage: Precision,
}

/// What happens to a result at the store: nothing ([`Kept`], the storage is the accumulation
/// format) or one rounding ([`StoreTo`]). A type, so that the f32 walks carry no test of it.
pub(crate) trait Store: Copy + Send + Sync {
    /// An a priori bound B of a result of magnitude at most M, after the store.
    fn a_priori(&self, b: f64, m: f64) -> f64;
    /// The (deterministic, sharp, probabilistic) bounds of a result after the store, the
    /// magnitudes (M = Σ|t_i| ≥ |s|, the sharp enclosure of |s|) formed only if it rounds.
    #[inline(always)]
    fn after(
        &self,
        (det, sharp, prob): (f64, f64, f64),
        m: impl FnOnce() -> (f64, f64),
    ) -> (f64, f64, f64) {
        let (mag, abs) = m();
        (
            self.a_priori(det, mag),
            self.a_priori(sharp, abs),
            self.a_priori(prob, mag),
        )
    }
    /// The stored value of an accumulated `value` with running bound `running`, and the
    /// stored value's running bound.
    fn running<T: Stored>(&self, value: T, running: f64) -> (f32, f64);
    /// The three a priori bounds of one sum of `R`'s additions after the store: the
    /// deterministic and probabilistic ones with M = Σ|t_i|, the sharp one with the
    /// enclosure of |s|.
    fn bounds<R: Roundoff>(&self, gammas: &GammaTilde, a: &APrioriIn<R>) -> (f64, f64, f64);
}

/// The storage format is the accumulation format: results are stored as computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Kept;

impl Store for Kept {
    #[inline(always)]
    fn a_priori(&self, b: f64, _m: f64) -> f64 {
        b
    }
    #[inline(always)]
    fn after(&self, bounds: (f64, f64, f64), _m: impl FnOnce() -> (f64, f64)) -> (f64, f64, f64) {
        bounds
    }
    #[inline(always)]
    fn running<T: Stored>(&self, value: T, running: f64) -> (f32, f64) {
        (value.as_f32(), running)
    }
    #[inline(always)]
    fn bounds<R: Roundoff>(&self, gammas: &GammaTilde, a: &APrioriIn<R>) -> (f64, f64, f64) {
        gammas.bounds(a)
    }
}

impl StoreTo {
    /// The store of `arith`, whose storage is narrower than its accumulation format.
    pub(crate) fn new(arith: Arithmetic) -> StoreTo {
        assert!(arith.is_mixed(), "{} stores as it adds", arith.name());
        StoreTo {
            storage: arith.storage,
        }
    }
}

impl Store for StoreTo {
    #[inline]
    fn a_priori(&self, b: f64, m: f64) -> f64 {
        let u = self.storage.u();
        add_up_nonneg(add_up_nonneg(b, times_unit(b, u)), times_unit(m, u))
    }

    #[inline(always)]
    fn running<T: Stored>(&self, value: T, running: f64) -> (f32, f64) {
        let stored = value.store(self.storage);
        // Exact: the two are within a factor 2 of each other (Sterbenz), or the stored one is 0.
        let moved = (stored as f64 - value.to_f64()).abs();
        let running = if moved.is_nan() {
            f64::INFINITY
        } else {
            running
        };
        (stored, add_up_nonneg(running, moved))
    }

    #[inline(always)]
    fn bounds<R: Roundoff>(&self, gammas: &GammaTilde, a: &APrioriIn<R>) -> (f64, f64, f64) {
        self.after(gammas.bounds(a), || {
            let a = a.raised();
            (a.mag_up(), a.abs_bound())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_rounds_once_relatively() {
        let store = StoreTo::new(Arithmetic::new(Precision::Bf16, Precision::F32).unwrap());
        // (1 + 2^-8)·B + 2^-8·M, exact here.
        assert_eq!(store.a_priori(256.0, 1024.0), 257.0 + 4.0);
        let (stored, running) = store.running(1.0f32 + 2f32.powi(-9) * 3.0, 0.5);
        assert_eq!(
            (stored, running),
            (1.0 + 2f32.powi(-7), 0.5 + 2f64.powi(-9))
        );
        // The same storage adding in its own format: nothing happens at the store.
        assert_eq!(Kept.a_priori(3.0, 1e4), 3.0);
        assert_eq!(Kept.running(2.5f32, 1.0), (2.5, 1.0));
    }
}
