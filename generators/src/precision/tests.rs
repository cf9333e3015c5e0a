//! Every format's constants and rounding against MPFR: rounding at p bits, then to the format's
//! subnormals (MPFR's subnormalize, which takes the first rounding's direction into account),
//! then ±∞ beyond the largest finite value.

use super::*;
use rand::RngExt as _;
use rug::Float;
use rug::float::Round;

/// `x` rounded to nearest in `p` by MPFR.
fn mpfr(p: Precision, x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let (mut f, ord) = Float::with_val_round(p.p(), x, Round::Nearest);
    f.subnormalize_round(p.emin() + 1, ord, Round::Nearest);
    let r = f.to_f64();
    if r.abs() > p.max_finite() {
        f64::INFINITY.copysign(x)
    } else {
        r
    }
}

/// `a + b` rounded to nearest in `p` by MPFR (the exact sum first, at 2200 bits).
fn mpfr_sum(p: Precision, a: f64, b: f64) -> f64 {
    let exact = Float::with_val(2200, a) + b;
    let (mut f, ord) = Float::with_val_round(p.p(), &exact, Round::Nearest);
    f.subnormalize_round(p.emin() + 1, ord, Round::Nearest);
    let r = f.to_f64();
    if r.abs() > p.max_finite() {
        f64::INFINITY.copysign(r)
    } else {
        r
    }
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn constants_are_the_formats() {
    use Precision::*;
    assert_eq!(F16.max_finite(), 65504.0);
    assert_eq!(F16.overflow_threshold(), 65520.0);
    assert_eq!(F16.min_subnormal(), 2f64.powi(-24));
    assert_eq!(F16.min_normal(), 2f64.powi(-14));
    assert_eq!(Bf16.max_finite(), half::bf16::MAX.to_f64());
    assert_eq!(Bf16.min_subnormal(), 2f64.powi(-133));
    assert_eq!(F16.max_finite(), half::f16::MAX.to_f64());
    assert_eq!(F32.max_finite(), f32::MAX as f64);
    assert_eq!(F32.min_subnormal(), f32::from_bits(1) as f64);
    assert_eq!(F64.max_finite(), f64::MAX);
    assert_eq!(F64.min_subnormal(), f64::from_bits(1));
    assert_eq!(F64.min_normal(), f64::MIN_POSITIVE);
    assert_eq!(F32.p(), f32::MANTISSA_DIGITS);
    assert_eq!(F64.p(), f64::MANTISSA_DIGITS);
    assert_eq!((2.0 * F32.u()) as f32, f32::EPSILON);
    assert_eq!(2.0 * F64.u(), f64::EPSILON);
    for p in Precision::ALL {
        assert_eq!(p.round(p.max_finite()), p.max_finite(), "{p}");
        assert_eq!(p.round(p.overflow_threshold()), f64::INFINITY, "{p}");
        assert_eq!(p.name().parse::<Precision>(), Ok(p));
        assert_eq!(p.lost_bits(p.u()), 0.0);
        assert_eq!(p.lost_bits(1.0), p.bits());
    }
}

/// The values next to the format's ties, in every binade of its range, subnormals and the
/// overflow threshold included: each tie, one f64 ulp either side, and a random point between.
fn adversarial(p: Precision, rng: &mut crate::Rng) -> Vec<f64> {
    let mut xs = vec![0.0, -0.0, p.min_subnormal(), p.min_subnormal() / 2.0];
    let mut e = p.quantum_exp() + p.p() as i32 - 1;
    // Every binade from the subnormals' to the top, a few significands each.
    while e <= p.emax() + 1 {
        for _ in 0..24 {
            let lo = p.round(
                rng.random::<f64>()
                    .mul_add(2f64.powi(e), 2f64.powi(e))
                    .min(p.max_finite()),
            );
            let hi = lo + p.ulp(lo);
            let tie = lo + (hi - lo) / 2.0;
            let between = lo + (hi - lo) * rng.random::<f64>();
            for x in [tie, tie.next_up(), tie.next_down(), between, lo, hi] {
                xs.push(x);
                xs.push(-x);
            }
        }
        e += 1;
    }
    let t = p.overflow_threshold();
    xs.extend([
        t,
        t.next_down(),
        t.next_up(),
        p.max_finite(),
        -t,
        -t.next_down(),
    ]);
    let s = p.min_subnormal();
    xs.extend([
        s / 2.0,
        (s / 2.0).next_up(),
        (s / 2.0).next_down(),
        1.5 * s,
        2.5 * s,
        -s / 2.0,
    ]);
    xs
}

#[test]
fn rounding_to_every_format_is_mpfrs() {
    let mut rng = crate::rng(46);
    for p in Precision::ALL {
        let mut xs = adversarial(p, &mut rng);
        // And f64 values anywhere.
        xs.extend(
            (0..20_000)
                .map(|_| f64::from_bits(rng.random::<u64>()))
                .filter(|x| x.is_finite()),
        );
        for x in xs {
            let (got, want) = (p.round(x), mpfr(p, x));
            assert!(
                same(got, want),
                "{p}: round({x:e}) = {got:e}, MPFR {want:e}"
            );
            assert!(p.holds(want), "{p}: {want:e}");
            if x.is_finite() && (x as f32) as f64 == x && p != Precision::F64 {
                assert!(
                    same(p.round_f32(x as f32) as f64, want),
                    "{p}: round_f32({x:e})"
                );
            }
        }
    }
}

/// The double-rounding rule on sums: two values of a format added in the wider format and
/// rounded back are the sum rounded once (MPFR), on random pairs and on pairs whose sum lies
/// next to a tie (a large value and a small one just under half its ulp).
#[test]
fn sums_rounded_twice_are_rounded_once() {
    let mut rng = crate::rng(2 * 11 + 2);
    let pairs = [
        (Precision::F16, Precision::F32),
        (Precision::Bf16, Precision::F32),
        (Precision::F32, Precision::F64),
        (Precision::F16, Precision::F64),
        (Precision::Bf16, Precision::F64),
    ];
    for (narrow, wide) in pairs {
        assert!(narrow.adds_exactly_through(wide), "{narrow} through {wide}");
        let draw = |rng: &mut crate::Rng| {
            let e = rng.random_range(narrow.quantum_exp()..=narrow.emax());
            let x = narrow.round(rng.random::<f64>() * 2f64.powi(e));
            if rng.random::<bool>() { -x } else { x }
        };
        for _ in 0..40_000 {
            let a = draw(&mut rng);
            let b = if rng.random::<u8>() < 64 {
                // Just under, at or over half of a's ulp, with either sign.
                let h = narrow.ulp(a) / 2.0;
                let b = narrow.round(
                    h * (1.0 + (rng.random::<f64>() - 0.5) * 2f64.powi(-(narrow.p() as i32))),
                );
                if rng.random::<bool>() { -b } else { b }
            } else {
                draw(&mut rng)
            };
            let twice = narrow.round(wide.round(a + b));
            // a + b in f64 may round (bf16's and f32's exponent gaps): MPFR adds exactly.
            let once = mpfr_sum(narrow, a, b);
            assert!(
                same(twice, once),
                "{narrow} via {wide}: {a:e} + {b:e} = {twice:e}, MPFR {once:e}"
            );
        }
    }
    assert!(!Precision::F32.adds_exactly_through(Precision::Bf16));
    assert!(!Precision::F16.adds_exactly_through(Precision::Bf16));
}

/// Every f32 next to an f16 or a bf16 tie (the midpoint between two neighbours, and one f32 ulp
/// either side), over every value of the 16-bit format: `half`'s conversion from f32 is MPFR's.
#[test]
fn half_from_f32_is_correctly_rounded_next_to_every_tie() {
    for p in [Precision::F16, Precision::Bf16] {
        for bits in 0u16..0x7c00.max(if p == Precision::Bf16 { 0x7f80 } else { 0 }) {
            let lo = match p {
                Precision::F16 => half::f16::from_bits(bits).to_f64(),
                _ => half::bf16::from_bits(bits).to_f64(),
            };
            if !lo.is_finite() || lo >= p.max_finite() {
                continue;
            }
            let tie = (lo + (lo + p.ulp(lo))) / 2.0;
            let t = tie as f32;
            assert_eq!(t as f64, tie, "a tie of {p} is an f32");
            for x in [t, t.next_up(), t.next_down(), -t, -t.next_up()] {
                let want = mpfr(p, x as f64);
                assert!(same(p.round_f32(x) as f64, want), "{p}: {x:e} -> {want:e}");
            }
        }
    }
}

#[test]
fn accumulation_formats_hold_their_storage() {
    use Precision::*;
    for s in Precision::ALL {
        for a in Precision::ALL {
            let ok = Arithmetic::new(s, a).is_ok();
            let expected = s == a || matches!((s, a), (Bf16 | F16, F32 | F64) | (F32, F64));
            assert_eq!(ok, expected, "{s}+{a}");
        }
    }
    assert!(Arithmetic::new(Bf16, F16).unwrap_err().contains("range"));
    assert!(Arithmetic::new(F16, Bf16).unwrap_err().contains("bits"));
    assert_eq!(
        "bf16+f32".parse::<Arithmetic>().unwrap(),
        Arithmetic::new(Bf16, F32).unwrap()
    );
    assert_eq!("f64".parse::<Arithmetic>().unwrap(), Arithmetic::same(F64));
    assert_eq!(Arithmetic::new(Bf16, F32).unwrap().to_string(), "bf16+f32");
}

#[test]
fn ordinals_count_ulps() {
    for p in Precision::ALL {
        assert_eq!(p.ordinal(0.0), 0);
        assert_eq!(p.ordinal(-0.0), 0);
        assert_eq!(p.ordinal(p.min_subnormal()), 1);
        assert_eq!(p.ordinal(-p.min_subnormal()), -1);
        assert_eq!(p.ordinal(f64::INFINITY) - p.ordinal(p.max_finite()), 1);
        let one = p.ordinal(1.0);
        assert_eq!(p.ordinal(1.0 + p.ulp(1.0)) - one, 1);
        assert_eq!(one - p.ordinal(1.0 - p.ulp(1.0) / 2.0), 1);
    }
}

#[test]
fn odd_rounding_keeps_what_a_later_rounding_needs() {
    assert_eq!(odd_f32(1.0), 1.0);
    let tiny = f64::from_bits(1);
    assert_eq!(odd_f32(tiny), f32::from_bits(1));
    assert_eq!(odd_f32(-tiny), -f32::from_bits(1));
    // Just above 1: the nearest f32 is 1 (even), its odd neighbour above is 1 + 2^-23.
    assert_eq!(odd_f32(1.0 + 2f64.powi(-40)), 1.0 + f32::EPSILON);
    assert_eq!(odd_f32(1e300), f32::INFINITY);
}

/// Rounding to odd at f32's precision, by MPFR: toward zero at 24 bits (f32's exponent range
/// and subnormals), then the last bit set if that was inexact. Against `odd_f32` on random
/// f64 of every f32 binade and those beside its ends, the fast path's and the general one's.
#[test]
fn odd_f32_is_mpfrs_rounding_to_odd() {
    let oracle = |x: f64| -> f32 {
        let (mut f, dir) = Float::with_val_round(24, x, Round::Zero);
        let _ = f.subnormalize_ieee_round(dir, Round::Zero);
        let t = f.to_f32();
        let inexact = t as f64 != x;
        if inexact && t.is_finite() && t.to_bits() & 1 == 0 {
            f32::from_bits(t.to_bits() | 1)
        } else if !t.is_finite() {
            // Beyond f32's largest finite value rounding to odd is ±∞ (IEEE overflow).
            f32::INFINITY.copysign(t)
        } else {
            t
        }
    };
    let mut rng = crate::rng(11);
    for _ in 0..200_000 {
        let e = rng.random_range(-152..=129);
        let m: f64 = rng.random_range(1.0..2.0);
        let x = m * 2f64.powi(e) * if rng.random_bool(0.5) { -1.0 } else { 1.0 };
        assert_eq!(odd_f32(x).to_bits(), oracle(x).to_bits(), "{x:e}");
    }
}
