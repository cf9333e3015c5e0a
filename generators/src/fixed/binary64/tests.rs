//! The fixed point of f64 weights against MPFR: roundings to f64 at every part of its range
//! (ties, sticky bits far below, subnormal results, the overflow threshold), every f64 weight
//! back as itself, and the scale rule over f64's range.

use super::*;
use crate::fixed::tests::exact;
use rand::RngExt;
use rug::Float;
use rug::float::Round;

/// `x` rounded to nearest f64 by MPFR: 53 bits, then f64's subnormals, then ±∞ beyond range.
fn mpfr_f64(x: &Float) -> f64 {
    let (mut f, ord) = Float::with_val_round(53, x, Round::Nearest);
    f.subnormalize_round(-1021, ord, Round::Nearest);
    f.to_f64()
}

/// A random integer of 1 to `most` bits, of either sign, whose bits below the 53 kept ones are
/// often a tie, all ones, or a tie with one sticky bit far below.
fn structured<const L: usize>(rng: &mut crate::Rng, most: u32) -> Fixed<L> {
    let mut k = [0u64; L];
    let length = rng.random_range(1..=most);
    let set = |k: &mut [u64; L], b: u32| k[(b / 64) as usize] |= 1u64 << (b % 64);
    let clear = |k: &mut [u64; L], b: u32| k[(b / 64) as usize] &= !(1u64 << (b % 64));
    for b in 0..length {
        if rng.random_bool(0.5) {
            set(&mut k, b);
        }
    }
    set(&mut k, length - 1);
    match rng.random_range(0..4) {
        0 if length > 55 => {
            (0..length - 54).for_each(|b| clear(&mut k, b));
            set(&mut k, length - 54);
        }
        1 if length > 55 => (0..length - 53).for_each(|b| set(&mut k, b)),
        2 if length > 120 => {
            (0..length - 54).for_each(|b| clear(&mut k, b));
            set(&mut k, length - 54);
            set(&mut k, 0);
        }
        _ => {}
    }
    let f = Fixed { limbs: k };
    if rng.random_bool(0.5) { -f } else { f }
}

fn check<const L: usize>(k: Fixed<L>, unit: i32) {
    let want = mpfr_f64(&exact(k, unit));
    let got = k.round_f64_at(unit);
    assert_eq!(
        got.to_bits(),
        want.to_bits(),
        "k = {:x?}, unit {unit}: {got:e} against MPFR {want:e}",
        k.limbs()
    );
}

/// Every part of f64's range, on two limbs (the i128 fast path), five and 34.
#[test]
fn roundings_to_f64_are_mpfrs() {
    let mut rng = crate::rng(64);
    for _ in 0..20_000 {
        let k: Fixed<2> = structured(&mut rng, 126);
        // Units that put the value below 2^-1022, around it, in the middle, and at 2^1024.
        let unit = match rng.random_range(0..4) {
            0 => rng.random_range(-1074..-1000),
            1 => rng.random_range(-1074..-900),
            2 => rng.random_range(-200..200),
            _ => rng.random_range(850..=1024 - 60),
        };
        check(k, unit);
    }
    for _ in 0..10_000 {
        let k: Fixed<5> = structured(&mut rng, 318);
        check(k, rng.random_range(-1074..=1024 - 200));
        let k: Fixed<34> = structured(&mut rng, 2170);
        check(k, rng.random_range(-1074..=-1074 + 30));
    }
}

