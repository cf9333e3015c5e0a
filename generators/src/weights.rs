//! Weight models: the f32 value of every vertex.

use crate::Rng;
use crate::gensum::{GenError, gensum};
use rand::RngExt as _;
use rand::seq::SliceRandom;
use rand_distr::{Distribution, LogNormal, Normal};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How vertex weights are drawn. Values are drawn as a sequence and then dealt to the vertices
/// in a seeded random order, so the tree's numbering never correlates with the values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WeightModel {
    /// Ogita–Rump–Oishi GenSum: the exact total has the requested condition number.
    Gensum,
    /// Uniform on (−1, 1).
    Uniform,
    /// Standard normal.
    Normal,
    /// exp(N(0, 1)): positive, heavy right tail (condition number 1).
    Lognormal,
    /// Integers in −8..=8: every partial sum of up to 2^20 of them is exact in f32.
    Integers,
    /// All ones: rootfix = depth + 1, leaffix = subtree size.
    Ones,
}

impl WeightModel {
    pub const ALL: [WeightModel; 6] = [
        Self::Gensum,
        Self::Uniform,
        Self::Normal,
        Self::Lognormal,
        Self::Integers,
        Self::Ones,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::Gensum => "gensum",
            Self::Uniform => "uniform",
            Self::Normal => "normal",
            Self::Lognormal => "lognormal",
            Self::Integers => "integers",
            Self::Ones => "ones",
        }
    }

    /// `n` weights, dealt to vertices 0..n in a seeded random order. `cond` is used by `gensum`.
    pub fn weights(self, n: usize, cond: f64, rng: &mut Rng) -> Result<Vec<f32>, GenError> {
        let mut w: Vec<f32> = match self {
            Self::Gensum => return gensum(n, cond, rng),
            Self::Uniform => (0..n)
                .map(|_| normal_or_zero(rng.random_range(-1.0f64..1.0) as f32))
                .collect(),
            Self::Normal => {
                let d = Normal::new(0.0f64, 1.0).unwrap();
                (0..n)
                    .map(|_| normal_or_zero(d.sample(rng) as f32))
                    .collect()
            }
            Self::Lognormal => {
                let d = LogNormal::new(0.0f64, 1.0).unwrap();
                (0..n)
                    .map(|_| normal_or_zero(d.sample(rng) as f32))
                    .collect()
            }
            Self::Integers => (0..n).map(|_| rng.random_range(-8i32..=8) as f32).collect(),
            Self::Ones => vec![1.0; n],
        };
        w.shuffle(rng);
        Ok(w)
    }
}

impl WeightModel {
    /// `n` f64 weights of this model: gensum's drawn in f64 ([`crate::gensum::gensum_f64`], 53
    /// bits each), the random models' samples without their rounding to f32 (subnormals, which
    /// no sample here comes near, flushed as for f32), the integer ones as they are.
    pub fn weights_f64(self, n: usize, cond: f64, rng: &mut Rng) -> Result<Vec<f64>, GenError> {
        let flush = |x: f64| if x.is_subnormal() { 0.0 } else { x };
        let mut w: Vec<f64> = match self {
            Self::Gensum => return crate::gensum::gensum_f64(n, cond, rng),
            Self::Uniform => (0..n)
                .map(|_| flush(rng.random_range(-1.0f64..1.0)))
                .collect(),
            Self::Normal => {
                let d = Normal::new(0.0f64, 1.0).unwrap();
                (0..n).map(|_| flush(d.sample(rng))).collect()
            }
            Self::Lognormal => {
                let d = LogNormal::new(0.0f64, 1.0).unwrap();
                (0..n).map(|_| flush(d.sample(rng))).collect()
            }
            Self::Integers => (0..n).map(|_| rng.random_range(-8i32..=8) as f64).collect(),
            Self::Ones => vec![1.0; n],
        };
        w.shuffle(rng);
        Ok(w)
    }

    /// Whether weights of `storage` drawn by this model for `cond` reach it (within a factor
    /// of 10): always for the models that take no κ and in f32.
    pub fn check_reach(
        self,
        cond: f64,
        w: &[f32],
        storage: crate::Precision,
    ) -> Result<(), GenError> {
        if self != Self::Gensum || storage.p() >= crate::Precision::F32.p() {
            return Ok(());
        }
        let achieved = crate::exact_sum::condition_number(w);
        if achieved >= cond / 10.0 {
            return Ok(());
        }
        Err(GenError::FormatOutOfReach {
            format: storage,
            p: storage.p(),
            n: w.len(),
            cond,
            achieved,
        })
    }
}

/// f32 weights as values of `storage`: scaled by one power of two, so that Σ|w| — a bound on
/// every rootfix and leaffix — lands at a quarter of the format's largest value (no sum of
/// them overflows, and the small ones keep as many bits as the range allows), then rounded to
/// nearest. Scaling by 2^k leaves κ as it was; rounding to p bits moves it. f32: unchanged.
pub fn in_format(w: Vec<f32>, storage: crate::Precision) -> Vec<f32> {
    // f32 values are f64 values, and f64's range holds every sum of them.
    if storage.p() >= crate::Precision::F32.p() {
        return w;
    }
    let abs: f64 = w.iter().map(|&x| (x as f64).abs()).sum();
    let scale = if abs > 0.0 && abs.is_finite() {
        2f64.powi((storage.max_finite() / 4.0 / abs).log2().floor() as i32)
    } else {
        1.0
    };
    w.iter()
        .map(|&x| storage.round(x as f64 * scale) as f32)
        .collect()
}

/// Subnormal f32 are flushed to zero by some GPUs (the H100 does; lavapipe keeps them, as
/// tests/gpu/twins.rs measures): keep data normal, so that GPU and CPU twin agree everywhere.
fn normal_or_zero(x: f32) -> f32 {
    if x.is_subnormal() { 0.0 } else { x }
}

impl fmt::Display for WeightModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WeightModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            format!("unknown weight model '{s}' (expected gensum, uniform, normal, lognormal, integers or ones)")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_normal() {
        for m in [
            WeightModel::Uniform,
            WeightModel::Normal,
            WeightModel::Lognormal,
            WeightModel::Integers,
        ] {
            let a = m.weights(1000, 1.0, &mut crate::rng(3)).unwrap();
            let b = m.weights(1000, 1.0, &mut crate::rng(3)).unwrap();
            assert_eq!(a, b);
            assert!(a.iter().all(|x| x.is_finite() && !x.is_subnormal()), "{m}");
        }
        assert!(
            WeightModel::Lognormal
                .weights(100, 1.0, &mut crate::rng(1))
                .unwrap()
                .iter()
                .all(|&x| x > 0.0)
        );
        assert!(
            WeightModel::Integers
                .weights(100, 1.0, &mut crate::rng(1))
                .unwrap()
                .iter()
                .all(|&x| x.fract() == 0.0 && x.abs() <= 8.0)
        );
    }
}
