//! Ogita–Rump–Oishi ill-conditioned dot products and sums (SIAM J. Sci. Comput. 26(6), 2005,
//! Alg. 6.1), in f32, with a running exact accumulator (DESIGN §5).
//! PLACEHOLDER: being written (issue 2); the API below is fixed.

use crate::Rng;

/// Why a generation request cannot be served.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GenError {
    #[error("condition number {0} is not a finite number ≥ 1")]
    BadCondition(f64),
    #[error("cannot generate a sum of {0} values (need at least 2)")]
    TooFew(usize),
}

/// `n` f32 values (all normal or zero) whose exact sum has condition number close to `cond`.
pub fn gensum(n: usize, cond: f64, rng: &mut Rng) -> Result<Vec<f32>, GenError> {
    let _ = (n, cond, rng);
    unimplemented!("gensum is being written")
}
