//! The vectorial orders' bounds: the scan run on bound values, and the read that bounds the
//! difference of two prefixes without charging the roundings they share.

use super::*;

/// vectorial-compensated's a priori bounds on the float-float value each vertex reads,
/// before its final rounding to f32: |ŝ − s| ≤ (det, sharp) (prob = det). Where this is at
/// most half an ulp of s, the f32 result is within one ulp of s (≤ 1 lost bit).
pub fn compensated_float_float_bounds(tree: &Tree, w: &[f32], op: Op) -> APrioriBounds {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let gammas = GammaTilde::new(LAMBDA);
    let mut reader = vectorial_reader::<DwAdd>(tree, w, Plan::Tiled, op, gammas);
    reader.round_to_f32 = false;
    let mut out = APrioriBounds::with_capacity(tree.len());
    out.extend(euler::read(tree, op, &reader));
    out
}

/// The a priori bounds (deterministic, sharp, probabilistic at `lambda`) of every node of an
/// Euler-tour order: E written with bound values of the arithmetic `R` (f32 or float-float
/// additions), scanned with `plan`, read per vertex.
pub fn vectorial_a_priori<R: Roundoff>(
    tree: &Tree,
    w: &[f32],
    plan: Plan,
    op: Op,
    lambda: f64,
) -> APrioriBounds {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let reader = vectorial_reader::<R>(tree, w, plan, op, GammaTilde::new(lambda));
    let read = euler::read(tree, op, &reader);
    // The scanned tour goes before the bounds are split into their vectors.
    drop(reader);
    let mut out = APrioriBounds::with_capacity(tree.len());
    out.extend(read);
    out
}

/// An Euler-tour order's f32 additions replayed with `plan`, with their running bounds.
pub fn vectorial_running(tree: &Tree, w: &[f32], plan: Plan, op: Op) -> (Vec<f32>, Vec<f64>) {
    let scanned = Scanned::new(plan, euler::write::<Running>(tree, w, op));
    let read = euler::read(tree, op, &scanned);
    drop(scanned);
    read.into_iter().unzip()
}

/// The float-float (compensated) order's additions replayed with `plan`, with their running
/// bounds, the final rounding to f32 included.
pub fn vectorial_running_dw(tree: &Tree, w: &[f32], plan: Plan, op: Op) -> (Vec<f32>, Vec<f64>) {
    let scanned = Scanned::new(plan, euler::write::<RunningDw>(tree, w, op));
    let read = euler::read(tree, op, &scanned);
    drop(scanned);
    read.into_iter().unzip()
}

/// The vectorial orders' a priori reader: the scan on `R`'s bound values, read per vertex.
pub(crate) fn vectorial_reader<R: Roundoff>(
    tree: &Tree,
    w: &[f32],
    plan: Plan,
    op: Op,
    gammas: GammaTilde,
) -> APrioriRead<R> {
    APrioriRead {
        scanned: Scanned::new(plan, euler::write(tree, w, op)),
        sub: match op {
            Op::Rootfix => Vec::new(),
            Op::Leaffix => subtree_magnitudes(tree, w),
        },
        gammas,
        round_to_f32: R::READ_ROUNDS_TO_F32,
    }
}

/// The vectorial read on a priori values: (deterministic, sharp, probabilistic) per vertex.
pub(crate) struct APrioriRead<R: Roundoff> {
    scanned: Scanned<APrioriIn<R>>,
    /// Σ|w| over every subtree (leaffix only).
    sub: Vec<f64>,
    gammas: GammaTilde,
    /// Whether the read rounds the float-float value to f32 ([`Roundoff::READ_ROUNDS_TO_F32`];
    /// false also for [`compensated_float_float_bounds`]).
    round_to_f32: bool,
}

impl<R: Roundoff> APrioriRead<R> {
    /// The bounds of a vertex read from one scanned value `x`. f32: the value itself.
    /// Float-float: rounded once to f32, (1 + u)·B + u·|s|; its probabilistic bound is the
    /// deterministic one (rigorous, so valid under any model). A single term (depth 0: no
    /// addition with a nonzero operand) is (w, 0), whose hi is exact.
    fn read_one(&self, x: &APrioriIn<R>) -> (f64, f64, f64) {
        if !R::READ_ROUNDS_TO_F32 {
            self.gammas.bounds(x)
        } else if self.round_to_f32 && x.depth > 0 {
            let det = round_to_f32(x.err, x.mag);
            (det, round_to_f32(x.sharp, x.abs_bound()), det)
        } else {
            (x.err, x.sharp, x.err)
        }
    }
}

