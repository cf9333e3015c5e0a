//! Number formatting for reports.

const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/// `10ᵏ` with superscript digits (`10⁻⁶`); 10⁰ and 10¹ are written `1` and `10`.
pub fn pow10_label(k: i32) -> String {
    match k {
        0 => "1".into(),
        1 => "10".into(),
        _ => {
            let mut s = String::from("10");
            if k < 0 {
                s.push('⁻');
            }
            for d in k.unsigned_abs().to_string().bytes() {
                s.push(SUPERSCRIPT[(d - b'0') as usize]);
            }
            s
        }
    }
}

/// Shortest decimal that parses back to exactly `x` (exponent form outside 1e-3..1e7).
pub fn round_trip(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 || !x.is_finite() || (1e-3..1e7).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Compact scientific form for prose and summary tables: `1.2e-7`, `3e6`.
pub fn sci(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return if x > 0.0 {
            "∞".into()
        } else {
            format!("{x}")
        };
    }
    let s = format!("{x:.1e}").replace(".0e", "e"); // 3.0e6 → 3e6
    // No exponent for 1 ≤ |x| < 10: 1.1e0 → 1.1.
    s.strip_suffix("e0").map(str::to_string).unwrap_or(s)
}

/// Fixed decimals, with a true minus sign.
pub fn fixed(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_ten() {
        assert_eq!(pow10_label(-6), "10⁻⁶");
        assert_eq!(pow10_label(-10), "10⁻¹⁰");
        assert_eq!(pow10_label(12), "10¹²");
        assert_eq!(pow10_label(0), "1");
        assert_eq!(pow10_label(1), "10");
    }

    #[test]
    fn round_trips() {
        for x in [
            0.0,
            1.0,
            5.960464477539063e-8,
            1234.5678,
            3.2e9,
            0.5,
            17.123456789,
        ] {
            assert_eq!(round_trip(x).parse::<f64>().unwrap(), x);
        }
        assert_eq!(sci(3e6), "3e6");
        assert_eq!(sci(1.23e-7), "1.2e-7");
        assert_eq!(sci(1.14), "1.1");
        assert_eq!(sci(10.0), "1e1");
    }
}
