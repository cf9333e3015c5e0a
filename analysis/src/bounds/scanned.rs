//! The vectorial orders' scan on bound values, streamed: the Euler-tour vector's scan is
//! formed a batch of tiles at a time and read as it goes, so the scanned tour (48 bytes per
//! position for the a priori values, two positions per vertex) is never held whole; and the
//! bound on the difference of two prefixes that does not charge the roundings they share.

use super::*;
use rayon::prelude::*;

/// Rounding-error charges, summed with upward (and, for the lower ends of enclosures,
/// downward) rounding: one bound's (f64), or several bounds' carried side by side through
/// the same scan (a pair), each exactly as alone.
pub(crate) trait Charge: Copy + Send + Sync + std::fmt::Debug {
    const ZERO: Self;
    fn add_up(self, rhs: Self) -> Self;
    fn add_down(self, rhs: Self) -> Self;
    /// self − rhs rounded upward.
    fn sub_up(self, rhs: Self) -> Self;
    fn min(self, rhs: Self) -> Self;
}

impl Charge for f64 {
    const ZERO: f64 = 0.0;
    #[inline]
    fn add_up(self, rhs: f64) -> f64 {
        add_up(self, rhs)
    }
    #[inline]
    fn add_down(self, rhs: f64) -> f64 {
        add_down(self, rhs)
    }
    #[inline]
    fn sub_up(self, rhs: f64) -> f64 {
        add_up(self, -rhs)
    }
    #[inline]
    fn min(self, rhs: f64) -> f64 {
        f64::min(self, rhs)
    }
}

impl<A: Charge, B: Charge> Charge for (A, B) {
    const ZERO: Self = (A::ZERO, B::ZERO);
    #[inline]
    fn add_up(self, rhs: Self) -> Self {
        (self.0.add_up(rhs.0), self.1.add_up(rhs.1))
    }
    #[inline]
    fn add_down(self, rhs: Self) -> Self {
        (self.0.add_down(rhs.0), self.1.add_down(rhs.1))
    }
    #[inline]
    fn sub_up(self, rhs: Self) -> Self {
        (self.0.sub_up(rhs.0), self.1.sub_up(rhs.1))
    }
    #[inline]
    fn min(self, rhs: Self) -> Self {
        (self.0.min(rhs.0), self.1.min(rhs.1))
    }
}

/// A summation value whose error is bounded, and the bound of the rounding error of one
/// addition, for [`Scan::diff_bound`].
pub(crate) trait Charged: ScanValue {
    /// The bounds it carries: one f64, or a pair for two values walked together.
    type Charge: Charge;
    /// The bound on this value's error (the sharp a priori bound, or the running bound).
    fn bound(&self) -> Self::Charge;
    /// A bound on |ε| for out = fl(a + b) = a + b + ε.
    fn step(a: &Self, b: &Self, out: &Self) -> Self::Charge;
}

impl<R: Roundoff> Charged for APrioriIn<R> {
    type Charge = f64;
    fn bound(&self) -> f64 {
        self.sharp_up()
    }
    /// |ε| ≤ u·|â + b̂| ≤ u·(|a + b| + S_a + S_b); an exact-zero operand makes it exact.
    fn step(a: &Self, b: &Self, out: &Self) -> f64 {
        if a.mag == 0.0 || b.mag == 0.0 {
            0.0
        } else {
            R::times(add_up(
                out.raised().abs_bound(),
                add_up(a.sharp_up(), b.sharp_up()),
            ))
        }
    }
}

impl Charged for RunningDw {
    type Charge = f64;
    fn bound(&self) -> f64 {
        self.err
    }
    /// |ε| ≤ u_dw/(1 − u_dw)·|ẑ|, 0 when TwoSum proves the dw_add exact.
    fn step(a: &Self, b: &Self, out: &Self) -> f64 {
        RunningDw::local(a.value, b.value, out.value)
    }
}

impl<T: Stored> Charged for RunningIn<T> {
    type Charge = f64;
    fn bound(&self) -> f64 {
        self.err_up()
    }
    /// |ε| ≤ u·|ŝ|, 0 when TwoSum proves the addition exact.
    fn step(a: &Self, b: &Self, out: &Self) -> f64 {
        if T::sum_is_exact(a.value, b.value, out.value) {
            0.0
        } else {
            local_charge(out.value)
        }
    }
}

/// Two values walked through the same order at once (the running replay beside the a
/// priori values): each charged exactly as alone.
impl<A: Charged, B: Charged> Charged for (A, B) {
    type Charge = (A::Charge, B::Charge);
    #[inline]
    fn bound(&self) -> Self::Charge {
        (self.0.bound(), self.1.bound())
    }
    #[inline]
    fn step(a: &Self, b: &Self, out: &Self) -> Self::Charge {
        (A::step(&a.0, &b.0, &out.0), B::step(&a.1, &b.1, &out.1))
    }
}

