//! Bounds evaluated in f64 rounded upward (docs/design.md §9.5): every sum of bound terms
//! goes through [`add_up`], scalings by u are exact, the few other operations move one ulp up.
//! (The recursions carried through a summation tree are evaluated to nearest instead and
//! raised when read: `APrioriIn`, `Running`.)

pub use crate::directed::*;
pub use crate::f32_format::U;

/// λ of the probabilistic bound.
///
/// Chosen so that the promise is tiny even for the largest runs: a run has at most 2^24 nodes
/// (the scale of the paper's experiments) and a node's sum at most 2^25 terms (a vectorial
/// prefix of the 2n-long Euler tour), so a union bound over every (node, term) pair promises
/// failure probability ≤ 2^24 · 2^25 · 2·exp(−λ²(1 − u)²/2) = 2^50·exp(−50(1 − u)²)
/// ≈ 2.2·10^-7 < 10^-6 per run at λ = 10 ([`failure_probability`]). The price is a factor
/// λ = 10 on the √k growth: γ̃_k(10) ≈ 10·√k·u, still far below γ_k ≈ k·u once k > 100.
pub const LAMBDA: f64 = 10.0;

/// The promised probability that at least one of `pairs` (node, term) products exceeds its
/// γ̃ at `lambda`: pairs·2·exp(−λ²(1 − u)²/2) (Higham & Mary, Lemma 2.4 with a union bound).
pub fn failure_probability(pairs: f64, lambda: f64) -> f64 {
    pairs * 2.0 * (-lambda * lambda * (1.0 - U) * (1.0 - U) / 2.0).exp()
}

/// x·u for x ≥ 0: an exact scaling by 2^-24, rounded up in the (never reached in practice)
/// subnormal range.
#[inline]
pub fn times_u(x: f64) -> f64 {
    times_unit(x, U)
}

/// x·u for x ≥ 0 and u a power of two (a format's unit roundoff): exact, rounded up in f64's
/// subnormal range.
#[inline]
pub fn times_unit(x: f64, u: f64) -> f64 {
    let p = x * u;
    if p < f64::MIN_POSITIVE && x != 0.0 {
        next_up(p)
    } else {
        p
    }
}

/// (1 + u)·x for x ≥ 0, rounded upward.
#[inline]
pub(crate) fn one_plus_u_times(x: f64) -> f64 {
    add_up_nonneg(x, times_u(x))
}

/// The final rounding of a float-float value ŝ to f32, r̂ = RN(ŝ), for ŝ with error bound
/// `b` and exact value of magnitude ≤ `m`: |r̂ − s| ≤ b + u·|ŝ| ≤ (1 + u)·b + u·m.
#[inline]
pub(crate) fn round_to_f32(b: f64, m: f64) -> f64 {
    add_up_nonneg(one_plus_u_times(b), times_u(m))
}

/// γ_k = k·u / (1 − k·u), rounded upward (∞ once k·u ≥ 1).
pub fn gamma(k: u64) -> f64 {
    gamma_in(k, U)
}

/// γ_k of a format whose unit roundoff is `u` (a power of two, 2^-p: k·u is then exact),
/// rounded upward.
pub fn gamma_in(k: u64, u: f64) -> f64 {
    if k == 0 {
        return 0.0;
    }
    let ku = k as f64 * u; // exact for k < 2^53
    if ku >= 1.0 {
        return f64::INFINITY;
    }
    // 1 − ku is rounded to nearest; dividing by one ulp less than it rounds the quotient up.
    let den = 1.0 - ku;
    let den_down = f64::from_bits(den.to_bits() - 1);
    next_up(ku / den_down)
}

/// Higham–Mary γ̃_k(λ) = exp(λ·√k·u + k·u²/(1 − u)) − 1, rounded upward.
///
/// √ and the products are correctly rounded and moved one ulp up; `exp_m1` comes from the
/// platform's libm (accurate to about 1 ulp) and is then inflated by a relative 2^-40, far more
/// than any libm's error. This bound is a probabilistic statement anyway, so its last bits
/// are not what makes it hold.
pub fn gamma_tilde(k: u32, lambda: f64) -> f64 {
    gamma_tilde_in(k, lambda, U)
}

/// γ̃_k(λ) of a format whose unit roundoff is `u` (a power of two), rounded upward.
pub fn gamma_tilde_in(k: u32, lambda: f64, u: f64) -> f64 {
    if k == 0 {
        return 0.0;
    }
    let kf = k as f64;
    let linear = times_unit(mul_up(lambda, next_up(kf.sqrt())), u);
    // 1 − u is exact for u ≥ 2^-53.
    let quadratic = next_up(times_unit(times_unit(kf, u), u) / (1.0 - u));
    let x = add_up(linear, quadratic);
    next_up(x.exp_m1() * (1.0 + 1.0 / (1u64 << 40) as f64))
}

#[cfg(test)]
mod tests {
    //! Each function against an oracle computed apart from it: MPFR's directed roundings
    //! (rug) at enough bits to be exact, or std's `f64::next_up`.
    use super::*;
    use rand::RngExt;
    use rug::Float;
    use rug::float::Round;

