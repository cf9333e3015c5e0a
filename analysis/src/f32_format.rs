//! The f32 format as the error analysis sees it, written once: its precision p = 24 bits
//! (23 stored and the hidden one), its unit roundoff u = 2^-p, and the bits a relative error
//! e costs, log2(e) + p, with its inverse. The bounds, the metrics and the report's figures
//! all read these.

/// p: the bits of an f32 significand.
pub const PRECISION: i32 = 24;

/// p as an f64, for the lost-bits arithmetic.
pub const BITS: f64 = PRECISION as f64;

/// The unit roundoff of f32, u = 2^-p: the largest relative error of one rounding to nearest.
pub const U: f64 = 1.0 / (1u64 << PRECISION) as f64;

/// log2(e) + p, not floored: the bits a relative error e costs (below 0 for e < u).
pub fn bits_of_rel(rel: f64) -> f64 {
    rel.log2() + BITS
}

/// The relative error that costs `bits` bits: 2^(bits − p), the inverse of [`bits_of_rel`].
pub fn rel_of_bits(bits: f64) -> f64 {
    2f64.powf(bits - BITS)
}

/// `log2(e) + p`, floored at 0 (+∞ for e = +∞; NaN is never passed: a non-finite result
/// has e = +∞).
pub fn lost_bits(rel: f64) -> f64 {
    if rel > 0.0 {
        bits_of_rel(rel).max(0.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u_is_two_to_the_minus_p() {
        assert_eq!(U, 2f64.powi(-PRECISION));
        // 2u is the spacing of f32 values at 1.
        assert_eq!((2.0 * U) as f32, f32::EPSILON);
        assert_eq!(f32::MANTISSA_DIGITS as i32, PRECISION);
    }

    #[test]
    fn lost_bits_and_its_inverse() {
        assert_eq!(lost_bits(U), 0.0);
        assert_eq!(lost_bits(2.0 * U), 1.0);
        assert_eq!(lost_bits(1.0), BITS);
        assert_eq!(lost_bits(U / 4.0), 0.0);
        assert_eq!(lost_bits(0.0), 0.0);
        assert_eq!(lost_bits(f64::INFINITY), f64::INFINITY);
        assert_eq!(bits_of_rel(U / 4.0), -2.0);
        for bits in [-3.0, 0.0, 1.0, 7.5, 24.0, 40.0] {
            assert_eq!(bits_of_rel(rel_of_bits(bits)), bits);
        }
    }
}
