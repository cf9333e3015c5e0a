//! The vectorial orders' bounds: the Euler tour written and scanned on bound values
//! ([`Scan`]) and read per vertex as the scan goes, rootfix `S[open v]`, leaffix
//! `S[close v] − S[open v − 1]`.
//!
//! Leaffix reads position open v − 1 long before close v. What the difference needs of it
//! ([`Before`]) is kept on a stack while v is open: Euler-tour intervals nest, so the open
//! vertices are a root path and close in the reverse of their opening order. The memory is
//! the batch and that path, not the tour.

use super::*;
use rayon::prelude::*;

/// How a vertex's bounds are read from the scanned tour.
pub(super) trait TourRead<T: Charged>: Sync {
    /// What the read yields per vertex.
    type Out: Copy + Send;
    /// Rootfix: from `S[open v]`.
    fn prefix(&self, x: &T) -> Self::Out;
    /// Leaffix of vertex v, whose rank in postorder (the order of the tour's closes) is
    /// `rank`: from `S[close v]` and `S[open v − 1]` (`None`: v opens the tour, S[−1] = 0),
    /// with the bound on the difference's error that cancels what both prefixes share
    /// ([`Scan::diff_bound`]).
    fn difference(
        &self,
        rank: usize,
        close: &T,
        before: Option<&T>,
        diff_bound: impl Fn() -> T::Charge,
    ) -> Self::Out;
}

/// Two readers of two values walked together through one scan: each reads its own value,
/// exactly as alone, and the bound on a difference is formed once for both.
pub(super) struct TwoReads<RA, RB>(pub(super) RA, pub(super) RB);

impl<A: Charged, B: Charged, RA: TourRead<A>, RB: TourRead<B>> TourRead<(A, B)>
    for TwoReads<RA, RB>
{
    type Out = (RA::Out, RB::Out);
    #[inline]
    fn prefix(&self, x: &(A, B)) -> Self::Out {
        (self.0.prefix(&x.0), self.1.prefix(&x.1))
    }
    #[inline]
    fn difference(
        &self,
        rank: usize,
        close: &(A, B),
        before: Option<&(A, B)>,
        diff_bound: impl Fn() -> (A::Charge, B::Charge),
    ) -> Self::Out {
        // The bound on the difference exists only with a position before: formed once.
        let d = before.map(|_| diff_bound());
        let d = || d.expect("a difference bound is asked for only with a position before");
        (
            self.0
                .difference(rank, &close.0, before.map(|b| &b.0), || d().0),
            self.1
                .difference(rank, &close.1, before.map(|b| &b.1), || d().1),
        )
    }
}

