//! Rows of test sweeps, shared by the answer's and the findings' unit tests.

use analysis::records::results::ResultRow;

/// A row of a test sweep: one tree of 100 vertices with gensum weights at κ
/// `cond`, `algorithm` losing `bits` at most on `op`, the optional columns empty.
pub(crate) fn result_row(
    tree: usize,
    topology: &str,
    cond: f64,
    (algorithm, op): (&str, &str),
    bits: f64,
) -> ResultRow {
    ResultRow {
        tree,
        topology: topology.into(),
        n: 100,
        height: 99,
        child_order: "natural".into(),
        weights: "gensum".into(),
        seed: 0,
        target_cond: cond,
        achieved_cond: cond,
        algorithm: algorithm.into(),
        op: op.into(),
        backend: "cpu".into(),
        reference: "exact".into(),
        max_rel_error: analysis::f32_format::rel_of_bits(bits),
        median_rel_error: 0.0,
        p99_rel_error: 0.0,
        max_lost_bits: bits,
        flagged_nodes: 0,
        bound_violations: None,
        prob_violations: None,
        median_tightness: None,
        max_tightness: None,
        sharp_violations: None,
        running_violations: None,
        max_bound_lost_bits: None,
        gpu_mismatches: None,
        max_flagged_abs_error: None,
        source: None,
        source_sha256: None,
        nonfinite_nodes: None,
        overflow_nodes: None,
        max_ulps: None,
    }
}