    /// Bits that hold the sum of any two f64 used here exactly (exponents at most 2100
    /// apart), and their products.
    const EXACT: u32 = 2200;

    /// The exact value rounded to an f64 in the direction `round` (normal range).
    fn rounded(exact: &Float, round: Round) -> f64 {
        Float::with_val_round(53, exact, round).0.to_f64()
    }

    fn sum(a: f64, b: f64) -> Float {
        Float::with_val(EXACT, a) + b
    }

    /// ±m·2^e with m uniform in [1, 2) (all 52 fraction bits random).
    fn random_f64(rng: &mut generators::Rng, exponents: std::ops::Range<i32>, signed: bool) -> f64 {
        let sign = if signed && rng.random_bool(0.5) {
            -1.0
        } else {
            1.0
        };
        sign * rng.random_range(1.0..2.0) * 2f64.powi(rng.random_range(exponents))
    }

    /// Pairs of any signs whose exponents differ by at most 60, so that most sums round and
    /// some cancel, then sums that are exact. Seeded ChaCha20.
    fn pairs(seed: u64) -> Vec<(f64, f64)> {
        let mut rng = generators::rng(seed);
        let mut out: Vec<(f64, f64)> = (0..20_000)
            .map(|_| {
                let a = random_f64(&mut rng, -300..300, true);
                let e = a.abs().log2().floor() as i32;
                (a, random_f64(&mut rng, e - 60..e + 61, true))
            })
            .collect();
        out.extend([
            (1.0, 2.0),
            (0.5, 0.25),
            (0.0, 0.0),
            (3.0, -3.0),
            (-7.0, 2.0),
            (-1.5, -0.5),
            (1e300, 1e300),
            (f64::MIN_POSITIVE, f64::MIN_POSITIVE),
        ]);
        out
    }

    /// add_up and add_down are the exact sum rounded up and down (exact sums stay exact, for
    /// any signs), add_up_nonneg is add_up for operands ≥ 0 in either order, and TwoSum's
    /// error is the exact remainder.
    #[test]
    fn directed_sums_are_the_exact_sum_rounded() {
        let (mut inexact, mut nonneg) = (0, 0);
        for (a, b) in pairs(1) {
            let exact = sum(a, b);
            let (up, down) = (rounded(&exact, Round::Up), rounded(&exact, Round::Down));
            assert_eq!(add_up(a, b), up, "{a:e} + {b:e}");
            assert_eq!(add_down(a, b), down, "{a:e} + {b:e}");
            if a >= 0.0 && b >= 0.0 {
                assert_eq!(add_up_nonneg(a, b), up, "{a:e} + {b:e}");
                assert_eq!(add_up_nonneg(b, a), up, "{b:e} + {a:e}");
                nonneg += 1;
            }
            let s = a + b;
            assert_eq!(two_sum_err(a, b, s), (exact - s).to_f64(), "{a:e} + {b:e}");
            inexact += (up != down) as usize;
        }
        // Most sums round; the exact ones are at least the eight listed.
        assert!((10_000..20_000).contains(&inexact), "{inexact}");
        assert!(nonneg > 4000, "{nonneg}");
    }

    /// next_up and next_down are std's, at zero of both signs, subnormals, normals, MAX.
    #[test]
    fn next_up_and_down_are_stds() {
        let mut xs: Vec<f64> = [1, 2, 12345, 1 << 52, (1 << 52) - 1]
            .map(f64::from_bits)
            .into();
        xs.extend([0.0, 1.0, f64::MIN_POSITIVE, f64::MAX]);
        let mut rng = generators::rng(2);
        xs.extend(
            (0..2000)
                .map(|_| f64::from_bits(rng.random()))
                .filter(|x| x.is_finite()),
        );
        for x in xs.iter().flat_map(|&x| [x, -x]) {
            assert_eq!(next_up(x).to_bits(), x.next_up().to_bits(), "{x:e}");
            assert_eq!(next_down(x).to_bits(), x.next_down().to_bits(), "{x:e}");
        }
    }

    /// x·u is exact while it is a normal f64, and rounded up (never to 0) below.
    #[test]
    fn times_u_is_exact_then_rounds_up_in_the_subnormals() {
        assert_eq!(times_u(0.0), 0.0);
        let mut rng = generators::rng(3);
        let mut normal = vec![1.0, 3.0, 0.1, f64::MAX, f64::MIN_POSITIVE * 2f64.powi(24)];
        normal.extend((0..1000).map(|_| random_f64(&mut rng, -998..1024, false)));
        for x in normal {
            let exact = Float::with_val(53, x) >> 24u32;
            assert_eq!(times_u(x), exact.to_f64(), "{x:e}");
        }
        let below = [
            f64::from_bits(1),
            f64::from_bits(3),
            f64::MIN_POSITIVE,
            1.5 * 2f64.powi(-1000),
            (f64::MIN_POSITIVE * 2f64.powi(24)).next_down(),
        ];
        for x in below {
            let exact = Float::with_val(53, x) >> 24u32;
            let got = Float::with_val(EXACT, times_u(x));
            assert!(got >= exact && got > 0, "{x:e}");
            // Within two subnormal steps above.
            assert!(got - exact <= f64::from_bits(2), "{x:e}");
        }
    }