/// Writes E from `tour` (the weights by position) with bound values of `T` (rootfix
/// `E[open v] = w`, `E[close v] = −w`; leaffix `E[open v] = w`, `E[close v] = 0`, as
/// [`crate::orders::euler::write`]), scans it with `plan` and reads every vertex with
/// `reader`, giving each its result by `emit(v, out)`; `batch_tiles` tiles of the scan at a
/// time ([`batch_tiles`]; the result does not depend on it).
pub(super) fn read_tour<T: Charged, Rd: TourRead<T>>(
    (tree, tour): (&Tree, &TourVertices),
    (op, plan): (Op, Plan),
    reader: &Rd,
    batch_tiles: usize,
    mut emit: impl FnMut(usize, Rd::Out),
) {
    let close = tree.close();
    let len = 2 * tree.len();
    assert_eq!(tour.len(), len, "the tour of this tree");
    let opens = |p: usize| tour.opens(p);
    let term = |p: usize| match (opens(p), op) {
        (true, _) => T::term(tour.weight(p)),
        (false, Op::Rootfix) => T::term(-tour.weight(p)),
        (false, Op::Leaffix) => T::zero(),
    };
    let scan = Scan::new(plan, len, &term);
    // S[open u − 1] of the vertices u open at the end of the batches so far, ascending by
    // position (so descending by close): a root path, at most height + 1 of them.
    let mut open_path: Vec<Before<T>> = match op {
        Op::Rootfix => Vec::new(),
        Op::Leaffix => Vec::with_capacity(tree.height() as usize + 1),
    };
    let opened_after = |b: &Before<T>| tour.vertex(b.p + 1);
    // Leaffix: the closes before position p, the postorder rank of the next vertex closed,
    // from the tree alone: the positions before p hold both ends of every vertex closed
    // before it and the opens of the vertices still open, the root path of the vertex u at
    // p: depth(u) of them where p opens u, depth(u) + 1 where it closes u (the floor of the
    // half drops that one).
    let depth = tree.depths();
    let closes_before = |p: usize| (p - depth[tour.vertex(p)] as usize) / 2;
    // The positions of the vertices opened in a batch and not closed yet, ascending.
    let mut opened: Vec<usize> = Vec::new();
    // The reads of a batch's positions, each tile's made by a task of its own, then given
    // out in order.
    let mut reads: Vec<Option<(u32, Rd::Out)>> = Vec::new();
    scan.for_each_batch(&term, batch_tiles, |start, batch| {
        let end = start + batch.len();
        let before = |o: usize| match o.checked_sub(start) {
            Some(i) => scan.before(o, &batch[i]),
            None => open_path[open_path.partition_point(|b| b.p < o)],
        };
        reads.resize(batch.len(), None);
        reads
            .par_chunks_mut(scan_plan::TILE)
            .zip(batch.par_chunks(scan_plan::TILE))
            .enumerate()
            .for_each(|(k, (reads, batch))| {
                let first = start + k * scan_plan::TILE;
                // Leaffix: the postorder rank of the next vertex closed.
                let mut rank = closes_before(first);
                for (i, (read, at)) in reads.iter_mut().zip(batch).enumerate() {
                    let p = first + i;
                    let v = tour.vertex(p);
                    *read = match (op, opens(p)) {
                        (Op::Rootfix, true) => Some(reader.prefix(&at.out)),
                        (Op::Leaffix, false) => {
                            let r = rank;
                            rank += 1;
                            debug_assert_eq!(
                                tree.postorder()[r] as usize,
                                v,
                                "closes in postorder"
                            );
                            Some(match tour.open_of(p).checked_sub(1) {
                                None => reader.difference(r, &at.out, None, || unreachable!()),
                                Some(o) => {
                                    let b = before(o);
                                    reader.difference(r, &at.out, Some(&b.out), || {
                                        scan.diff_bound(p, at, &b)
                                    })
                                }
                            })
                        }
                        _ => None,
                    }
                    .map(|out| (v as u32, out));
                }
            });
        for &(v, out) in reads.iter().flatten() {
            emit(v as usize, out);
        }
        if op == Op::Leaffix {
            // Drop the vertices closed in this batch (the top of the path), then add those
            // opened after a position of this batch and still open.
            let still_open = open_path.partition_point(|b| close[opened_after(b)] as usize >= end);
            open_path.truncate(still_open);
            // The vertices opened at start + 1 ..= end and open past the batch, found in
            // sequence: Euler-tour intervals nest, so a close inside the batch closes the
            // last vertex opened in it and not closed yet, if there is one (the vertex opened
            // at `start` belongs to the batch before, whose last position precedes it).
            opened.clear();
            for p in start + 1..end {
                if opens(p) {
                    opened.push(p);
                } else {
                    opened.pop();
                }
            }
            if end < len && opens(end) {
                opened.push(end);
            }
            for &q in &opened {
                open_path.push(scan.before(q - 1, &batch[q - 1 - start]));
            }
        }
    });
}

/// vectorial-compensated's a priori bounds on the float-float value each vertex reads,
/// before its final rounding to f32: |ŝ − s| ≤ (det, sharp) (prob = det). Where this is at
/// most half an ulp of s, the f32 result is within one ulp of s (≤ 1 lost bit).
pub fn compensated_float_float_bounds(tree: &Tree, w: &[f32], op: Op) -> APrioriBounds {
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let tour = TourVertices::new(tree, w);
    let mut reader = APrioriRead::<DwAdd>::new(&tour, op, GammaTilde::new(LAMBDA));
    reader.round_to_f32 = false;
    read_a_priori((tree, &tour), op, Plan::Tiled, &reader)
}

