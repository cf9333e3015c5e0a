//! [`Fixed`] against MPFR: its roundings to f32 (ties, sticky bits, subnormals, overflow) and
//! its serialised form; the scale rule's limb and word counts.

use super::*;
use rand::RngExt;
use rug::Float;
use rug::float::Round;

/// Precision that holds every value here exactly (integers below 2^320, scaled by powers of
/// two).
const PREC: u32 = 400;

/// k·2^unit, exactly, in MPFR (at 64·L + 64 bits, which hold any integer of L limbs).
pub(super) fn exact<const L: usize>(k: Fixed<L>, unit: i32) -> Float {
    let prec = 64 * L as u32 + 64;
    let mut x = Float::with_val(prec, 0);
    for (i, &limb) in k.limbs().iter().enumerate() {
        x += Float::with_val(prec, limb) << (64 * i as u32);
    }
    if k.is_negative() {
        x -= Float::with_val(prec, 1) << (64 * L as u32);
    }
    x << unit
}

/// A random integer of 1 to 300 bits with structured low bits (ties and near-ties at 24
/// bits are where roundings differ), of either sign.
fn structured(rng: &mut crate::Rng) -> Fixed<5> {
    let mut k = [0u64; 5];
    let length = rng.random_range(1..=300u32);
    let set = |k: &mut [u64; 5], b: u32| k[(b / 64) as usize] |= 1u64 << (b % 64);
    let clear = |k: &mut [u64; 5], b: u32| k[(b / 64) as usize] &= !(1u64 << (b % 64));
    for b in 0..length {
        if rng.random_bool(0.5) {
            set(&mut k, b);
        }
    }
    set(&mut k, length - 1);
    match rng.random_range(0..4) {
        0 if length > 26 => {
            // An exact tie: the bit after the 24 kept ones set, none below.
            let tie = length - 25;
            (0..tie).for_each(|b| clear(&mut k, b));
            set(&mut k, tie);
        }
        1 if length > 26 => {
            // All ones below the kept bits: rounds up, often across a binade.
            (0..length - 24).for_each(|b| set(&mut k, b));
        }
        2 if length > 60 => {
            // A tie at 53 bits with a sticky bit far below: round to odd must keep it.
            (0..length - 53).for_each(|b| clear(&mut k, b));
            set(&mut k, length - 54);
            set(&mut k, 0);
        }
        _ => {}
    }
    let f = Fixed { limbs: k };
    if rng.random_bool(0.5) { -f } else { f }
}

/// Every rounding case: ties to even and odd, sticky bits in lower limbs, subnormal results,
/// rounding up into the next binade, into the normals, to infinity; f64 too.
#[test]
fn roundings_are_mpfr_roundings() {
    let mut rng = crate::rng(7);
    let mut checked = 0;
    for unit in [-149, -140, -100, -30, 0, 20, 60, 90, 100] {
        for _ in 0..4000 {
            let k = structured(&mut rng);
            let x = exact(k, unit);
            let (got, inexact) = k.round_f32_at(unit);
            let want = x.to_f32_round(Round::Nearest);
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "k = {:x?}, unit {unit}: {got:e} against MPFR {want:e}",
                k.limbs()
            );
            assert_eq!(inexact, Float::with_val(PREC, got) != x, "{:x?}", k.limbs());
            assert_eq!(k.to_f64_at(unit).to_bits(), x.to_f64().to_bits());
            // The same value on fewer limbs where it fits them.
            if let Some(k2) = narrower::<2>(k) {
                assert_eq!(k2.round_f32_at(unit), (got, inexact));
                assert_eq!(k2.to_f64_at(unit).to_bits(), x.to_f64().to_bits());
            }
            if let Some(k1) = narrower::<1>(k) {
                assert_eq!(k1.round_f32_at(unit), (got, inexact));
                assert_eq!(k1.to_f64_at(unit).to_bits(), x.to_f64().to_bits());
            }
            checked += 1;
        }
    }
    assert!(checked > 30_000);
    assert_eq!(Fixed::<2>::ZERO.round_f32_at(-20), (0.0, false));
}