    /// (1 + u)·x, a·b and the final rounding's charge against their exact values rounded up.
    #[test]
    fn products_round_upward() {
        let mut rng = generators::rng(4);
        let one_plus_u = Float::with_val(53, 1.0 + U);
        let positive: Vec<f64> = (0..2000)
            .map(|_| random_f64(&mut rng, -300..300, false))
            .chain([1.0, 3.0, 0.1, 7.0])
            .collect();
        for pair in positive.chunks_exact(2) {
            let (a, b) = (pair[0], pair[1]);
            let exact = Float::with_val(EXACT, a) * &one_plus_u;
            assert_eq!(one_plus_u_times(a), rounded(&exact, Round::Up), "{a:e}");
            let up = rounded(&(Float::with_val(EXACT, a) * b), Round::Up);
            let got = mul_up(a, b);
            assert!(up <= got && got <= up.next_up(), "{a:e}·{b:e}");
            // |r̂ − s| ≤ (1 + u)·b + u·m, rounded up by at most two roundings.
            let exact = Float::with_val(EXACT, a) * &one_plus_u + Float::with_val(EXACT, b) * U;
            let up = rounded(&exact, Round::Up);
            let got = round_to_f32(a, b);
            assert!(up <= got && got <= up.next_up(), "{a:e} {b:e}");
        }
        assert_eq!(one_plus_u_times(0.0), 0.0);
        assert_eq!((mul_up(0.0, 3.0), mul_up(3.0, 0.0)), (0.0, 0.0));
    }

    /// γ_k ≤ gamma(k) ≤ γ_k·(1 + 2^-50), γ_k = k·u/(1 − k·u) compared exactly (as
    /// gamma(k)·(1 − k·u) against k·u), up to the last finite k = 2^24 − 1.
    #[test]
    fn gamma_is_gamma_k_rounded_up() {
        let ks = (1..=20_000u64).chain([1 << 20, (1 << 23) + 1, (1 << 24) - 1]);
        for k in ks {
            let g = gamma(k);
            let ku = Float::with_val(256, k) * U;
            let times_den = Float::with_val(256, g) * (Float::with_val(256, 1) - &ku);
            assert!(times_den >= ku, "k = {k}");
            assert!(times_den <= ku * (1.0 + 2f64.powi(-50)), "k = {k}");
        }
        assert_eq!(gamma(0), 0.0);
        assert_eq!(gamma(1 << 24), f64::INFINITY);
        assert_eq!(gamma(u64::MAX), f64::INFINITY);
    }

    /// γ̃_k(λ) = exp(λ·√k·u + k·u²/(1 − u)) − 1 in MPFR: gamma_tilde is above it, by no more
    /// than its documented 2^-40 inflation and a few ulps, up to k = 2^32 − 1 where the
    /// k·u² term shows.
    #[test]
    fn gamma_tilde_is_higham_marys_rounded_up() {
        let prec = 256;
        let u = Float::with_val(prec, U);
        for lambda in [LAMBDA, 1.0, 3.5] {
            for k in [1u32, 2, 3, 1000, 10_000, 1 << 20, u32::MAX] {
                let kf = Float::with_val(prec, k);
                let linear = Float::with_val(prec, kf.sqrt_ref()) * lambda * &u;
                let quadratic = kf * &u * &u / (Float::with_val(prec, 1) - &u);
                let exact = (linear + quadratic).exp_m1();
                let got = Float::with_val(prec, gamma_tilde(k, lambda));
                assert!(got >= exact, "k = {k}, λ = {lambda}");
                assert!(
                    got <= exact * (1.0 + 2f64.powi(-38)),
                    "k = {k}, λ = {lambda}"
                );
            }
        }
        assert_eq!(gamma_tilde(0, LAMBDA), 0.0);
    }

    /// pairs·2·exp(−λ²(1 − u)²/2) against MPFR, to libm's accuracy.
    #[test]
    fn failure_probability_is_the_union_bound() {
        let prec = 256;
        for (pairs, lambda) in [(2f64.powi(49), LAMBDA), (1.0, 3.0), (1e6, 6.0)] {
            let one_minus_u = Float::with_val(prec, 1) - U;
            let square = Float::with_val(prec, lambda) * lambda * &one_minus_u * &one_minus_u;
            let exponent = -square / 2u32;
            let exact = exponent.exp() * pairs * 2u32;
            let got = failure_probability(pairs, lambda);
            let rel = ((Float::with_val(prec, got) - &exact) / &exact)
                .abs()
                .to_f64();
            assert!(
                rel < 1e-13,
                "{pairs:e} pairs, λ = {lambda}: {got:e}, {rel:e}"
            );
        }
        // The documented figure: 2^49 pairs at λ = 10 promise about 2.2·10^-7.
        let p = failure_probability(2f64.powi(49), LAMBDA);
        assert!((2.1e-7..2.3e-7).contains(&p), "{p:e}");
    }
}
