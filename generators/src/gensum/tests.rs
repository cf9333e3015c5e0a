//! The generator: portable log2, achieved κ, determinism, valid values, refused arguments.

use super::*;
use crate::exact_sum::condition_number;

fn valid(z: &[f32]) -> bool {
    z.iter().all(|v| v.is_finite() && !v.is_subnormal())
}

#[test]
fn portable_log2() {
    for (x, l) in [(1.0, 0.0), (2.0, 1.0), (0.5, -1.0), (1024.0, 10.0)] {
        assert_eq!(log2(x), l);
    }
    for x in [3.0, 10.0, 1e-30, 1e30, 0.7, 1.3, 123456.789] {
        assert!((log2(x) - f64::log2(x)).abs() < 1e-13, "{x}");
    }
}

/// The module's claim: κ = c·(1 ± 2^-22) for every draw that has the phase-2 steps it
/// needs (n ≥ 16 up to c = 1e30), and the generator's own estimate agrees.
#[test]
fn hits_the_target() {
    let tol = 2f64.powi(-22);
    let mut worst = (0.0f64, 0, 0.0, 0);
    for n in [16, 100, 1000, 1001, 10_000] {
        for c in [1e1, 37.0, 1e5, 1e10, 4.2e17, 1e20, 1e30] {
            for seed in 0..20 {
                let (z, info) = gensum_with_info(n, c, &mut crate::rng(seed)).unwrap();
                assert_eq!(z.len(), n);
                let k = condition_number(&z);
                // The generator's own (exact-sum) estimate agrees with the independent one.
                assert!((info.design_cond / k - 1.0).abs() < 1e-9, "{info:?} vs {k}");
                let r = (k / c - 1.0).abs();
                if r > worst.0 {
                    worst = (r, n, c, seed);
                }
            }
        }
    }
    assert!(worst.0 <= tol, "worst |κ/c − 1| = {worst:?} > 2^-22");
}

/// A draw that never validates is an error, not a silent κ = 1 fallback.
#[test]
fn failing_draws_are_an_error() {
    let r = draw_valid::<f32>(10, 1e5, &mut crate::rng(0), 3, |_| None);
    assert_eq!(
        r.unwrap_err(),
        GenError::NoValidDraw {
            n: 10,
            cond: 1e5,
            attempts: 3
        }
    );
    let mut calls = 0;
    let ok = draw_valid::<f32>(4, 1e5, &mut crate::rng(0), 3, |_| {
        calls += 1;
        (calls == 3).then(|| (vec![1.0, -1.0, 2.0, 3.0], 0.0, 7.0 / 5.0))
    })
    .unwrap();
    assert_eq!(ok.1.attempts, 3);
}

#[test]
fn deterministic() {
    for (n, c) in [(1000, 1e10), (1001, 1e3), (7, 1.0)] {
        let a = gensum(n, c, &mut crate::rng(5)).unwrap();
        let b = gensum(n, c, &mut crate::rng(5)).unwrap();
        let d = gensum(n, c, &mut crate::rng(6)).unwrap();
        let bits = |z: &[f32]| z.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a), bits(&b));
        assert_ne!(bits(&a), bits(&d));
    }
}

#[test]
fn valid_values() {
    for n in [2, 3, 4, 5, 7, 1000, 1001] {
        for c in [1.0, 1.0 + 1e-9, 1.5, 3.0, 1e1, 1e5, 1e20, 1e30, 1e38] {
            for seed in 0..3 {
                let z = gensum(n, c, &mut crate::rng(seed)).unwrap();
                assert_eq!(z.len(), n);
                assert!(valid(&z), "n={n} c={c}");
                assert!(condition_number(&z).is_finite(), "zero sum n={n} c={c}");
                let m = z.iter().fold(0.0f32, |m, v| m.max(v.abs()));
                assert!(m <= 2f32.powi(100), "n={n} c={c} max {m}");
            }
        }
    }
}