impl<R: Roundoff> ScannedTour for APrioriRead<R> {
    type Out = (f64, f64, f64);
    fn prefix(&self, p: usize) -> Self::Out {
        self.read_one(&self.scanned.out(p))
    }
    fn difference(&self, v: usize, c: usize, before: Option<usize>) -> Self::Out {
        let close = self.scanned.out(c);
        let Some((o, before)) = before
            .map(|o| (o, self.scanned.out(o)))
            .filter(|(_, b)| b.mag != 0.0)
        else {
            // S[open − 1] is an exact zero: the subtraction is exact.
            return self.read_one(&close);
        };
        let sub_v = self.sub[v];
        // (1 + u)(B(S_close) + B(S_open−1)) + u·|l|, |l| ≤ Σ|w| over the subtree, u the unit
        // of R's subtraction; the sharp bound encloses l = S_close − S_open−1 itself and lets
        // the roundings both prefixes share cancel.
        let combine = |d: f64, l: f64| add_up(one_plus_unit_times::<R>(d), R::times(l));
        let l_lo = add_down(close.lo, -before.hi);
        let l_hi = add_up(close.hi, -before.lo);
        let l_abs = l_lo.abs().max(l_hi.abs()).min(sub_v);
        let det = combine(add_up(close.err, before.err), sub_v);
        let sharp = combine(self.scanned.diff_bound(c, o, &close, &before), l_abs);
        if R::READ_ROUNDS_TO_F32 {
            if !self.round_to_f32 {
                return (det, sharp, det);
            }
            // The float-float difference, then its one rounding to f32.
            let det = round_to_f32(det, sub_v);
            return (det, round_to_f32(sharp, l_abs), det);
        }
        let prob = combine(
            add_up(self.gammas.prob(&close), self.gammas.prob(&before)),
            sub_v,
        );
        (det, sharp, prob)
    }
}

/// A summation value whose error is bounded, and the bound of the rounding error of one
/// addition, for [`Scanned::diff_bound`].
pub(crate) trait Charged: ScanValue {
    /// The bound on this value's error (the sharp a priori bound, or the running bound).
    fn bound(&self) -> f64;
    /// A bound on |ε| for out = fl(a + b) = a + b + ε.
    fn step(a: &Self, b: &Self, out: &Self) -> f64;
}

impl<R: Roundoff> Charged for APrioriIn<R> {
    fn bound(&self) -> f64 {
        self.sharp
    }
    /// |ε| ≤ u·|â + b̂| ≤ u·(|a + b| + S_a + S_b); an exact-zero operand makes it exact.
    fn step(a: &Self, b: &Self, out: &Self) -> f64 {
        if a.mag == 0.0 || b.mag == 0.0 {
            0.0
        } else {
            R::times(add_up(out.abs_bound(), add_up(a.sharp, b.sharp)))
        }
    }
}

impl Charged for RunningDw {
    fn bound(&self) -> f64 {
        self.err
    }
    /// |ε| ≤ u_dw/(1 − u_dw)·|ẑ|, 0 when TwoSum proves the dw_add exact.
    fn step(a: &Self, b: &Self, out: &Self) -> f64 {
        RunningDw::local(a.value, b.value, out.value)
    }
}

impl Charged for Running {
    fn bound(&self) -> f64 {
        self.err
    }
    /// |ε| ≤ u·|ŝ|, 0 when TwoSum proves the addition exact.
    fn step(a: &Self, b: &Self, out: &Self) -> f64 {
        if f32_sum_is_exact(a.value, b.value, out.value) {
            0.0
        } else {
            times_u(out.value.abs() as f64)
        }
    }
}

