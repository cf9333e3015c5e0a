//! The published generator, for comparison: GenDot then GenSum as Ogita, Rump and Oishi print
//! them, in f32, whose κ is not controlled (the parent module says by how much it misses).

use super::drawn::Drawn;
use super::{Acc, COND_MAX, GenError, check_args, exp2i, log2, round_half};
use crate::Rng;
use rand::RngExt as _;
use rand::seq::SliceRandom;

/// The published generator (GenDot then GenSum, Ogita–Rump–Oishi Alg. 6.1) in f32, with the
/// running exact accumulator instead of an O(m²) re-summation. For odd n one extra value
/// `2r − 1` is appended (the paper only defines even lengths). For comparison only: its κ
/// is not controlled.
pub fn gensum_published(n: usize, cond: f64, rng: &mut Rng) -> Result<Vec<f32>, GenError> {
    check_args(n, cond)?;
    let c = cond.min(COND_MAX);
    let b = log2(c);
    let m = n / 2;
    let m2 = round_half(m as f64 / 2.0) as usize;
    let mut acc = Acc::new(f32::EXACT_BITS);
    let mut z = Vec::with_capacity(n);
    let nonzero = |rng: &mut Rng| loop {
        let u = 2.0 * rng.random::<f64>() - 1.0;
        if u != 0.0 {
            return u;
        }
    };
    for i in 0..m2 {
        let mut e = round_half(rng.random::<f64>() * b / 2.0) as i32;
        if i == 0 {
            e = round_half(b / 2.0) as i32 + 1;
        }
        if i == m2 - 1 {
            e = 0;
        }
        let x = (nonzero(rng) * exp2i(e)) as f32;
        let y = (nonzero(rng) * exp2i(e)) as f32;
        let (p, q) = f32::two_product(x, y);
        acc.add(p.into());
        acc.add(q.into());
        z.extend([p, q]);
    }
    let k = m - m2;
    for j in 0..k {
        let e = if k == 1 {
            0.0
        } else {
            b / 2.0 * (1.0 - j as f64 / (k - 1) as f64)
        };
        let a = exp2i(round_half(e) as i32);
        let x = (nonzero(rng) * a) as f32;
        let t = (2.0 * rng.random::<f64>() - 1.0) * a;
        let y = (acc.minus_from(t) / x as f64) as f32;
        let (p, q) = f32::two_product(x, y);
        acc.add(p.into());
        acc.add(q.into());
        z.extend([p, q]);
    }
    if n % 2 == 1 {
        z.push(nonzero(rng) as f32);
    }
    z.shuffle(rng);
    Ok(z)
}
