//! Measured errors against their bounds: violations, overflow, tightness, bound lost bits.

use super::*;
use crate::stats::median_max;

/// `lost_bits(bound / |x|)`: the most bits the bound allows node v to lose (None if x = 0).
pub fn bound_lost_bits(bound: f64, x: f64) -> Option<f64> {
    (x != 0.0).then(|| lost_bits(bound / x.abs()))
}

/// Extra lost bits of `a` over `b` at a node with exact value x: log2(a / b), where both are
/// first raised to u·|x| (the error of a correctly rounded result — below it a result loses
/// no bits). Equals `lost_bits(a/|x|) − lost_bits(b/|x|)`; None when x = 0. Used for both the
/// predicted (a, b = bounds) and the measured (a, b = errors) extra bits of vectorial over
/// parallel.
pub fn extra_bits(a: f64, b: f64, x: f64) -> Option<f64> {
    (x != 0.0).then(|| lost_bits(a / x.abs()) - lost_bits(b / x.abs()))
}

/// A node whose error exceeds a rigorous bound: always a bug.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    pub vertex: usize,
    /// "a priori" or "running".
    pub bound_kind: String,
    pub computed: f32,
    pub reference: f64,
    pub abs_error: f64,
    pub bound: f64,
}

/// How the measured errors of one (tree, algorithm, op) compare with their bounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundSummary {
    /// Nodes whose error exceeds the a priori deterministic bound (a bug if > 0).
    pub bound_violations: usize,
    /// Nodes whose error exceeds the sharp a priori bound (a bug if > 0).
    pub sharp_violations: usize,
    /// Nodes whose error exceeds the running error bound (a bug if > 0).
    pub running_violations: usize,
    /// Nodes whose error exceeds the probabilistic bound (allowed, with small probability).
    pub prob_violations: usize,
    /// Median over all nodes of |error| / deterministic bound (0 where the error is 0).
    pub median_tightness: f64,
    pub max_tightness: f64,
    /// Largest `lost_bits(bound / |x|)` over nodes with x ≠ 0.
    pub max_bound_lost_bits: f64,
    /// The same for the sharp a priori bound.
    pub max_sharp_lost_bits: f64,
    /// Median and max of |error| / sharp bound.
    pub median_sharp_tightness: f64,
    pub max_sharp_tightness: f64,
    /// The first violating nodes (at most [`MAX_REPORTED`]).
    pub violations: Vec<Violation>,
    /// Nodes left out of the bound checks because f32 overflowed there: their exact value
    /// lies beyond f32's range, or a partial sum of the algorithm's order did
    /// ([`NodeBounds::overflowed`]). The bounds assume no overflow; neither is a bug.
    pub overflow: Overflow,
}

/// Nodes where f32 overflows, by reason.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overflow {
    /// The exact value lies beyond f32's range: its correct rounding is ±∞.
    pub beyond_range: usize,
    /// The exact value is within range, but a partial sum of the order overflowed.
    pub partial_sum: usize,
}

impl Overflow {
    pub fn total(&self) -> usize {
        self.beyond_range + self.partial_sum
    }

    /// "2 node(s) overflow f32 (1 exact value beyond f32's range, 1 partial sum of the
    /// order)", or None.
    pub fn describe(&self) -> Option<String> {
        if self.total() == 0 {
            return None;
        }
        let mut why = Vec::new();
        if self.beyond_range > 0 {
            why.push(format!(
                "{} exact value(s) beyond f32's range",
                self.beyond_range
            ));
        }
        if self.partial_sum > 0 {
            why.push(format!(
                "{} with a partial sum of the order beyond it",
                self.partial_sum
            ));
        }
        Some(format!(
            "{} node(s) overflow f32 ({}): left out of the bound checks, which assume no overflow",
            self.total(),
            why.join(", ")
        ))
    }
}

/// Violations kept per outcome for the report.
pub const MAX_REPORTED: usize = 20;

/// Whether the exact error of `computed` at node v exceeds `bound`. The f64 error `abs` is
/// the exact error rounded to nearest, which is monotone: abs < bound ⇒ exact ≤ bound and
/// abs > bound ⇒ exact > bound; only abs = bound needs the exact comparison.
pub(crate) fn exceeds(
    reference: &Reference,
    v: usize,
    computed: f32,
    abs: f64,
    bound: f64,
    scratch: &mut Float,
) -> bool {
    if abs != bound {
        return abs > bound;
    }
    match reference {
        Reference::Exact { values, .. } => {
            (ExactSum::from_f32(computed) - values.get(v))
                .abs()
                .assign_to(scratch);
            *scratch > bound
        }
        Reference::Dd { .. } => false,
    }
}

