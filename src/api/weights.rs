//! Ill-conditioned weights for the API.

use crate::Error;
use generators::exact_sum::ExactSum;

/// Weights from [`gensum`], with their exact sum and condition number.
#[derive(Debug, Clone, PartialEq)]
pub struct GenSum {
    pub weights: Vec<f32>,
    /// Σ weights, exactly, rounded once to the nearest f64.
    pub exact_sum: f64,
    /// The achieved condition number Σ|w| / |Σw|, from exact sums.
    pub cond: f64,
}

/// `n` f32 weights whose sum has condition number `cond` (Ogita–Rump–Oishi's GenSum,
/// refined to hit the target: docs/design.md §7), seeded with ChaCha20 — as accupy's
/// `generate_ill_conditioned_sum` returns (weights, exact sum, achieved κ).
///
/// ```
/// let g = treefix_accuracy::gensum(1000, 1e10, 1)?;
/// assert_eq!(g.weights.len(), 1000);
/// assert!((g.cond / 1e10 - 1.0).abs() < 1e-3);
/// let naive: f32 = g.weights.iter().sum();
/// assert_ne!(naive as f64, g.exact_sum); // f32 summation cannot get it right
/// # Ok::<(), treefix_accuracy::Error>(())
/// ```
pub fn gensum(n: usize, cond: f64, seed: u64) -> Result<GenSum, Error> {
    let weights = generators::gensum::gensum(n, cond, &mut generators::rng(seed))?;
    let exact = weights
        .iter()
        .fold(ExactSum::ZERO, |s, &x| s + ExactSum::from_f32(x));
    Ok(GenSum {
        exact_sum: exact.to_f64(),
        cond: crate::experiment::achieved_cond(&weights),
        weights,
    })
}