/// Tiles scanned per batch: a few per thread, so that every thread scans tiles at once, and
/// few enough that a batch (160 bytes per position for the a priori values) stays small
/// beside the per-vertex arrays: 8 tiles, 1.3 MB, on 2 threads.
pub(crate) fn batch_tiles() -> usize {
    4 * rayon::current_num_threads()
}

/// The scan at one position p, as the read sees it.
#[derive(Debug, Clone, Copy)]
pub(super) struct At<T: Charged> {
    /// The scan's output Ŝ[p], exactly the plan's (a test checks).
    pub(super) out: T,
    /// Tiled plans: the tile-local value (stages 1 and 2 done, before the uniform add).
    /// Sequential scan: the output again.
    local: T,
    /// Sequential scan: the prefix sums of the additions' rounding charges through p, rounded
    /// up and down.
    up: T::Charge,
    down: T::Charge,
}

/// What a later difference Ŝ[c] − Ŝ[o] needs of the earlier position o: kept while the
/// vertex whose open − 1 it is stays open (on a chain, every vertex at once: so it is small).
#[derive(Debug, Clone, Copy)]
pub(super) struct Before<T: Charged> {
    pub(super) out: T,
    pub(super) p: usize,
    /// Tiled plans: the tile-local value's bound. Sequential scan: the rounding charges
    /// through p, rounded down ([`At::down`]).
    local_or_down: T::Charge,
    /// Tiled plans: the uniform add's rounding charge (0 in tile 0, which has none).
    step: T::Charge,
}

/// The scan of a vector of `len` terms with `plan`, formed batch by batch.
///
/// Every computed partial sum equals its exact value plus the sum of the local rounding
/// errors ε_k of the additions of its own summation tree (addition is linear). So
/// Ŝ_c − Ŝ_o − (S_c − S_o) is the sum of the ε_k of the additions in one tree but not in the
/// other: the roundings both prefixes share cancel exactly. docs/design.md §9.1's
/// (1 + u)(B(S_c) + B(S_o)) charges them twice; [`Scan::diff_bound`] does not, where the
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
pub(super) struct Scan<T: Charged> {
    plan: Plan,
    len: usize,
    /// Tiled plans: the block prefixes (stage 2 on the tile totals; empty for one tile).
    blocks: Vec<T>,
    /// Chained plan: prefix sums of the chain's charges per tile, rounded up and down.
    chain_up: Vec<T::Charge>,
    chain_down: Vec<T::Charge>,
}

impl<T: Charged> Scan<T> {
    /// Stages 1 and 2 of a tiled plan, the tile scans reduced to their totals
    /// ([`scan_plan::tile_total`]): the block prefixes every batch adds. `term(p)` is the
    /// vector's term at position p.
    pub(super) fn new(plan: Plan, len: usize, term: &(impl Fn(usize) -> T + Sync)) -> Scan<T> {
        let mut scan = Scan {
            plan,
            len,
            blocks: Vec::new(),
            chain_up: Vec::new(),
            chain_down: Vec::new(),
        };
        if plan == Plan::Sequential || len <= scan_plan::TILE {
            return scan;
        }
        let totals: Vec<T> = (0..len.div_ceil(scan_plan::TILE))
            .into_par_iter()
            .map_init(Vec::new, |tile, k| {
                fill(
                    tile,
                    k * scan_plan::TILE..len.min((k + 1) * scan_plan::TILE),
                    term,
                );
                scan_plan::tile_total(tile)
            })
            .collect();
        scan.blocks = match plan {
            Plan::Tiled => {
                let mut blocks = totals;
                scan_plan::inclusive_scan(&mut blocks);
                blocks
            }
            _ => {
                // The chain's charges read the totals before their scan.
                let mut blocks = totals.clone();
                scan_plan::sequential_scan(&mut blocks);
                // The error of P_k is Σ_{j ≤ k} (err T_j + ε_j), ε_j the rounding of
                // P_j = P_{j−1} + T_j: prefix sums of those charges, up and down.
                (scan.chain_up, scan.chain_down) =
                    prefix_charges((0..blocks.len()).map(|k| match k {
                        0 => totals[0].bound(),
                        _ => totals[k].bound().add_up(T::step(
                            &blocks[k - 1],
                            &totals[k],
                            &blocks[k],
                        )),
                    }));
                blocks
            }
        };
        scan
    }

