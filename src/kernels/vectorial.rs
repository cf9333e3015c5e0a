//! CPU twin of the vectorial kernels (paper Algorithm 2, Blelloch): write the Euler-tour
//! vector E, scan it with the scan plan, read each vertex's answer —
//! `analysis::orders::euler` on f32.

use analysis::orders::euler;
use analysis::{Algorithm, Op};
use generators::Tree;

/// Stage "write": rootfix `E[open v] = w, E[close v] = −w`; leaffix `E[open v] = w,
/// E[close v] = 0`.
pub fn write(tree: &Tree, w: &[f32], op: Op) -> Vec<f32> {
    euler::write(tree, w, op)
}

/// Stage "read" from the inclusive scan S: rootfix `r[v] = S[open v]`; leaffix
/// `l[v] = S[close v] − S[open v − 1]` with S[−1] = 0.
pub fn read(tree: &Tree, s: &[f32], op: Op) -> Vec<f32> {
    euler::read(tree, op, s)
}

/// Write, scan with `algo`'s scan (the scan plan, or the sequential scan), read.
pub fn vectorial(tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Vec<f32> {
    euler::vectorial(tree, w, algo, op)
}