#[test]
fn cond_one_is_one_signed() {
    for n in [2, 3, 1000, 1001] {
        let z = gensum(n, 1.0, &mut crate::rng(9)).unwrap();
        assert!(z.iter().all(|&v| v >= 0.0) || z.iter().all(|&v| v <= 0.0));
        assert_eq!(condition_number(&z), 1.0);
    }
}

#[test]
fn bad_arguments() {
    let r = &mut crate::rng(0);
    assert_eq!(gensum(0, 10.0, r), Err(GenError::TooFew(0)));
    assert_eq!(gensum(1, 10.0, r), Err(GenError::TooFew(1)));
    assert_eq!(gensum(10, 0.5, r), Err(GenError::BadCondition(0.5)));
    assert_eq!(gensum(10, -1.0, r), Err(GenError::BadCondition(-1.0)));
    assert_eq!(
        gensum(10, f64::INFINITY, r),
        Err(GenError::BadCondition(f64::INFINITY))
    );
    assert!(matches!(
        gensum(10, f64::NAN, r),
        Err(GenError::BadCondition(_))
    ));
    assert_eq!(gensum_published(1, 10.0, r), Err(GenError::TooFew(1)));
    assert_eq!(gensum(10, 1e300, r), Err(GenError::OutOfReach(1e300)));
    assert!(gensum(10, COND_MAX, r).is_ok());
}

#[test]
fn published_runs() {
    let z = gensum_published(1000, 1e10, &mut crate::rng(1)).unwrap();
    assert_eq!(z.len(), 1000);
    assert!(condition_number(&z).is_finite());
}

/// κ of f64 values, exactly: Σ|z| and Σz in MPFR (every f64 the generator makes lies within
/// 2^-400 … 2^400), then divided.
fn condition_number_f64(z: &[f64]) -> f64 {
    let (mut sum, mut abs) = (rug::Float::new(1200), rug::Float::new(1200));
    for &v in z {
        sum += v;
        abs += v.abs();
    }
    (abs / sum.abs()).to_f64()
}

/// The f64 generator hits the target to the precision of its running Σ|z| in f64
/// (κ = c·(1 ± n·2^-52)), with values of 53 bits (most of them no f32), normal, the same
/// bytes for the same seed.
#[test]
fn f64_hits_the_target_with_53_bit_values() {
    let mut worst = 0.0f64;
    for n in [16, 1000, 1001, 10_000] {
        for c in [1e1, 1e5, 1e10, 1e16, 1e20, 1e30] {
            for seed in 0..10 {
                let (z, info) = gensum_f64_with_info(n, c, &mut crate::rng(seed)).unwrap();
                assert_eq!(z.len(), n);
                assert!(z.iter().all(|v| v.is_finite() && !v.is_subnormal()));
                let k = condition_number_f64(&z);
                assert!((info.design_cond / k - 1.0).abs() < 1e-9, "{info:?} vs {k}");
                let miss = (k / c - 1.0).abs();
                assert!(
                    miss <= n as f64 * 2f64.powi(-52),
                    "n={n} c={c} seed {seed}: {miss:e}"
                );
                worst = worst.max(miss);
                let wide = z.iter().filter(|&&v| v as f32 as f64 != v).count();
                assert!(
                    wide > n / 2,
                    "n={n} c={c}: only {wide} values need more than f32"
                );
            }
        }
    }
    // Far closer than f32's 2^-22 (about 2.4e-7).
    assert!(worst <= 1e-12, "worst |κ/c − 1| = {worst:e}");
    let a = gensum_f64(1000, 1e12, &mut crate::rng(5)).unwrap();
    let b = gensum_f64(1000, 1e12, &mut crate::rng(5)).unwrap();
    assert_eq!(a, b);
    let one = gensum_f64(1001, 1.0, &mut crate::rng(5)).unwrap();
    assert!(one.iter().all(|&v| v >= 0.0) || one.iter().all(|&v| v <= 0.0));
    assert_eq!(condition_number_f64(&one), 1.0);
}