/// f64's gadgets: the overflow threshold and its neighbours, the smallest subnormal, the
/// largest subnormal and the smallest normal, a tie at 53 bits.
#[test]
fn f64_gadgets_round_as_ieee_says() {
    let unit = 1023 - 53;
    // (2 − 2^-53)·2^1023 = (2^54 − 1)·2^970 is the threshold: a tie, to the even 2^1024 = ∞.
    let threshold = Fixed::<2>::from_words_u32(&[u32::MAX, (1 << 22) - 1], 0);
    assert_eq!(threshold.round_f64_at(unit), f64::INFINITY);
    assert_eq!((-threshold).round_f64_at(unit), f64::NEG_INFINITY);
    let below = threshold - Fixed::from_words_u32(&[1], 0);
    assert_eq!(below.round_f64_at(unit), f64::MAX);
    for k in [threshold, below] {
        check(k, unit);
        check(k.widen::<34>(0), unit);
    }
    let one = Fixed::<1>::from_words_u32(&[1], 0);
    assert_eq!(one.round_f64_at(-1074), f64::from_bits(1));
    assert_eq!((-one).round_f64_at(-1074), -f64::from_bits(1));
    let largest_subnormal = Fixed::<1>::from_words_u32(&[u32::MAX, (1 << 20) - 1], 0);
    assert_eq!(
        largest_subnormal.round_f64_at(-1074),
        f64::from_bits((1 << 52) - 1)
    );
    let smallest_normal = largest_subnormal + one;
    assert_eq!(smallest_normal.round_f64_at(-1074), f64::MIN_POSITIVE);
    // 2^53 + 1 is a tie between 2^53 and 2^53 + 2: to the even 2^53.
    let tie = Fixed::<1>::from_words_u32(&[1, 1 << 21], 0);
    assert_eq!(tie.round_f64_at(0), 9007199254740992.0);
    assert_eq!(Fixed::<3>::ZERO.round_f64_at(-1074), 0.0);
}

/// Every finite f64, on the scale of itself and of a tiny weight, is itself again.
#[test]
fn f64_weights_are_themselves() {
    let mut rng = crate::rng(65);
    for _ in 0..20_000 {
        let x = f64::from_bits(rng.random::<u64>());
        if !x.is_finite() {
            continue;
        }
        let s = Scale::for_f64_weights(&[x]).unwrap();
        assert_eq!(
            s.round_f64(s.term_f64::<1>(x)).to_bits(),
            (x + 0.0).to_bits()
        );
        let wide = Scale::for_f64_weights(&[x, f64::from_bits(1)]).unwrap();
        assert!(wide.limbs() <= MAX_F64_LIMBS);
        let k: Fixed<MAX_F64_LIMBS> = wide.term_f64(x);
        assert_eq!(wide.round_f64(k).to_bits(), (x + 0.0).to_bits(), "{x:e}");
    }
}

/// The scale rule over f64's range: its unit the lowest bit, its limbs what the span needs.
#[test]
fn f64_scale_rule() {
    let s = Scale::for_f64_weights(&[1.5, -3.0e-7, 2.0e30, -0.0]).unwrap();
    // 3e-7 as an f64 has its lowest bit at 2^-74; 2e30 is below 2^101; 4 terms: 3 bits.
    assert_eq!(bit_range_f64(-3.0e-7).unwrap().0, -74);
    assert_eq!((s.unit(), s.bits()), (-74, 101 + 74 + 3 + 1));
    assert_eq!(s.limbs(), 3);
    assert_eq!(Scale::for_f64_weights(&[1.0, f64::NAN]), None);
    assert_eq!(Scale::for_f64_weights(&[1.0, f64::INFINITY]), None);
    let mut wide = vec![0.0f64; 1 << 20];
    wide[0] = f64::MAX;
    wide[1] = -f64::from_bits(1);
    assert_eq!(
        Scale::for_f64_weights(&wide).unwrap().limbs(),
        MAX_F64_LIMBS
    );
}

/// Three limbs and more round from the top two: negative values whose lower limbs are zero
/// (the magnitude's top is −hi) or not (it is −hi − 1, with a sticky bit), next to ties.
#[test]
fn wide_values_round_from_their_top_limbs() {
    let one = Fixed::<4>::from_words_u32(&[1], 0);
    for shift in [128u32, 130, 140, 180, 191] {
        for bits in [53u32, 54, 55, 56, 60] {
            // 2^shift·(2^bits − 1), a tie or not at 53 bits, then ± one unit, both signs.
            let mut k = Fixed::<4>::ZERO;
            for b in 0..bits {
                k = k + one.widen::<4>(shift - bits + b);
            }
            for k in [k, k + one, k - one, -k, -(k + one), -(k - one)] {
                for unit in [-1074, -600, 0, 700] {
                    check(k, unit);
                }
            }
        }
    }
}
