//! The library API: trees, ill-conditioned weights, every treefix algorithm on the CPU or the
//! GPU, the correctly rounded treefix, and the accuracy oracle for results computed elsewhere.
//! Everything here is re-exported at the crate root; the Python package
//! (`treefix_accuracy`) wraps exactly these functions.
//!
//! Nothing here changes the process: no signal handler, panic hook, environment variable or
//! global allocator (those belong to the `accuracy` binary), so a host program — a Python
//! interpreter included — can call it freely. Errors are [`Error`]s with one-line messages.
//!
//! # Example: grade a kernel
//!
//! ```
//! use treefix_accuracy::{Algorithm, Cpu, Op, ScoreOptions};
//!
//! // The tree of the seed paper's Fig. 2 as a parent array (-1: the root).
//! let tree = treefix_accuracy::tree_from_parents(&[-1, 0, 1, 1, 0, 4])?;
//! // Ill-conditioned weights: κ = Σ|w| / |Σw| close to 1e6.
//! let g = treefix_accuracy::gensum(tree.len(), 1e6, 7)?;
//! assert!((g.cond / 1e6 - 1.0).abs() < 1e-3);
//!
//! // Our vectorial algorithm (Euler tour + scan), then the correctly rounded leaffix.
//! let vectorial = treefix_accuracy::leaffix(&tree, &g.weights, Algorithm::VECTORIAL, &Cpu)?;
//! let exact = treefix_accuracy::exact(&tree, &g.weights, Op::Leaffix)?;
//! assert_eq!(exact[0] as f64, g.exact_sum as f32 as f64);
//!
//! // Judged like a kernel we did not write.
//! let s = treefix_accuracy::score(
//!     &tree,
//!     &g.weights,
//!     &[(Op::Leaffix, &vectorial[..])],
//!     &ScoreOptions::default(),
//!     &|_| None,
//! )?;
//! let leaffix = s.get(Op::Leaffix).unwrap();
//! println!("{}", s.tables());
//! assert!(leaffix.max_lost_bits >= 0.0);
//! // The correctly rounded results lose nothing and are 0 ulps away.
//! let perfect = treefix_accuracy::score(
//!     &tree, &g.weights, &[(Op::Leaffix, &exact[..])], &ScoreOptions::default(), &|_| None,
//! )?;
//! assert_eq!(perfect.ops[0].max_ulps, Some(0));
//! # Ok::<(), treefix_accuracy::Error>(())
//! ```

pub mod files;
mod trees;
mod weights;

pub use files::{write_results, write_tree, write_weights};
pub use trees::{generate_tree, read_tree, read_tree_with, tree_from_edges, tree_from_parents};
pub use weights::{GenSum, gensum, gensum_f64};

use crate::Error;
use crate::experiment::Backend;
use analysis::{Algorithm, Op};
use generators::{Arithmetic, Precision, Tree};

/// Rootfix (the sum along the path root → v, v included) of every vertex by `algorithm`, on
/// `backend` ([`Cpu`](crate::Cpu): the algorithm's CPU twin; a [`Gpu`](crate::Gpu): its
/// kernel, the same bits).
///
/// ```
/// use treefix_accuracy::{Algorithm, Cpu};
/// let chain = treefix_accuracy::tree_from_parents(&[-1, 0, 1])?;
/// let r = treefix_accuracy::rootfix(&chain, &[1.0, 2.0, 3.0], Algorithm::SEQUENTIAL, &Cpu)?;
/// assert_eq!(r, [1.0, 3.0, 6.0]);
/// # Ok::<(), treefix_accuracy::Error>(())
/// ```
pub fn rootfix(
    tree: &Tree,
    w: &[f32],
    algorithm: Algorithm,
    backend: &dyn Backend,
) -> Result<Vec<f32>, Error> {
    treefix(tree, w, Op::Rootfix, algorithm, backend)
}