/// `k` on M limbs if it fits them (the higher limbs are sign extension).
fn narrower<const M: usize>(k: Fixed<5>) -> Option<Fixed<M>> {
    let ext = if k.is_negative() { u64::MAX } else { 0 };
    let fits = k.limbs()[M..].iter().all(|&x| x == ext) && (k.limbs()[M - 1] >> 63 == ext & 1);
    fits.then(|| {
        let mut limbs = [0u64; M];
        limbs.copy_from_slice(&k.limbs()[..M]);
        Fixed { limbs }
    })
}

/// The GPU's serialised form read back: every value of random words, at several shifts,
/// equals the integer they encode; and writing it gives the words back.
#[test]
fn words_are_the_value() {
    let mut rng = crate::rng(17);
    for shift in [0usize, 1, 31, 32, 33, 63, 64, 100] {
        for _ in 0..500 {
            // |k|·2^shift within five limbs' 319 magnitude bits.
            let words = rng.random_range(1..=(318 - shift) / 32);
            let k: Vec<u32> = (0..words).map(|_| rng.random::<u32>()).collect();
            let mut want = Float::with_val(PREC, 0);
            for (i, &x) in k.iter().enumerate() {
                want += Float::with_val(64, x) << (32 * i as u32);
            }
            if k.last().unwrap() >> 31 == 1 {
                want -= Float::with_val(8, 1) << (32 * words as u32);
            }
            want <<= shift as u32;
            let got = Fixed::<5>::from_words_u32(&k, shift);
            assert_eq!(exact(got, 0), want, "{k:x?} at 2^{shift}");
            if shift == 0 {
                let mut back = vec![0u32; words];
                got.to_words_u32(&mut back);
                assert_eq!(back, k);
            }
        }
    }
    assert!(Fixed::<2>::from_words_u32(&[0, 0], 3).is_zero());
}

/// Words on a finer unit than the scale's (a forest's scan) read back as the same value: every
/// random value, serialised at 2^-d of the scale's unit, is itself again.
#[test]
fn finer_units_read_back() {
    let mut rng = crate::rng(18);
    let scale = Scale::for_weights(&[1.0]).unwrap();
    for d in [1usize, 5, 31, 32, 33, 64, 70, 100] {
        for _ in 0..300 {
            let k: Vec<u32> = (0..3).map(|_| rng.random::<u32>()).collect();
            let want = Fixed::<3>::from_words_u32(&k, 0);
            let mut finer = [0u32; MAX_GPU_WORDS];
            Fixed::<5>::from_words_u32(&k, d).to_words_u32(&mut finer);
            let got: Fixed<3> = scale.from_words_u32(&finer, scale.unit() - d as i32);
            assert_eq!(exact(got, 0), exact(want, 0), "{k:x?} at 2^-{d}");
        }
    }
}

/// The scale rule: the unit is the lowest bit, the bits hold n terms of the widest, and the
/// GPU's words and the CPU's limbs follow from them (the GPU's as its scan has always had).
#[test]
fn scale_rule() {
    let s = Scale::for_weights(&[1.5, -3.0e-7, 2.0e30, -0.0]).unwrap();
    // 1.5 = 3·2^-1; 3e-7 has its lowest bit at 2^-45; 2e30 is below 2^101; 4 terms: 3 bits.
    assert_eq!(bit_range(-3.0e-7).unwrap().0, -45);
    assert_eq!((s.unit(), s.bits()), (-45, 101 + 45 + 3 + 1));
    assert_eq!((s.gpu_words(), s.limbs()), (5, 3));
    assert_eq!(Scale::for_weights(&[0.0, -0.0]).unwrap().gpu_words(), 1);
    assert_eq!(Scale::for_weights(&[1.0, f32::NAN]), None);
    // The full range with many vertices: the most words and limbs.
    let mut wide = vec![0.0f32; 1 << 20];
    wide[0] = f32::MAX;
    wide[1] = f32::from_bits(1);
    let s = Scale::for_weights(&wide).unwrap();
    assert_eq!((s.gpu_words(), s.limbs()), (10, 5));
    let forest = Scale::for_parts(&[&[1.0, 2.0], &[0.25]]).unwrap();
    assert_eq!(forest, Scale::for_weights(&[1.0, 2.0, 0.25]).unwrap());
}
