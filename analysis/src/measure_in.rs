//! One algorithm's results in another storage format (f16, bf16; f32 as [`crate::measure`]
//! does it), measured against the exact treefix rounded to that format: each node's error,
//! the bits of the format it loses (out of its p) and its distance in the format's ulps; and
//! the algorithm's four bounds in that arithmetic against the errors.

use crate::bounds::{BoundSummary, LAMBDA, NodeBounds, summarize};
use crate::metrics::{ErrorSummary, ulps_in};
use crate::orders::Walker;
use crate::{Algorithm, NodeError, Op, Reference};
use generators::{Arithmetic, Precision};
use rayon::prelude::*;
use rug::Float;

/// What is measured of results stored in one format.
#[derive(Debug, Clone)]
pub struct FormatMeasures {
    /// Lost bits out of the format's p; "overflow" is beyond the format's range.
    pub summary: ErrorSummary,
    /// The largest distance in the format's ulps from the correctly rounded result (+∞ for
    /// a NaN).
    pub max_ulps: f64,
}

/// Measures `values` (values of `storage`, carried as f32, one per node) against
/// `reference`.
pub fn measure_in(reference: &Reference, values: &[f32], storage: Precision) -> FormatMeasures {
    let per_node: Vec<(NodeError, f64)> = (0..values.len())
        .into_par_iter()
        .map(|v| {
            let x = values[v];
            let rounded = reference.rounded_in(v, storage);
            let e = reference.error_at(v, x, (reference.value_f64(v), rounded as f32));
            let ulps = ulps_in(storage, x, rounded as f32).map_or(f64::INFINITY, |d| d as f64);
            (e, ulps)
        })
        .collect();
    let errors: Vec<NodeError> = per_node.iter().map(|p| p.0).collect();
    let mut summary = ErrorSummary::from_errors(&errors);
    summary.max_lost_bits = storage.lost_bits(summary.max_rel_error);
    FormatMeasures {
        summary,
        max_ulps: per_node.iter().map(|p| p.1).fold(0.0, f64::max),
    }
}

/// How `algo`'s errors in `arith` compare with its four bounds in that arithmetic (the walk
/// of [`Algorithm::walk_in`], whose replay must be `values`, the twin's results): the
/// violations (a bug if any) and the bits the bounds allow, out of the storage format's p.
pub fn bounds_in(
    reference: &Reference,
    (walker, w, op): (&Walker, &[f32], Op),
    algo: Algorithm,
    arith: Arithmetic,
    values: &[f32],
) -> BoundSummary {
    let walked = algo.walk_in(walker, w, op, LAMBDA, arith);
    let errors: Vec<NodeError> = (0..values.len())
        .map(|v| reference.error(v, values[v]))
        .collect();
    let bounds = NodeBounds::of(walked, values);
    let mut s = summarize(
        reference,
        values,
        &errors,
        &bounds,
        &mut Float::new(generators::exact_sum::EXACT_PREC),
    );
    s.max_bound_lost_bits = bits_out_of(s.max_bound_lost_bits, arith.storage);
    s.max_sharp_lost_bits = bits_out_of(s.max_sharp_lost_bits, arith.storage);
    s
}

/// Lost bits read out of f32's 24 (as [`summarize`] reads a bound) as the same relative
/// error's bits out of `storage`'s p: log2(e) + p, floored at 0.
pub fn bits_out_of(f32_bits: f64, storage: Precision) -> f64 {
    if f32_bits > 0.0 {
        (f32_bits - crate::f32_format::BITS + storage.bits()).max(0.0)
    } else {
        // log2(e) + 24 ≤ 0, so log2(e) + p ≤ p − 24 ≤ 0.
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Algorithm, Op, ReferenceKind};
    use generators::{Arithmetic, ChildOrder, Topology};

    /// The correctly rounded results are 0 ulps and 0 bits away; one pushed a single ulp of
    /// f16 further is 1 ulp away and loses at most 1 of f16's 11 bits (14 of f32's would be
    /// the f32 reading of the same error).
    #[test]
    fn the_formats_own_ulps_and_bits() {
        let mut rng = generators::rng(5);
        let tree = Topology::Prufer
            .generate(500, ChildOrder::Natural, &mut rng)
            .unwrap();
        let w: Vec<f32> = (0..500)
            .map(|i| Precision::F16.round_f32(((i * 37 % 101) as f32 - 50.0) * 0.61))
            .collect();
        let walker = crate::orders::Walker::new(&tree);
        let arith = Arithmetic::same(Precision::F16);
        for op in Op::ALL {
            let reference = Reference::compute(ReferenceKind::Exact, &tree, &w, op);
            let exact = Algorithm::VECTORIAL_EXACT.twin_in(&walker, &w, op, arith);
            let m = measure_in(&reference, &exact, Precision::F16);
            assert_eq!((m.max_ulps, m.summary.max_lost_bits), (0.0, 0.0), "{op}");
            let mut off = exact.clone();
            let v = (0..off.len())
                .max_by(|&a, &b| off[a].abs().total_cmp(&off[b].abs()))
                .unwrap();
            off[v] =
                half::f16::from_f32(off[v]).to_f32() + Precision::F16.ulp(off[v] as f64) as f32;
            let m = measure_in(&reference, &off, Precision::F16);
            assert_eq!(m.max_ulps, 1.0, "{op}");
            let s = m.summary;
            assert!(
                s.max_rel_error > 0.0 && s.max_lost_bits <= 1.0,
                "{op}: {m:?}"
            );
            let seq = Algorithm::SEQUENTIAL.twin_in(&walker, &w, op, arith);
            let m = measure_in(&reference, &seq, Precision::F16);
            assert!(
                m.max_ulps >= 1.0,
                "{op}: f16 sums of 500 terms lose something"
            );
        }
    }
}