/// Leaffix (the sum over v's subtree, v included) of every vertex; as [`rootfix`].
pub fn leaffix(
    tree: &Tree,
    w: &[f32],
    algorithm: Algorithm,
    backend: &dyn Backend,
) -> Result<Vec<f32>, Error> {
    treefix(tree, w, Op::Leaffix, algorithm, backend)
}

/// `op` of every vertex by `algorithm` on `backend`. A weight vector of the wrong length, or
/// an algorithm without a kernel on that backend (`vectorial-seqscan` on a GPU), is an error.
pub fn treefix(
    tree: &Tree,
    w: &[f32],
    op: Op,
    algorithm: Algorithm,
    backend: &dyn Backend,
) -> Result<Vec<f32>, Error> {
    check_weights(tree, w)?;
    backend.compute(tree, w, algorithm, op)
}

/// The correctly rounded treefix: every vertex's exact rootfix or leaffix, rounded once to
/// the nearest f32 (ties to even; ±∞ beyond f32's range). Exact whatever the weights'
/// condition number.
///
/// ```
/// use treefix_accuracy::Op;
/// let star = treefix_accuracy::tree_from_parents(&[-1, 0, 0])?;
/// // 1e8 + 1 − 1e8: f32 additions in any order lose the 1.
/// let l = treefix_accuracy::exact(&star, &[1e8, 1.0, -1e8], Op::Leaffix)?;
/// assert_eq!(l, [1.0, 1.0, -1e8]);
/// # Ok::<(), treefix_accuracy::Error>(())
/// ```
pub fn exact(tree: &Tree, w: &[f32], op: Op) -> Result<Vec<f32>, Error> {
    check_weights(tree, w)?;
    // One walk of vectorial-exact's twin, with IEEE's signs of zero (exact::rounded).
    Ok(analysis::exact::rounded(tree, w, op))
}

/// [`treefix`] when the kernel stores its values as `arith.storage` and adds in
/// `arith.accumulate` (f16, bf16, f32; weights and results carried as f32): on [`Cpu`](crate::Cpu)
/// the algorithm's twin in that arithmetic, on a GPU its kernel compiled for it (the same
/// bits; f64 has no WGSL type and is refused there).
///
/// ```
/// use treefix_accuracy::{Algorithm, Cpu, Op};
/// use generators::{Arithmetic, Precision};
/// let chain = treefix_accuracy::tree_from_parents(&[-1, 0, 0, 0])?;
/// let f16 = Arithmetic::same(Precision::F16);
/// // 2048 + 1 is a tie in f16, kept at 2048 (even), three times over.
/// let w = [2048.0, 1.0, 1.0, 1.0];
/// let l = treefix_accuracy::treefix_in(&chain, &w, (Op::Leaffix, f16), Algorithm::SEQUENTIAL, &Cpu)?;
/// assert_eq!(l[0], 2048.0);
/// let mixed = Arithmetic::new(Precision::F16, Precision::F32).unwrap();
/// let l = treefix_accuracy::treefix_in(&chain, &w, (Op::Leaffix, mixed), Algorithm::SEQUENTIAL, &Cpu)?;
/// assert_eq!(l[0], 2052.0); // 2051 in f32, stored once in f16: a tie, to even
/// # Ok::<(), treefix_accuracy::Error>(())
/// ```
pub fn treefix_in(
    tree: &Tree,
    w: &[f32],
    (op, arith): (Op, Arithmetic),
    algorithm: Algorithm,
    backend: &dyn Backend,
) -> Result<Vec<f32>, Error> {
    check_weights(tree, w)?;
    check_storage(w, arith.storage)?;
    if !algorithm.runs_in(arith) {
        return Err(Error::Usage(format!(
            "{algorithm} does not add in {}{}",
            arith.accumulate,
            if arith.storage == Precision::F64 {
                " (f64 weights: treefix_f64)"
            } else {
                ""
            }
        )));
    }
    backend.compute_in(tree, w, algorithm, (op, arith))
}

