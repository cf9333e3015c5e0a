//! The error of one computed value against its reference, and which statistics it enters.

use crate::f32_format::lost_bits;

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
    /// `log2(rel) + p`, floored at 0: bits lost against a correctly rounded f32 (+∞ for a
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each class answers the three questions as its definition says: only NonFinite is
    /// non-finite, only Flagged is flagged, Relative and NonFinite enter the statistics.
    #[test]
    fn each_class_enters_its_statistics() {
        use ErrorClass::*;
        let error = |class, rel| NodeError {
            rel,
            abs: 1.0,
            class,
        };
        for (class, rel, flagged, nonfinite, has_rel) in [
            (Relative, 0.5, false, false, true),
            (Flagged, 0.0, true, false, false),
            (NonFinite, f64::INFINITY, false, true, true),
            (Overflow, 0.0, false, false, false),
        ] {
            let e = error(class, rel);
            assert_eq!(
                (e.flagged(), e.nonfinite(), e.has_rel()),
                (flagged, nonfinite, has_rel),
                "{class:?}"
            );
        }
        // A relative error of 2u costs one bit: log2(2^-23) + 24.
        assert_eq!(error(Relative, 2f64.powi(-23)).lost_bits(), 1.0);
        assert_eq!(error(NonFinite, f64::INFINITY).lost_bits(), f64::INFINITY);
    }
}
