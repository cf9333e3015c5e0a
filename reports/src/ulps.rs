//! Distances from the correctly rounded result, in f32 ulps, as the report shows them.
//!
//! results.csv's `max_ulps` counts the f32 values between a result and the correctly rounded
//! one: exact for results near it, but across binades the count grows only by 2²³ per binade
//! (with the logarithm of the error), and across a sign change it stops near 2³² — 26.5 and
//! 63.8 lost bits both read about 2.3·10⁹. From [`SATURATED`] (one binade) on, the report
//! shows instead the error in ulps that the lost bits imply: a node that lost b bits is at
//! least 2^(b − 1) ulps of its exact value away (|x|/ulp(x) ≥ 2²³ for a normal x), which grows
//! with the error without limit.

use super::fmt::pow2_label;

/// 2²³ ulps: a whole binade, from where the count of f32 values stops measuring the error.
pub const SATURATED: f64 = 8_388_608.0;

/// A distance as the report shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shown {
    /// Counted exactly (fewer than [`SATURATED`]).
    Count(f64),
    /// At least 2^k ulps, from the lost bits (k = b − 1).
    AtLeast(f64),
    /// A NaN or ±∞ result: no finite distance.
    Infinite,
}

impl Shown {
    /// The distance of a run (or a cell of runs) with these `max_ulps` and lost bits; `None`
    /// where results.csv has no `max_ulps`.
    pub fn of(max_ulps: Option<f64>, lost_bits: f64) -> Option<Shown> {
        let u = max_ulps?;
        Some(if !u.is_finite() || !lost_bits.is_finite() {
            Shown::Infinite
        } else if u < SATURATED {
            Shown::Count(u)
        } else {
            Shown::AtLeast(lost_bits - 1.0)
        })
    }
    /// log₂ of the distance; 0 ulps is `None` (a log axis draws it on its zero row).
    pub fn log2(self) -> Option<f64> {
        match self {
            Shown::Count(u) if u > 0.0 => Some(u.log2()),
            Shown::Count(_) | Shown::Infinite => None,
            Shown::AtLeast(k) => Some(k.max(23.0)),
        }
    }
    /// "0 ulp", "5.4e3 ulp", "≥ 2²⁵ ulp", "∞ ulp".
    pub fn text(self) -> String {
        match self {
            Shown::Count(u) => format!("{} ulp", super::fmt::sci(u)),
            Shown::AtLeast(k) => format!("≥ {} ulp", pow2_label(k.floor().max(23.0) as i32)),
            Shown::Infinite => "∞ ulp".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_below_a_binade_and_lost_bits_beyond() {
        assert_eq!(Shown::of(None, 3.0), None);
        assert_eq!(Shown::of(Some(0.0), 0.0).unwrap().text(), "0 ulp");
        assert_eq!(Shown::of(Some(5400.0), 14.0).unwrap().text(), "5.4e3 ulp");
        // The saturated counts of 26.5 and 63.8 lost bits read apart.
        let a = Shown::of(Some(2.3e9), 26.5).unwrap();
        let b = Shown::of(Some(2.3e9), 63.8).unwrap();
        assert_eq!(
            (a.text(), b.text()),
            ("≥ 2²⁵ ulp".into(), "≥ 2⁶² ulp".into())
        );
        assert!(b.log2().unwrap() - a.log2().unwrap() > 37.0);
        assert_eq!(
            Shown::of(Some(f64::INFINITY), f64::INFINITY),
            Some(Shown::Infinite)
        );
        assert_eq!(Shown::of(Some(1.0), 1.0).unwrap().log2(), Some(0.0));
    }
}
