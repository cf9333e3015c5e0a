//! Measured errors against their bounds: violations, overflow, tightness, bound lost bits.

use super::*;
use crate::stats::Ranks;

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

/// Whether the exact error of `computed` at node v exceeds `bound`: the one rule by which every
/// bound is judged (our algorithms' and `score`'s order-free ones). The f64 error `abs` is the
/// exact error rounded to nearest, which is monotone: abs < bound ⇒ exact ≤ bound and
/// abs > bound ⇒ exact > bound; only abs = bound needs the exact comparison (against a
/// double-double reference, which has no exact value, a tie is within).
pub fn exceeds(
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
    if abs == 0.0 {
        // The exact error is a multiple of 2^-149 (so is every f32 and every exact sum of
        // them): it rounds to 0 only if it is 0, which no bound is below.
        return false;
    }
    match reference {
        Reference::Exact(sums) => {
            (ExactSum::from_f32(computed) - sums.exact.get(v))
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
    let mut tally = Tally::default();
    let mut overflowed = bounds.overflowed.iter().copied().peekable();
    for (v, e) in errors.iter().enumerate() {
        let in_order = overflowed.next_if_eq(&(v as u32)).is_some();
        let x = reference.roundings(v);
        tally.node(reference, bounds, (v, values[v], e, in_order), x, scratch);
    }
    tally.finish(errors, bounds, &mut Ranks::with_capacity(errors.len()))
}

/// The rigorous bounds a node is checked against.
#[derive(Debug, Clone, Copy)]
enum Bound {
    APriori,
    Sharp,
    Running,
}

impl Bound {
    /// As [`Violation::bound_kind`] names it.
    fn name(self) -> &'static str {
        match self {
            Bound::APriori => "a priori",
            Bound::Sharp => "sharp a priori",
            Bound::Running => "running",
        }
    }
}

/// The counts of [`BoundSummary`] over some nodes, taken node by node (in vertex order, or
/// in ranges of it merged in order), and what the finishing pass needs.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    bound_violations: usize,
    sharp_violations: usize,
    running_violations: usize,
    prob_violations: usize,
    violations: Vec<Violation>,
    overflow: Overflow,
    /// The nodes whose exact value lies beyond f32's range, ascending.
    beyond: Vec<u32>,
    /// The largest bound / |x| (deterministic, sharp) over the counted nodes with x ≠ 0.
    top: (f64, f64),
    /// The largest `lost_bits` of those ratios (deterministic, sharp), taken of the ratios
    /// near the largest one so far ([`near_largest`]): those near the final largest are
    /// among them, and the others lie below it by more than log2 can reorder.
    bits: (f64, f64),
}

impl Tally {
    /// Node v, its value, its error and whether a partial sum of the order overflowed there,
    /// with its reference's [`Reference::roundings`] `(x, x32)`.
    pub(crate) fn node(
        &mut self,
        reference: &Reference,
        bounds: &NodeBounds,
        (v, value, e, in_order): (usize, f32, &NodeError, bool),
        (x, x32): (f64, f32),
        scratch: &mut Float,
    ) {
        // Beyond f32's range exactly when its correct rounding is ±∞.
        if x32.is_infinite() {
            self.overflow.beyond_range += 1;
            self.beyond.push(v as u32);
            return;
        }
        if in_order {
            self.overflow.partial_sum += 1;
            return;
        }
        let mut check = |kind: Bound, bound: f64| {
            if exceeds(reference, v, value, e.abs, bound, scratch) {
                *match kind {
                    Bound::APriori => &mut self.bound_violations,
                    Bound::Sharp => &mut self.sharp_violations,
                    Bound::Running => &mut self.running_violations,
                } += 1;
                if self.violations.len() < MAX_REPORTED {
                    self.violations.push(Violation {
                        vertex: v,
                        bound_kind: kind.name().into(),
                        computed: value,
                        reference: x,
                        abs_error: e.abs,
                        bound,
                    });
                }
            }
        };
        let b = bounds[v];
        check(Bound::APriori, b.det);
        check(Bound::Sharp, b.sharp);
        check(Bound::Running, b.running);
        if e.abs > b.prob {
            self.prob_violations += 1;
        }
        if x != 0.0 {
            let (det, sharp) = (b.det / x.abs(), b.sharp / x.abs());
            self.top = (self.top.0.max(det), self.top.1.max(sharp));
            let bits = |r: f64, top: f64, bits: f64| {
                if r >= near_largest(top) {
                    bits.max(lost_bits(r))
                } else {
                    bits
                }
            };
            self.bits = (
                bits(det, self.top.0, self.bits.0),
                bits(sharp, self.top.1, self.bits.1),
            );
        }
    }