/// Compares every node's error with its bounds.
pub fn summarize(
    reference: &Reference,
    values: &[f32],
    errors: &[NodeError],
    bounds: &NodeBounds,
    scratch: &mut Float,
) -> BoundSummary {
    let mut out = BoundSummary {
        bound_violations: 0,
        sharp_violations: 0,
        running_violations: 0,
        prob_violations: 0,
        median_tightness: 0.0,
        max_tightness: 0.0,
        max_bound_lost_bits: 0.0,
        max_sharp_lost_bits: 0.0,
        median_sharp_tightness: 0.0,
        max_sharp_tightness: 0.0,
        violations: Vec::new(),
        overflow: Overflow::default(),
    };
    let mut overflowed = bounds.overflowed.iter().copied().peekable();
    let mut tight = Vec::with_capacity(values.len());
    let mut sharp_tight = Vec::with_capacity(values.len());
    // The largest bound / |x| (deterministic, sharp) over the counted nodes with x ≠ 0.
    let mut top = (0.0f64, 0.0f64);
    for (v, e) in errors.iter().enumerate() {
        let x = reference.value_f64(v);
        let in_order = overflowed.next_if_eq(&(v as u32)).is_some();
        if reference.beyond_f32(v) {
            out.overflow.beyond_range += 1;
            continue;
        }
        if in_order {
            out.overflow.partial_sum += 1;
            continue;
        }
        for (kind, bound) in [
            ("a priori", bounds.det[v]),
            ("sharp a priori", bounds.sharp[v]),
            ("running", bounds.running[v]),
        ] {
            if exceeds(reference, v, values[v], e.abs, bound, scratch) {
                match kind {
                    "a priori" => out.bound_violations += 1,
                    "sharp a priori" => out.sharp_violations += 1,
                    _ => out.running_violations += 1,
                }
                if out.violations.len() < MAX_REPORTED {
                    out.violations.push(Violation {
                        vertex: v,
                        bound_kind: kind.into(),
                        computed: values[v],
                        reference: x,
                        abs_error: e.abs,
                        bound,
                    });
                }
            }
        }
        if e.abs > bounds.prob[v] {
            out.prob_violations += 1;
        }
        tight.push(tightness(e.abs, bounds.det[v]));
        sharp_tight.push(tightness(e.abs, bounds.sharp[v]));
        if x != 0.0 {
            top = (
                top.0.max(bounds.det[v] / x.abs()),
                top.1.max(bounds.sharp[v] / x.abs()),
            );
        }
    }
    // = the largest bound_lost_bits(bound, x): a second pass over the same nodes takes log2
    // of the ratios near the largest only, and no per-node vector of ratios is kept.
    let near = (near_largest(top.0), near_largest(top.1));
    let mut overflowed = bounds.overflowed.iter().copied().peekable();
    for v in 0..errors.len() {
        let in_order = overflowed.next_if_eq(&(v as u32)).is_some();
        let x = reference.value_f64(v);
        if reference.beyond_f32(v) || in_order || x == 0.0 {
            continue;
        }
        let (det, sharp) = (bounds.det[v] / x.abs(), bounds.sharp[v] / x.abs());
        if det >= near.0 {
            out.max_bound_lost_bits = out.max_bound_lost_bits.max(lost_bits(det));
        }
        if sharp >= near.1 {
            out.max_sharp_lost_bits = out.max_sharp_lost_bits.max(lost_bits(sharp));
        }
    }
    (out.median_tightness, out.max_tightness) = median_max(&mut tight);
    (out.median_sharp_tightness, out.max_sharp_tightness) = median_max(&mut sharp_tight);
    out
}

/// The ratios from which the largest `lost_bits(r)` is found, given the largest ratio `top`:
/// lost_bits is monotone, and libm's log2 (error below 1 ulp) cannot reorder ratios a relative
/// 2^-30 apart — their logarithms differ by ≥ 2^-30/ln 2, thousands of ulps — so log2 is
/// evaluated only for ratios ≥ top·(1 − 2^-30).
fn near_largest(top: f64) -> f64 {
    top * (1.0 - 1.0 / (1u64 << 30) as f64)
}

/// |error| / bound; 0 when the error is 0 (also when the bound is 0), ∞ for an error above a
/// zero bound.
pub fn tightness(abs_error: f64, bound: f64) -> f64 {
    if abs_error == 0.0 {
        0.0
    } else {
        abs_error / bound
    }
}
