//! CPU twin of the vectorial kernels (paper Algorithm 2, Blelloch): write the Euler-tour
//! vector E, scan it with the scan plan, read each vertex's answer.

use analysis::Op;
use generators::Tree;

/// Stage "write": rootfix `E[open v] = w, E[close v] = −w`; leaffix `E[open v] = w,
/// E[close v] = 0`.
pub fn write(tree: &Tree, w: &[f32], op: Op) -> Vec<f32> {
    let mut e = vec![0f32; 2 * tree.len()];
    for v in 0..tree.len() {
        e[tree.open()[v] as usize] = w[v];
        e[tree.close()[v] as usize] = match op {
            Op::Rootfix => -w[v],
            Op::Leaffix => 0.0,
        };
    }
    e
}

/// Stage "read" from the inclusive scan S: rootfix `r[v] = S[open v]`; leaffix
/// `l[v] = S[close v] − S[open v − 1]` with S[−1] = 0.
pub fn read(tree: &Tree, s: &[f32], op: Op) -> Vec<f32> {
    (0..tree.len())
        .map(|v| {
            let open = tree.open()[v] as usize;
            match op {
                Op::Rootfix => s[open],
                Op::Leaffix => {
                    let before = if open == 0 { 0.0 } else { s[open - 1] };
                    s[tree.close()[v] as usize] - before
                }
            }
        })
        .collect()
}

/// Write, scan with `scan`, read.
pub fn vectorial(tree: &Tree, w: &[f32], op: Op, scan: fn(&mut [f32])) -> Vec<f32> {
    let mut e = write(tree, w, op);
    scan(&mut e);
    read(tree, &e, op)
}
