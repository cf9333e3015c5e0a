//! Ill-conditioned weights for the API.

use crate::Error;
use generators::exact_sum::ExactSum;

/// Weights from [`gensum`] (f32) or [`gensum_f64`], with their exact sum and condition
/// number.
#[derive(Debug, Clone, PartialEq)]
pub struct GenSum<W = f32> {
    pub weights: Vec<W>,
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

/// [`gensum`] in f64: `n` weights of 53 bits each, the generator's TwoProduct tails and steps
/// in f64, κ = `cond`·(1 ± n·2^-52).
///
/// ```
/// let g = treefix_accuracy::gensum_f64(1000, 1e14, 1)?;
/// assert!((g.cond / 1e14 - 1.0).abs() < 1e-12);
/// assert!(g.weights.iter().any(|&x| x as f32 as f64 != x)); // no f32 values
/// # Ok::<(), treefix_accuracy::Error>(())
/// ```
pub fn gensum_f64(n: usize, cond: f64, seed: u64) -> Result<GenSum<f64>, Error> {
    let weights = generators::gensum::gensum_f64(n, cond, &mut generators::rng(seed))?;
    let (exact_sum, abs) =
        analysis::exact::sums_of_f64(&weights).expect("the generator's values are finite");
    Ok(GenSum {
        exact_sum,
        cond: abs / exact_sum.abs(),
        weights,
    })
}