    /// Forms the scan batch by batch, in order: `visit(start, positions)` gets positions
    /// start.. of the scan, `batch_tiles` tiles at a time (the tiles of a batch scanned in
    /// parallel, each exactly as alone).
    pub(super) fn for_each_batch(
        &self,
        term: &(impl Fn(usize) -> T + Sync),
        batch_tiles: usize,
        mut visit: impl FnMut(usize, &[At<T>]),
    ) {
        let batch = batch_tiles.max(1) * scan_plan::TILE;
        let mut locals: Vec<T> = Vec::with_capacity(batch.min(self.len));
        let mut at: Vec<At<T>> = Vec::with_capacity(batch.min(self.len));
        // The sequential scan's state: the last output and the charges through it.
        let mut carried: Option<(T, T::Charge, T::Charge)> = None;
        for start in (0..self.len).step_by(batch) {
            let end = self.len.min(start + batch);
            if self.plan == Plan::Sequential {
                fill(&mut locals, start..end, term);
                at.clear();
                // The scan in place (`scan_plan::sequential_scan`'s additions), each step's
                // charge taken as it is made. Position 0 is E[0] itself: no addition.
                for &x in &locals {
                    let (out, up, down) = match carried {
                        None => (x, T::Charge::ZERO, T::Charge::ZERO),
                        Some((prev, up, down)) => {
                            let out = prev.plus(x);
                            let charge = T::step(&prev, &x, &out);
                            (out, up.add_up(charge), down.add_down(charge))
                        }
                    };
                    carried = Some((out, up, down));
                    at.push(At {
                        out,
                        local: out,
                        up,
                        down,
                    });
                }
            } else {
                // One task per tile: its terms, its scan, its uniform add. The buffers keep
                // their length from batch to batch, so only a shorter last batch resizes.
                let zero = T::zero();
                let unset = At {
                    out: zero,
                    local: zero,
                    up: T::Charge::ZERO,
                    down: T::Charge::ZERO,
                };
                locals.resize(end - start, zero);
                at.resize(end - start, unset);
                locals
                    .par_chunks_mut(scan_plan::TILE)
                    .zip(at.par_chunks_mut(scan_plan::TILE))
                    .enumerate()
                    .for_each(|(k, (tile, at))| {
                        let first = start + k * scan_plan::TILE;
                        for (i, x) in tile.iter_mut().enumerate() {
                            *x = term(first + i);
                        }
                        scan_plan::scan_tile(tile);
                        for (i, (&local, a)) in tile.iter().zip(at).enumerate() {
                            a.out = scan_plan::uniform_add_at(&self.blocks, first + i, local);
                            a.local = local;
                        }
                    });
            }
            visit(start, &at);
        }
    }

    /// What a later difference needs of position `p`.
    pub(super) fn before(&self, p: usize, at: &At<T>) -> Before<T> {
        let tiled = self.plan != Plan::Sequential;
        let step = match (p / scan_plan::TILE).checked_sub(1) {
            Some(k) if tiled => T::step(&self.blocks[k], &at.local, &at.out),
            _ => T::Charge::ZERO,
        };
        Before {
            out: at.out,
            p,
            local_or_down: if tiled { at.local.bound() } else { at.down },
            step,
        }
    }

    /// A bound on |(Ŝ_c − Ŝ_o) − (S_c − S_o)| for positions o < c, Ŝ_c at `at_c`.
    pub(super) fn diff_bound(&self, c: usize, at_c: &At<T>, o: &Before<T>) -> T::Charge {
        debug_assert!(o.p < c);
        let full = at_c.out.bound().add_up(o.out.bound());
        let shared = if self.plan == Plan::Sequential {
            // Σ_{o < k ≤ c} step_k ≤ up[c] − down[o], rounded up.
            at_c.up.sub_up(o.local_or_down)
        } else {
            let (tile_c, tile_o) = (c / scan_plan::TILE, o.p / scan_plan::TILE);
            if tile_c == 0 {
                return full;
            }
            let locals = at_c.local.bound().add_up(o.local_or_down);
            let step_c = T::step(&self.blocks[tile_c - 1], &at_c.local, &at_c.out);
            if tile_o == tile_c {
                // The same block prefix: its error cancels.
                locals.add_up(step_c.add_up(o.step))
            } else if self.plan == Plan::Tiled {
                // Kogge–Stone block prefixes: rounded along different paths.
                return full;
            } else {
                // Chained: P_{tile_c − 1} extends P_{tile_o − 1}; only the chain's charges
                // of tiles tile_o..tile_c − 1 differ.
                let chain = match tile_o {
                    0 => self.chain_up[tile_c - 1],
                    _ => self.chain_up[tile_c - 1].sub_up(self.chain_down[tile_o - 1]),
                };
                chain.add_up(locals.add_up(step_c.add_up(o.step)))
            }
        };
        full.min(shared)
    }
}

/// `out` becomes the terms of positions `range`.
fn fill<T>(out: &mut Vec<T>, range: std::ops::Range<usize>, term: &(impl Fn(usize) -> T + Sync)) {
    out.clear();
    out.extend(range.map(term));
}

/// Prefix sums of rounding charges, rounded up and down: Σ_{j ≤ k} charge_j enclosed, so
/// that a range's Σ_{o < j ≤ c} is at most up[c] − down[o] rounded up.
pub(crate) fn prefix_charges<C: Charge>(charges: impl Iterator<Item = C>) -> (Vec<C>, Vec<C>) {
    let len = charges.size_hint().0;
    let (mut up, mut down) = (Vec::with_capacity(len), Vec::with_capacity(len));
    let (mut u, mut d) = (C::ZERO, C::ZERO);
    for charge in charges {
        u = u.add_up(charge);
        d = d.add_down(charge);
        up.push(u);
        down.push(d);
    }
    (up, down)
}