fn read_a_priori<R: Roundoff>(
    (tree, tour): (&Tree, &TourVertices),
    op: Op,
    plan: Plan,
    reader: &APrioriRead<R>,
) -> APrioriBounds {
    let n = tree.len();
    let mut out = APrioriBounds {
        det: vec![0.0; n],
        sharp: vec![0.0; n],
        prob: vec![0.0; n],
    };
    read_tour(
        (tree, tour),
        (op, plan),
        reader,
        batch_tiles(),
        |v, (det, sharp, prob)| {
            out.det[v] = det;
            out.sharp[v] = sharp;
            out.prob[v] = prob;
        },
    );
    out
}

/// The vectorial read on a priori values: (deterministic, sharp, probabilistic) per vertex.
pub(crate) struct APrioriRead<R: Roundoff, S: Store = Kept> {
    /// Σ|w| over every subtree, in postorder (leaffix only).
    sub: Vec<f64>,
    gammas: GammaTilde,
    /// Whether the read rounds the float-float value to f32 ([`Roundoff::READ_ROUNDS_TO_F32`];
    /// false also for [`compensated_float_float_bounds`]).
    round_to_f32: bool,
    /// The store to the storage format after the read ([`Kept`]: none).
    store: S,
    roundoff: PhantomData<R>,
}

impl<R: Roundoff> APrioriRead<R> {
    pub(super) fn new(tour: &TourVertices, op: Op, gammas: GammaTilde) -> Self {
        APrioriRead {
            sub: match op {
                Op::Rootfix => Vec::new(),
                Op::Leaffix => subtree_magnitudes_on_tour(tour),
            },
            gammas,
            round_to_f32: R::READ_ROUNDS_TO_F32,
            store: Kept,
            roundoff: PhantomData,
        }
    }

    /// The same read, each result then stored as `store` says.
    pub(super) fn stored<S2: Store>(self, store: S2) -> APrioriRead<R, S2> {
        APrioriRead {
            sub: self.sub,
            gammas: self.gammas,
            round_to_f32: self.round_to_f32,
            store,
            roundoff: PhantomData,
        }
    }
}

impl<R: Roundoff, S: Store> APrioriRead<R, S> {
    /// The bounds of a vertex read from one scanned value `x`. f32: the value itself.
    /// Float-float: rounded once to f32, (1 + u)·B + u·|s|; its probabilistic bound is the
    /// deterministic one (rigorous, so valid under any model). A single term (depth 0: no
    /// addition with a nonzero operand) is (w, 0), whose hi is exact.
    fn read_one(&self, x: &APrioriIn<R>) -> (f64, f64, f64) {
        self.store.after(self.read_one_unstored(x), || {
            let raised = x.raised();
            (raised.mag_up(), raised.abs_bound())
        })
    }

    fn read_one_unstored(&self, x: &APrioriIn<R>) -> (f64, f64, f64) {
        if !R::READ_ROUNDS_TO_F32 {
            self.gammas.bounds(x)
        } else if self.round_to_f32 && x.depth > 0 {
            let det = round_to_f32(x.err_up(), x.mag_up());
            (det, round_to_f32(x.sharp_up(), x.abs_bound()), det)
        } else {
            (x.err_up(), x.sharp_up(), x.err_up())
        }
    }
}

