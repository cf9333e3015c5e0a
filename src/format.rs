//! Number formatting shared by CSV files and terminal tables.

/// Shortest round-trip decimal of an f32 (exponent form for very large or small magnitudes).
pub fn f32_shortest(x: f32) -> String {
    shortest(x, f64::from(x))
}

/// Shortest round-trip decimal of an f64, same convention.
pub fn f64_shortest(x: f64) -> String {
    shortest(x, x)
}

fn shortest<T: std::fmt::Display + std::fmt::LowerExp>(x: T, magnitude: f64) -> String {
    let a = magnitude.abs();
    if a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A compact scientific form for tables: `1.2e-7`, `3e6`, `1.1`, `inf` (the report's, with
/// `inf` for +∞).
pub use analysis::report::sci_text as sci;

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn round_trips() {
        for x in [
            0.1f32,
            1.0,
            -3.5,
            1e-30,
            3.4e38,
            f32::MIN_POSITIVE,
            123456.79,
            7e-6,
        ] {
            assert_eq!(f32_shortest(x).parse::<f32>().unwrap(), x);
        }
        assert_eq!(f32_shortest(0.1), "0.1");
        assert_eq!(f32_shortest(1e-30), "1e-30");
        assert_eq!(f32_shortest(-0.0), "-0");
    }
}
