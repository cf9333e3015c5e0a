//! The one form of each kind of number shown: shortest round-trip decimals (the per-node files
//! of `run --dump` and `gen`, the terminal and the report's tables where a number must read
//! back exactly), durations, and the units of speed (ns per vertex, GB/s).

/// Shortest round-trip decimal of an f32 (exponent form outside [10⁻⁵, 10¹⁶)).
pub fn f32_shortest(x: f32) -> String {
    shortest(x, f64::from(x))
}

/// Shortest round-trip decimal of an f64, same convention.
pub fn f64_shortest(x: f64) -> String {
    shortest(x, x)
}

/// A duration in seconds, without its unit: 2 decimals below 10 s, 1 above (`0.37`, `12.5`,
/// `7260.0`). The one rule of the report's run times and of the terminal's time estimates.
pub fn seconds(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.2}")
    } else {
        format!("{s:.1}")
    }
}

/// A duration with its unit, for estimates that can run to hours: [`seconds`] and "s" below
/// two minutes, then minutes below two hours, then hours, one decimal (`3.43 s`, `12.0 min`,
/// `14.0 h`).
pub fn duration(s: f64) -> String {
    if s < 120.0 {
        format!("{} s", seconds(s))
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// Nanoseconds per vertex, the one unit of every time per vertex shown (tables, report,
/// terminal): `seconds` spent on `vertices` vertices (at least 1).
pub fn ns_per_vertex(seconds: f64, vertices: usize) -> f64 {
    seconds * 1e9 / vertices.max(1) as f64
}

/// Gigabytes (10⁹ bytes) per second: `bytes` moved in `seconds`, the one unit of every
/// bandwidth shown.
pub fn gb_per_s(bytes: u64, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e9
}

fn shortest<T: std::fmt::Display + std::fmt::LowerExp>(x: T, magnitude: f64) -> String {
    let a = magnitude.abs();
    if a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(duration(3.434), "3.43 s");
        assert_eq!(duration(119.94), "119.9 s");
        assert_eq!(duration(720.0), "12.0 min");
        assert_eq!(duration(50_400.0), "14.0 h");
    }

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
        for x in [0.0, 5.960464477539063e-8, 1234.5678, 3.2e9, 17.123456789] {
            assert_eq!(f64_shortest(x).parse::<f64>().unwrap(), x);
        }
        assert_eq!(f64_shortest(2.5e-4), "0.00025");
        assert_eq!(f64_shortest(3.2e9), "3200000000");
        assert_eq!(f64_shortest(2e16), "2e16");
        assert_eq!(f64_shortest(f64::INFINITY), "inf");
    }
}