impl<R: Roundoff, S: Store> TourRead<APrioriIn<R>> for APrioriRead<R, S> {
    type Out = (f64, f64, f64);
    fn prefix(&self, x: &APrioriIn<R>) -> Self::Out {
        self.read_one(x)
    }
    fn difference(
        &self,
        rank: usize,
        close: &APrioriIn<R>,
        before: Option<&APrioriIn<R>>,
        diff_bound: impl Fn() -> f64,
    ) -> Self::Out {
        let Some(before) = before.filter(|b| b.mag != 0.0) else {
            // S[open − 1] is an exact zero: the subtraction is exact.
            return self.read_one(close);
        };
        let sub_v = self.sub[rank];
        // (1 + u)(B(S_close) + B(S_open−1)) + u·|l|, |l| ≤ Σ|w| over the subtree, u the unit
        // of R's subtraction; the sharp bound encloses l = S_close − S_open−1 itself and lets
        // the roundings both prefixes share cancel.
        let combine = |d: f64, l: f64| add_up(one_plus_unit_times::<R>(d), R::times(l));
        let (close, before) = (close.raised(), before.raised());
        let ((close_lo, close_hi), (before_lo, before_hi)) =
            (close.enclosure(), before.enclosure());
        let l_lo = add_down(close_lo, -before_hi);
        let l_hi = add_up(close_hi, -before_lo);
        let l_abs = l_lo.abs().max(l_hi.abs()).min(sub_v);
        let det = combine(add_up(close.err_up(), before.err_up()), sub_v);
        let sharp = combine(diff_bound(), l_abs);
        let bounds = if R::READ_ROUNDS_TO_F32 {
            if !self.round_to_f32 {
                (det, sharp, det)
            } else {
                // The float-float difference, then its one rounding to f32.
                let det = round_to_f32(det, sub_v);
                (det, round_to_f32(sharp, l_abs), det)
            }
        } else {
            let prob = combine(
                add_up(self.gammas.prob(&close), self.gammas.prob(&before)),
                sub_v,
            );
            (det, sharp, prob)
        };
        self.store.after(bounds, || (sub_v, l_abs))
    }
}

/// The vectorial read on running values: the result in the accumulation format as the twin
/// computes it, and its bound.
pub(super) struct ReadRunning;

impl<T: Stored> TourRead<RunningIn<T>> for ReadRunning {
    type Out = (T, f64);
    fn prefix(&self, x: &RunningIn<T>) -> Self::Out {
        (x.value, x.err_up())
    }
    fn difference(
        &self,
        _rank: usize,
        close: &RunningIn<T>,
        before: Option<&RunningIn<T>>,
        diff_bound: impl Fn() -> f64,
    ) -> Self::Out {
        let Some(before) = before else {
            // As the twin: S[close] − S[−1] with S[−1] = 0, an exact subtraction.
            return (close.value.minus(T::zero()), close.err_up());
        };
        let s = close.value.minus(before.value);
        // The shared roundings of both prefixes cancel (Scan::diff_bound).
        let d = diff_bound();
        let local = if T::sum_is_exact(close.value, before.value.neg(), s) {
            0.0
        } else {
            local_charge(s)
        };
        (s, add_up(d, local))
    }
}

/// The compensated read on running values: (f32 result as the twin computes it, bound).
/// Taking hi of a normalized float-float ŝ errs by exactly |lo| (hi + lo = ŝ), so the final
/// rounding is charged |lo| — 0 when it is exact.
impl TourRead<RunningDw> for ReadRunning {
    type Out = (f32, f64);
    fn prefix(&self, x: &RunningDw) -> Self::Out {
        (x.value.hi, add_up_nonneg(x.err, lo_charge(x.value.lo)))
    }
    fn difference(
        &self,
        _rank: usize,
        close: &RunningDw,
        before: Option<&RunningDw>,
        diff_bound: impl Fn() -> f64,
    ) -> Self::Out {
        let Some(before) = before else {
            return self.prefix(close);
        };
        // As the twin: dw_add(S_close, −S_open−1), then hi.
        let minus = -before.value;
        let d = dw_add(close.value, minus);
        // The shared roundings of both prefixes cancel (Scan::diff_bound).
        let err = add_up_nonneg(diff_bound(), RunningDw::local(close.value, minus, d));
        (d.hi, add_up_nonneg(err, lo_charge(d.lo)))
    }
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