/// [`exact`] rounded to `storage` (f16, bf16 or f32) instead of f32, for finite weights of
/// that format: what a correctly rounded kernel storing that format returns.
pub fn exact_in(tree: &Tree, w: &[f32], op: Op, storage: Precision) -> Result<Vec<f32>, Error> {
    if storage == Precision::F32 {
        return exact(tree, w, op);
    }
    check_weights(tree, w)?;
    check_storage(w, storage)?;
    if storage == Precision::F64 {
        return Err(Error::Usage(
            "f64 weights are given as f64 values: exact_f64".into(),
        ));
    }
    if let Some(v) = w.iter().position(|x| !x.is_finite()) {
        return Err(Error::Usage(format!(
            "the weight of vertex {v} is {}: the exact treefix in {storage} takes finite weights",
            w[v]
        )));
    }
    Ok(analysis::exact::correctly_rounded_in(tree, w, op, storage))
}

/// The treefix of f64 weights by `algorithm` storing and adding f64, on the CPU (WGSL has no
/// f64): for the algorithms whose order is written for f64 weights
/// ([`Algorithm::runs_in_f64`]).
///
/// ```
/// use treefix_accuracy::{Algorithm, Op};
///
/// let chain = treefix_accuracy::tree_from_parents(&[-1, 0, 1])?;
/// let w = [1e16, 1.0, -1e16];
/// let seq = treefix_accuracy::treefix_f64(&chain, &w, Op::Rootfix, Algorithm::SEQUENTIAL)?;
/// assert_eq!(seq[2], 0.0); // 1e16 + 1 rounds to 1e16 in f64
/// assert_eq!(treefix_accuracy::exact_f64(&chain, &w, Op::Rootfix)?[2], 1.0);
/// # Ok::<(), treefix_accuracy::Error>(())
/// ```
pub fn treefix_f64(
    tree: &Tree,
    w: &[f64],
    op: Op,
    algorithm: Algorithm,
) -> Result<Vec<f64>, Error> {
    check_len(tree, w.len())?;
    algorithm
        .twin_f64(&analysis::orders::Walker::new(tree), w, op)
        .ok_or_else(|| {
            let runs: Vec<&str> = Algorithm::ALL
                .iter()
                .filter(|a| a.runs_in_f64())
                .map(|a| a.name())
                .collect();
            Error::Usage(format!(
                "{algorithm} does not run on f64 weights (those that do: {})",
                runs.join(", ")
            ))
        })
}

/// The correctly rounded treefix of finite f64 weights: every vertex's exact rootfix or
/// leaffix rounded once to the nearest f64 (f64's subnormals; ±∞ beyond its range).
pub fn exact_f64(tree: &Tree, w: &[f64], op: Op) -> Result<Vec<f64>, Error> {
    check_len(tree, w.len())?;
    if let Some(v) = w.iter().position(|x| !x.is_finite()) {
        return Err(Error::Usage(format!(
            "the weight of vertex {v} is {}: the exact treefix takes finite weights",
            w[v]
        )));
    }
    Ok(analysis::exact::correctly_rounded_f64(tree, w, op))
}

/// Every weight a value of `storage`.
fn check_storage(w: &[f32], storage: Precision) -> Result<(), Error> {
    match storage.first_outside(w) {
        Some((v, x)) => Err(Error::Usage(format!(
            "the weight of vertex {v}, {x}, is no {storage} value"
        ))),
        None => Ok(()),
    }
}

fn check_weights(tree: &Tree, w: &[f32]) -> Result<(), Error> {
    check_len(tree, w.len())
}

fn check_len(tree: &Tree, weights: usize) -> Result<(), Error> {
    if weights != tree.len() {
        return Err(Error::Usage(format!(
            "{weights} weights for a tree of {} vertices: one weight per vertex",
            tree.len()
        )));
    }
    Ok(())
}
