//! One algorithm's results measured against the reference as they stream out of its walk:
//! each node's error, its distance in ulps and its bound checks are taken in one parallel pass
//! over the nodes (docs/design.md §8.2, §9.6); the order statistics (percentiles, tightness
//! medians) then select from one reused buffer.
//!
//! The figures are those of [`ErrorSummary::from_errors`], [`crate::bounds::summarize`] and
//! [`crate::metrics::max_ulps`] computed one after the other, bit for bit (a test).

use crate::bounds::{BoundSummary, NodeBounds, Tally};
use crate::metrics::{ErrorCounts, ErrorSummary, ulps};
use crate::stats::Ranks;
use crate::{NodeError, Reference};
use rayon::prelude::*;
use rug::Float;

/// Nodes per task of the measuring pass.
const CHUNK: usize = 1 << 14;

/// What is measured of one algorithm's results.
#[derive(Debug, Clone)]
pub struct Measures {
    /// Each node's error.
    pub errors: Vec<NodeError>,
    pub summary: ErrorSummary,
    /// The errors against the bounds.
    pub bound_summary: BoundSummary,
    /// The largest distance in ulps from the correctly rounded result (+∞ for a non-finite
    /// result).
    pub max_ulps: f64,
}

/// What one range of nodes contributes.
#[derive(Default)]
struct Part {
    counts: ErrorCounts,
    tally: Tally,
    max_ulps: f64,
}

/// Measures `values` (one per node) against `reference` and their `bounds`.
pub fn measure(reference: &Reference, values: &[f32], bounds: &NodeBounds) -> Measures {
    let n = values.len();
    let placeholder = NodeError {
        rel: 0.0,
        abs: 0.0,
        class: crate::ErrorClass::Relative,
    };
    let mut errors = vec![placeholder; n];
    let part = errors
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map_init(
            || Float::new(generators::exact_sum::EXACT_PREC),
            |scratch, (k, chunk)| {
                let first = k * CHUNK;
                let mut part = Part::default();
                let overflowed = &bounds.overflowed;
                let mut in_order = overflowed
                    [overflowed.partition_point(|&v| (v as usize) < first)..]
                    .iter()
                    .copied()
                    .peekable();
                for (i, e) in chunk.iter_mut().enumerate() {
                    let v = first + i;
                    let x = values[v];
                    // The reference's roundings, made once for all that reads them.
                    let r = reference.roundings(v);
                    *e = reference.error_at(v, x, r);
                    part.counts.add(e);
                    let d = ulps(x, r.1).map_or(f64::INFINITY, |d| d as f64);
                    part.max_ulps = part.max_ulps.max(d);
                    let overflow = in_order.next_if_eq(&(v as u32)).is_some();
                    part.tally
                        .node(reference, bounds, (v, x, e, overflow), r, scratch);
                }
                part
            },
        )
        .collect::<Vec<Part>>()
        .into_iter()
        .fold(Part::default(), |a, b| Part {
            counts: a.counts.merge(b.counts),
            tally: a.tally.then(b.tally),
            max_ulps: a.max_ulps.max(b.max_ulps),
        });
    let mut buf = Ranks::with_capacity(n);
    buf.fill(errors.iter().filter(|e| e.has_rel()).map(|e| e.rel));
    let summary = ErrorSummary::of(&mut buf, part.counts);
    let bound_summary = part.tally.finish(&errors, bounds, &mut buf);
    Measures {
        errors,
        summary,
        bound_summary,
        max_ulps: part.max_ulps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::{FourBounds, bound_lost_bits, summarize};
    use crate::metrics::max_ulps;
    use crate::orders::Walker;
    use crate::{Algorithm, Op, ReferenceKind};
    use generators::{ChildOrder, Topology};

    /// The one-pass measures equal the separate computations bit for bit, over several
    /// chunks: zero sums (flagged nodes), partial sums that overflow f32, exact values beyond
    /// its range, and values pushed off their twin's so that bounds are violated in more
    /// chunks than the report keeps.
    #[test]
    fn one_pass_is_the_separate_passes() {
        let n = 3 * CHUNK + 77;
        let mut rng = generators::rng(3);
        let tree = Topology::RandomRecursive
            .generate(n, ChildOrder::Natural, &mut rng)
            .unwrap();
        let w: Vec<f32> = (0..n)
            .map(|i| match i % 97 {
                0 => 3.0e38,
                1 => -1.5,
                _ if i % 5 == 0 => 0.0,
                _ => ((i * 7919 % 1013) as f32 - 506.0) * 0.37,
            })
            .collect();
        let walker = Walker::new(&tree);
        let mut scratch = Float::new(generators::exact_sum::EXACT_PREC);
        // Whether some case had more violations than are kept, overflowing partial sums and
        // values beyond f32's range.
        let mut exercised = (false, false, false);
        for op in Op::ALL {
            let reference = Reference::compute(ReferenceKind::Exact, &tree, &w, op);
            for algo in [
                Algorithm::SEQUENTIAL,
                Algorithm::VECTORIAL,
                Algorithm::CONTRACTION,
            ] {
                let mut values = algo.twin_on(&walker, &w, op);
                for v in (0..n).step_by(1999) {
                    values[v] = values[v] * 1.001 + 1.0;
                }
                let bounds = NodeBounds::of(algo.walk(&walker, &w, op, 10.0), &values);
                let got = measure(&reference, &values, &bounds);
                let errors: Vec<NodeError> =
                    (0..n).map(|v| reference.error(v, values[v])).collect();
                assert_eq!(got.errors, errors, "{algo} {op}");
                let summary = ErrorSummary::from_errors(&errors);
                assert_eq!(format!("{:?}", got.summary), format!("{summary:?}"));
                let b = summarize(&reference, &values, &errors, &bounds, &mut scratch);
                assert_eq!(format!("{:?}", got.bound_summary), format!("{b:?}"));
                // The largest bound lost bits, taken as the nodes go, are log2 of every
                // counted node's ratio, maxed.
                let counted = |v: usize| {
                    !reference.beyond_f32(v)
                        && bounds.overflowed.binary_search(&(v as u32)).is_err()
                };
                let most = |bound: fn(&FourBounds) -> f64| {
                    (0..n)
                        .filter(|&v| counted(v))
                        .filter_map(|v| bound_lost_bits(bound(&bounds[v]), reference.value_f64(v)))
                        .fold(0.0, f64::max)
                };
                assert_eq!(b.max_bound_lost_bits.to_bits(), most(|b| b.det).to_bits());
                assert_eq!(b.max_sharp_lost_bits.to_bits(), most(|b| b.sharp).to_bits());
                exercised.0 |= b.violations.len() == crate::bounds::MAX_REPORTED;
                exercised.1 |= b.overflow.partial_sum > 0;
                exercised.2 |= b.overflow.beyond_range > 0;
                let ulps = max_ulps(&values, &reference);
                assert_eq!(got.max_ulps.to_bits(), ulps.to_bits());
            }
        }
        assert_eq!(exercised, (true, true, true));
    }
}