/// A scanned Euler-tour vector, with what is needed to bound the difference of two of its
/// prefixes.
///
/// Every computed partial sum equals its exact value plus the sum of the local rounding
/// errors ε_k of the additions of its own summation tree (addition is linear). So
/// Ŝ_c − Ŝ_o − (S_c − S_o) is the sum of the ε_k of the additions in one tree but not in the
/// other: the roundings both prefixes share cancel exactly. docs/design.md §9.1's
/// (1 + u)(B(S_c) + B(S_o)) charges them twice; [`Scanned::diff_bound`] does not, where the
/// plan makes the sharing evident:
/// - vectorial-seqscan: Ŝ_c is computed from Ŝ_o itself, so only the additions o+1..=c count;
/// - vectorial, both positions in the same tile k ≥ 1: both are `block_prefix[k − 1] + local`
///   with the same block prefix, whose error cancels; what remains is the two tile-local
///   errors and the two uniform-add roundings. (Sharing inside a tile — the Kogge–Stone prefix
///   of a common thread — is not exploited.)
/// - vectorial-chained, positions in tiles k_o < k_c: the block prefix P_{k_c − 1} is computed
///   from P_{k_o − 1} by the chain, so only the chain's charges for tiles k_o..k_c − 1 (each
///   tile total's bound and its chain rounding) remain, with the two tile-local errors and
///   the uniform-add roundings; the same tile is the case above.
pub(super) struct Scanned<T> {
    /// Tiled plan: each position's tile-local value (stages 1 and 2 done) and each tile's
    /// inclusive block total; the outputs (stage 3) are formed when read, [`Scanned::out`].
    /// Sequential scan: the outputs.
    scanned: Vec<T>,
    block: Vec<T>,
    /// Sequential scan: prefix sums of the rounding bounds, rounded up and down. Chained
    /// plan: prefix sums of the chain's charges per tile. Kogge–Stone plan: empty.
    steps_up: Vec<f64>,
    steps_down: Vec<f64>,
    tiled: bool,
}

impl<T: Charged> Scanned<T> {
    pub(super) fn new(plan: Plan, e: Vec<T>) -> Scanned<T> {
        match plan {
            Plan::Tiled => {
                let mut local = e;
                let block = scan_plan::scan_tiles(&mut local);
                Scanned {
                    scanned: local,
                    block,
                    steps_up: Vec::new(),
                    steps_down: Vec::new(),
                    tiled: true,
                }
            }
            Plan::Chained => {
                // The error of P_k is Σ_{j ≤ k} (err T_j + ε_j), ε_j the rounding of
                // P_j = P_{j−1} + T_j: prefix sums of those charges, up and down.
                let mut local = e;
                let (block, totals) = scan_plan::chained_scan_tiles_with_totals(&mut local);
                let (up, down) = prefix_charges((0..block.len()).map(|k| match k {
                    0 => totals[0].bound(),
                    _ => add_up(
                        totals[k].bound(),
                        T::step(&block[k - 1], &totals[k], &block[k]),
                    ),
                }));
                Scanned {
                    scanned: local,
                    block,
                    steps_up: up,
                    steps_down: down,
                    tiled: true,
                }
            }
            Plan::Sequential => {
                // The scan in place (`scan_plan::sequential_scan`'s additions), each step's
                // charge taken as it is made. Position 0 is E[0] itself: no addition.
                let mut out = e;
                let (up, down) = prefix_charges((0..out.len()).map(|k| {
                    if k == 0 {
                        return 0.0;
                    }
                    let term = out[k];
                    out[k] = out[k - 1].plus(term);
                    T::step(&out[k - 1], &term, &out[k])
                }));
                Scanned {
                    scanned: out,
                    block: Vec::new(),
                    steps_up: up,
                    steps_down: down,
                    tiled: false,
                }
            }
        }
    }

    /// The scan's output at position p: exactly the plan's (a test checks).
    #[inline]
    pub(super) fn out(&self, p: usize) -> T {
        if self.tiled {
            scan_plan::uniform_add_at(&self.block, p, self.scanned[p])
        } else {
            self.scanned[p]
        }
    }