    /// This tally followed by `later`'s, whose nodes come after this one's.
    pub(crate) fn then(mut self, later: Tally) -> Tally {
        self.bound_violations += later.bound_violations;
        self.sharp_violations += later.sharp_violations;
        self.running_violations += later.running_violations;
        self.prob_violations += later.prob_violations;
        let room = MAX_REPORTED - self.violations.len();
        self.violations
            .extend(later.violations.into_iter().take(room));
        self.overflow.beyond_range += later.overflow.beyond_range;
        self.overflow.partial_sum += later.overflow.partial_sum;
        self.beyond.extend(later.beyond);
        self.top = (self.top.0.max(later.top.0), self.top.1.max(later.top.1));
        self.bits = (self.bits.0.max(later.bits.0), self.bits.1.max(later.bits.1));
        self
    }

    /// The summary of every node tallied: the tightness medians need a pass of their own over
    /// the counted nodes, `buf` (reused, one f64 per node) holding the ratios of one median at
    /// a time, counted for the selection as they are gathered.
    pub(crate) fn finish(
        self,
        errors: &[NodeError],
        bounds: &NodeBounds,
        buf: &mut Ranks,
    ) -> BoundSummary {
        let none_overflowed = bounds.overflowed.is_empty();
        let none_beyond = self.beyond.is_empty();
        let counted = |v: usize| {
            (none_beyond || self.beyond.binary_search(&(v as u32)).is_err())
                && (none_overflowed || bounds.overflowed.binary_search(&(v as u32)).is_err())
        };
        let mut median_max_of = |bound: fn(&FourBounds) -> f64| {
            buf.fill(
                errors
                    .iter()
                    .enumerate()
                    .filter(|&(v, _)| counted(v))
                    .map(|(v, e)| tightness(e.abs, bound(&bounds[v]))),
            );
            buf.median_max()
        };
        let (median_tightness, max_tightness) = median_max_of(|b| b.det);
        let (median_sharp_tightness, max_sharp_tightness) = median_max_of(|b| b.sharp);
        let (max_bound_lost_bits, max_sharp_lost_bits) = self.bits;
        BoundSummary {
            bound_violations: self.bound_violations,
            sharp_violations: self.sharp_violations,
            running_violations: self.running_violations,
            prob_violations: self.prob_violations,
            median_tightness,
            max_tightness,
            max_bound_lost_bits,
            max_sharp_lost_bits,
            median_sharp_tightness,
            max_sharp_tightness,
            violations: self.violations,
            overflow: self.overflow,
        }
    }
}

/// The ratios from which the largest `lost_bits(r)` is found, given the largest ratio `top`:
/// lost_bits is monotone, and libm's log2 (error below 1 ulp) cannot reorder ratios a relative
/// 2^-30 apart — their logarithms differ by ≥ 2^-30/ln 2, thousands of ulps — so log2 is
/// evaluated only for ratios ≥ top·(1 − 2^-30). A ratio near a smaller top than the final
/// one may be evaluated too: it lies at or below the final top, so its lost bits do not
/// exceed the final top's.
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