    /// A bound on |(Ŝ_c − Ŝ_o) − (S_c − S_o)| for positions o < c, given Ŝ_c = `out_c` and
    /// Ŝ_o = `out_o`.
    fn diff_bound(&self, c: usize, o: usize, out_c: &T, out_o: &T) -> f64 {
        debug_assert!(o < c);
        let full = add_up(out_c.bound(), out_o.bound());
        let shared = if self.tiled {
            let (tile_c, tile_o) = (c / scan_plan::TILE, o / scan_plan::TILE);
            if tile_c == 0 {
                return full;
            }
            let (local_c, local_o) = (&self.scanned[c], &self.scanned[o]);
            let locals = add_up(local_c.bound(), local_o.bound());
            let step_c = T::step(&self.block[tile_c - 1], local_c, out_c);
            let step_o = match tile_o {
                0 => 0.0,
                _ => T::step(&self.block[tile_o - 1], local_o, out_o),
            };
            if tile_o == tile_c {
                // The same block prefix: its error cancels.
                add_up(locals, add_up(step_c, step_o))
            } else if self.steps_up.is_empty() {
                // Kogge–Stone block prefixes: rounded along different paths.
                return full;
            } else {
                // Chained: P_{tile_c − 1} extends P_{tile_o − 1}; only the chain's charges
                // of tiles tile_o..tile_c − 1 differ.
                let chain = match tile_o {
                    0 => self.steps_up[tile_c - 1],
                    _ => add_up(self.steps_up[tile_c - 1], -self.steps_down[tile_o - 1]),
                };
                add_up(chain, add_up(locals, add_up(step_c, step_o)))
            }
        } else {
            // Σ_{o < k ≤ c} step_k ≤ up[c] − down[o], rounded up.
            add_up(self.steps_up[c], -self.steps_down[o])
        };
        full.min(shared)
    }
}

/// Prefix sums of rounding charges, rounded up and down: Σ_{j ≤ k} charge_j enclosed, so
/// that a range's Σ_{o < j ≤ c} is at most up[c] − down[o] rounded up.
pub(crate) fn prefix_charges(charges: impl Iterator<Item = f64>) -> (Vec<f64>, Vec<f64>) {
    let len = charges.size_hint().0;
    let (mut up, mut down) = (Vec::with_capacity(len), Vec::with_capacity(len));
    let (mut u, mut d) = (0.0, 0.0);
    for charge in charges {
        u = add_up(u, charge);
        d = add_down(d, charge);
        up.push(u);
        down.push(d);
    }
    (up, down)
}

/// What taking hi of a normalized float-float value costs: exactly |lo| (∞ after an
/// overflow, where lo is NaN).
#[inline]
pub(crate) fn lo_charge(lo: f32) -> f64 {
    if lo.is_nan() {
        f64::INFINITY
    } else {
        lo.abs() as f64
    }
}

/// The compensated read on running values: (f32 result as the twin computes it, bound).
/// Taking hi of a normalized float-float ŝ errs by exactly |lo| (hi + lo = ŝ), so the final
/// rounding is charged |lo| — 0 when it is exact.
impl ScannedTour for Scanned<RunningDw> {
    type Out = (f32, f64);
    fn prefix(&self, p: usize) -> Self::Out {
        let x = self.out(p);
        (x.value.hi, add_up_nonneg(x.err, lo_charge(x.value.lo)))
    }
    fn difference(&self, _v: usize, c: usize, before: Option<usize>) -> Self::Out {
        let close = self.out(c);
        let Some(o) = before else {
            return (
                close.value.hi,
                add_up_nonneg(close.err, lo_charge(close.value.lo)),
            );
        };
        let before = self.out(o);
        // As the twin: dw_add(S_close, −S_open−1), then hi.
        let minus = -before.value;
        let d = dw_add(close.value, minus);
        // The shared roundings of both prefixes cancel (Scanned).
        let err = add_up_nonneg(
            self.diff_bound(c, o, &close, &before),
            RunningDw::local(close.value, minus, d),
        );
        (d.hi, add_up_nonneg(err, lo_charge(d.lo)))
    }
}

/// The vectorial read on running values: (f32 value as the twin computes it, bound).
impl ScannedTour for Scanned<Running> {
    type Out = (f32, f64);
    fn prefix(&self, p: usize) -> Self::Out {
        let x = self.out(p);
        (x.value, x.err)
    }
    fn difference(&self, _v: usize, c: usize, before: Option<usize>) -> Self::Out {
        let close = self.out(c);
        let Some(o) = before else {
            // As the twin: S[close] − S[−1] with S[−1] = 0, an exact subtraction.
            return (close.value - 0.0, close.err);
        };
        let before = self.out(o);
        let s = close.value - before.value;
        // The shared roundings of both prefixes cancel (Scanned).
        let d = self.diff_bound(c, o, &close, &before);
        let local = if f32_sum_is_exact(close.value, -before.value, s) {
            0.0
        } else {
            times_u(s.abs() as f64)
        };
        (s, add_up(d, local))
    }
}
