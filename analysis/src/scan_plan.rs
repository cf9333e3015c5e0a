//! The scan plan: the fixed summation tree of the vectorial algorithm's inclusive +scan.
//!
//! The GPU shaders, the CPU twin and the error bound all follow this one definition, so it is
//! written once, generic over what is being "added" (f32 for the twin, error bounds for the
//! bound computation).
//!
//! Plan (a three-stage tiled scan: scan each tile, scan the tile totals, add them back, what
//! Merrill & Garland call scan-then-propagate; one level per dispatch chain):
//! 1. **Tile scan.** The input is cut into tiles of [`TILE`] = [`WORKGROUP_SIZE`] ×
//!    [`ITEMS_PER_THREAD`] = 256 × 4 elements; a partial last tile is padded with zeros.
//!    Thread t owns elements 4t..4t+4 and scans them serially, left to right:
//!    `a0, a0+a1, (a0+a1)+a2, ((a0+a1)+a2)+a3`.
//!    The 256 thread totals are scanned with Kogge–Stone (Hillis–Steele), log2(256) = 8 steps:
//!    at step d ∈ {1, 2, 4, …, 128}, `s[t] = s[t−d] + s[t]` for t ≥ d.
//!    Thread t > 0 then adds the inclusive total of thread t − 1 to each of its four items:
//!    `out[j] = prefix + local[j]`. The tile total is the Kogge–Stone result of thread 255.
//! 2. **Block sums.** If there is more than one tile, the tile totals are scanned recursively
//!    with this same plan (one more level per factor 1024: 2^25 elements need three levels).
//! 3. **Uniform add.** Every element of tile k ≥ 1 becomes `block_prefix[k−1] + out`.
//!
//! Zero padding adds exact zeros, so it never rounds. IEEE addition is commutative, so only
//! the pairing of the operands matters, never their order.

use rayon::prelude::*;

/// Threads per workgroup of the scan shaders.
pub const WORKGROUP_SIZE: usize = 256;
/// Consecutive elements each thread scans serially.
pub const ITEMS_PER_THREAD: usize = 4;
/// Elements per tile (one workgroup).
pub const TILE: usize = WORKGROUP_SIZE * ITEMS_PER_THREAD;
/// Kogge–Stone steps over the thread totals: log2(WORKGROUP_SIZE).
pub const KOGGE_STONE_STEPS: u32 = WORKGROUP_SIZE.trailing_zeros();

use crate::scan_value::ScanValue;

/// Which scan an Euler-tour algorithm runs: the pairing of its additions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Plan {
    /// The scan plan: tiles, Kogge–Stone, block sums scanned by the same plan, uniform add.
    Tiled,
    /// The chained plan: the same tiles, the tile totals scanned left to right.
    Chained,
    /// The plain left-to-right scan.
    Sequential,
}

impl Plan {
    /// The in-place inclusive scan of `data` with this plan.
    pub fn scan<T: ScanValue>(self, data: &mut [T]) {
        match self {
            Plan::Tiled => inclusive_scan(data),
            Plan::Chained => chained_inclusive_scan(data),
            Plan::Sequential => sequential_scan(data),
        }
    }
}

/// Number of elements at each level of the plan for an input of `len`: level 0 is the input,
/// level k + 1 holds the tile totals of level k; the last level fits in one tile.
pub fn level_sizes(len: usize) -> Vec<usize> {
    let mut sizes = vec![len];
    while *sizes.last().unwrap() > TILE {
        sizes.push(sizes.last().unwrap().div_ceil(TILE));
    }
    sizes
}

/// In-place inclusive scan following the plan: stages 1 and 2 ([`scan_tiles`]), then
/// stage 3 ([`uniform_add`]).
pub fn inclusive_scan<T: ScanValue>(data: &mut [T]) {
    let blocks = scan_tiles(data);
    uniform_add(data, &blocks);
}

/// Stages 1 and 2: scans every tile in place (tile-local prefixes) and returns the inclusive
/// scan of the tile totals (block prefixes; empty for a single tile, which needs none).
pub fn scan_tiles<T: ScanValue>(data: &mut [T]) -> Vec<T> {
    scan_tiles_then(data, inclusive_scan)
}

/// Stage 1 on every tile, then `scan_totals` on the tile totals (nothing for a single tile).
fn scan_tiles_then<T: ScanValue>(data: &mut [T], scan_totals: fn(&mut [T])) -> Vec<T> {
    let mut totals: Vec<T> = data.par_chunks_mut(TILE).map(scan_tile).collect();
    if totals.len() <= 1 {
        return Vec::new();
    }
    scan_totals(&mut totals);
    totals
}

/// Stage 3: every element of tile k ≥ 1 becomes `blocks[k − 1] + local`.
pub fn uniform_add<T: ScanValue>(data: &mut [T], blocks: &[T]) {
    data.par_chunks_mut(TILE)
        .enumerate()
        .skip(1)
        .for_each(|(k, tile)| {
            for x in tile {
                *x = blocks[k - 1].plus(*x);
            }
        });
}

/// Stage 3 for the element at position p, from its tile-local value.
#[inline]
pub fn uniform_add_at<T: ScanValue>(blocks: &[T], p: usize, local: T) -> T {
    match (p / TILE).checked_sub(1) {
        None => local,
        Some(k) => blocks[k].plus(local),
    }
}

/// Stage 1 on one tile (shorter than [`TILE`] only for the last tile); returns the tile total.
pub fn scan_tile<T: ScanValue>(tile: &mut [T]) -> T {
    debug_assert!(tile.len() <= TILE);
    if tile.len() == TILE {
        return scan_full_tile(tile);
    }
    let mut padded = [T::zero(); TILE];
    padded[..tile.len()].copy_from_slice(tile);
    let total = scan_full_tile(&mut padded);
    tile.copy_from_slice(&padded[..tile.len()]);
    total
}

fn scan_full_tile<T: ScanValue>(tile: &mut [T]) -> T {
    debug_assert_eq!(tile.len(), TILE);
    // Serial scan of each thread's items.
    for items in tile.chunks_exact_mut(ITEMS_PER_THREAD) {
        for j in 1..ITEMS_PER_THREAD {
            items[j] = items[j - 1].plus(items[j]);
        }
    }
    // Kogge–Stone over the thread totals. Within a step every thread reads the values of the
    // previous step: going down from the last thread, s[t − d] is still the old value.
    let mut totals: [T; WORKGROUP_SIZE] =
        std::array::from_fn(|t| tile[t * ITEMS_PER_THREAD + ITEMS_PER_THREAD - 1]);
    for step in 0..KOGGE_STONE_STEPS {
        let d = 1usize << step;
        for t in (d..WORKGROUP_SIZE).rev() {
            totals[t] = totals[t - d].plus(totals[t]);
        }
    }
    // Add each thread's exclusive prefix.
    for (t, items) in tile.chunks_exact_mut(ITEMS_PER_THREAD).enumerate().skip(1) {
        let prefix = totals[t - 1];
        for x in items {
            *x = prefix.plus(*x);
        }
    }
    totals[WORKGROUP_SIZE - 1]
}

/// The total [`scan_tile`] returns for `tile`, with only the additions it depends on: each
/// thread's serial sum, then of every Kogge–Stone step only the threads whose value reaches
/// the last one (at step d, threads t ≡ −1 mod 2d: a Brent–Kung up-sweep). The same pairings,
/// so the same bits, for about a third of the tile scan's additions: what a streamed scan
/// needs before it can give any tile its block prefix.
pub fn tile_total<T: ScanValue>(tile: &[T]) -> T {
    debug_assert!(tile.len() <= TILE);
    let item = |i: usize| tile.get(i).copied().unwrap_or_else(T::zero);
    let mut totals: [T; WORKGROUP_SIZE] = std::array::from_fn(|t| {
        let first = t * ITEMS_PER_THREAD;
        (first + 1..first + ITEMS_PER_THREAD).fold(item(first), |acc, i| acc.plus(item(i)))
    });
    for step in 0..KOGGE_STONE_STEPS {
        let d = 1usize << step;
        for t in (2 * d - 1..WORKGROUP_SIZE).step_by(2 * d) {
            // s[t − d] is not updated at this step (t − d ≡ d − 1 mod 2d): the old value.
            totals[t] = totals[t - d].plus(totals[t]);
        }
    }
    totals[WORKGROUP_SIZE - 1]
}

/// The chained plan of `vectorial-chained`: the same tile scan (stage 1), but the tile
/// totals are scanned left to right, P_k = P_{k−1} + T_k (stage 2 as a chained or
/// decoupled look-back scan computes it, with the pairing fixed), then the same uniform add.
///
/// Every tile prefix P_k extends P_{k−1}, so two outputs in different tiles share every
/// rounding of the chain up to the earlier tile: S[close v] − S[open v − 1] cancels them, as
/// the sequential scan's difference does.
pub fn chained_inclusive_scan<T: ScanValue>(data: &mut [T]) {
    let blocks = chained_scan_tiles(data);
    uniform_add(data, &blocks);
}

/// Stages 1 and 2 of the chained plan: tile scans in place, then the tile totals' sequential
/// inclusive scan (empty for a single tile).
pub fn chained_scan_tiles<T: ScanValue>(data: &mut [T]) -> Vec<T> {
    scan_tiles_then(data, sequential_scan)
}

/// [`chained_scan_tiles`], also returning the tile totals T_k before their scan (the chain's
/// operands, whose errors the bounds charge one by one).
pub fn chained_scan_tiles_with_totals<T: ScanValue>(data: &mut [T]) -> (Vec<T>, Vec<T>) {
    let totals: Vec<T> = data.par_chunks_mut(TILE).map(scan_tile).collect();
    if totals.len() <= 1 {
        return (Vec::new(), totals);
    }
    let mut blocks = totals.clone();
    sequential_scan(&mut blocks);
    (blocks, totals)
}

/// The plain left-to-right scan of `vectorial-seqscan`.
pub fn sequential_scan<T: ScanValue>(data: &mut [T]) {
    for i in 1..data.len() {
        data[i] = data[i - 1].plus(data[i]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts additions on the path of every input into every output: integers make the plan
    /// exact, so it must equal the plain prefix sums.
    #[test]
    fn plan_is_a_prefix_sum() {
        for len in [1, 2, 3, 5, 1023, 1024, 1025, 4096 + 17, 3 * TILE * TILE + 5] {
            let mut data: Vec<f32> = (0..len).map(|i| ((i * 7919) % 13) as f32 - 6.0).collect();
            let mut expected = data.clone();
            sequential_scan(&mut expected);
            let mut chained = data.clone();
            chained_inclusive_scan(&mut chained);
            assert_eq!(chained, expected, "chained, len {len}");
            inclusive_scan(&mut data);
            assert_eq!(data, expected, "len {len}");
        }
    }

    /// The documented plan, written again from its description, without the code above:
    /// each thread's 4 items scanned serially, Hillis–Steele over the 256 thread totals with
    /// double buffering, thread prefixes added after the serial scan, tile totals scanned by
    /// the same plan, then the uniform add. Returns the scan and the tile total (single tile).
    fn documented_plan(x: &[f32]) -> Vec<f32> {
        if x.len() <= 1024 {
            return documented_tile(x).0;
        }
        let tiles: Vec<(Vec<f32>, f32)> = x.chunks(1024).map(documented_tile).collect();
        let totals: Vec<f32> = tiles.iter().map(|t| t.1).collect();
        let block_prefix = documented_plan(&totals);
        let mut out = Vec::with_capacity(x.len());
        for (k, (tile, _)) in tiles.iter().enumerate() {
            if k == 0 {
                out.extend_from_slice(tile);
            } else {
                out.extend(tile.iter().map(|&v| block_prefix[k - 1] + v));
            }
        }
        out
    }

    fn documented_tile(x: &[f32]) -> (Vec<f32>, f32) {
        let mut a = [0f32; 1024];
        a[..x.len()].copy_from_slice(x);
        let mut local = [[0f32; 4]; 256];
        for t in 0..256 {
            let mut acc = a[4 * t];
            local[t][0] = acc;
            for j in 1..4 {
                acc += a[4 * t + j];
                local[t][j] = acc;
            }
        }
        let mut s: Vec<f32> = local.iter().map(|l| l[3]).collect();
        let mut d = 1;
        while d < 256 {
            let prev = s.clone();
            for t in d..256 {
                s[t] = prev[t - d] + prev[t];
            }
            d *= 2;
        }
        let out = (0..x.len())
            .map(|i| {
                let (t, j) = (i / 4, i % 4);
                if t == 0 {
                    local[0][j]
                } else {
                    s[t - 1] + local[t][j]
                }
            })
            .collect();
        (out, s[255])
    }

    /// The chained plan from its description: documented tiles, tile totals summed left to
    /// right (P_0 = T_0, P_k = P_{k−1} + T_k), tile k ≥ 1 offset by P_{k−1}.
    fn documented_chained(x: &[f32]) -> Vec<f32> {
        let mut prefix: Option<f32> = None;
        let mut out = Vec::with_capacity(x.len());
        for chunk in x.chunks(1024) {
            let (tile, total) = documented_tile(chunk);
            match prefix {
                None => out.extend_from_slice(&tile),
                Some(p) => out.extend(tile.iter().map(|&v| p + v)),
            }
            prefix = Some(prefix.map_or(total, |p| p + total));
        }
        out
    }

    /// Another valid pairing of the same tile: each thread starts from the previous thread's
    /// last output and adds its items onto it one by one. Exact arithmetic cannot tell it from
    /// the plan; f32 can.
    fn prefix_first_tile(x: &[f32]) -> Vec<f32> {
        let plan = documented_tile(x).0;
        (0..x.len())
            .map(|i| {
                let t = i / 4;
                let mut acc = if t == 0 {
                    x[0]
                } else {
                    plan[4 * t - 1] + x[4 * t]
                };
                for &v in &x[4 * t + 1..=i] {
                    acc += v;
                }
                acc
            })
            .collect()
    }

    /// Values where the pairing decides the bits: ±1 beside ±2^-24 (ties), and ±(1 + r)·2^k
    /// over 50 binades. Seeded ChaCha.
    fn non_associative(len: usize, seed: u64) -> Vec<f32> {
        use rand::RngExt;
        let mut rng = generators::rng(seed);
        let pattern = [
            1.0f32,
            2f32.powi(-24),
            -1.0,
            2f32.powi(-24),
            3.0 * 2f32.powi(-25),
        ];
        (0..len)
            .map(|i| {
                if i % 3 == 0 {
                    pattern[(i / 3) % pattern.len()]
                } else {
                    let m: f32 = rng.random_range(1.0..2.0);
                    let k = rng.random_range(-40..10);
                    let s = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
                    s * m * 2f32.powi(k)
                }
            })
            .collect()
    }

    /// Pins the plan's pairing on the CPU: on values where order matters, `inclusive_scan`
    /// equals the documented plan bit for bit, at every level count; and the inputs are
    /// sensitive enough that another pairing (sequential, or prefix-first tiles) differs.
    #[test]
    fn plan_pairing_is_pinned_with_f32() {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for (seed, len) in [
            1,
            4,
            5,
            77,
            1023,
            1024,
            1025,
            3000,
            5 * TILE + 3,
            TILE * TILE + TILE + 9,
        ]
        .into_iter()
        .enumerate()
        {
            let x = non_associative(len, seed as u64);
            let mut got = x.clone();
            inclusive_scan(&mut got);
            assert_eq!(bits(&got), bits(&documented_plan(&x)), "len {len}");
            let mut chained = x.clone();
            chained_inclusive_scan(&mut chained);
            assert_eq!(
                bits(&chained),
                bits(&documented_chained(&x)),
                "chained, len {len}"
            );
            if len > TILE * TILE {
                // 1026 tile totals: a chain of 1025 additions against two Kogge–Stone levels
                // (with few tiles, sums of 1024 such values can pair either way alike).
                assert_ne!(bits(&chained), bits(&got), "len {len}: inputs too tame");
            }
            if len >= 1000 {
                let mut seq = x.clone();
                sequential_scan(&mut seq);
                assert_ne!(bits(&got), bits(&seq), "len {len}: inputs too tame");
                let n = len.min(TILE);
                assert_ne!(
                    bits(&got[..n]),
                    bits(&prefix_first_tile(&x[..n])),
                    "len {len}: inputs too tame"
                );
            }
        }
    }

    /// The totals alone are the tile scan's totals, bit for bit, full tiles and padded ones.
    #[test]
    fn tile_total_is_the_scans_total() {
        for (seed, len) in [1, 2, 3, 4, 5, 255, 511, 1000, 1023, 1024]
            .into_iter()
            .enumerate()
        {
            let x = non_associative(len, 100 + seed as u64);
            let mut tile = x.clone();
            let scanned = scan_tile(&mut tile);
            assert_eq!(tile_total(&x).to_bits(), scanned.to_bits(), "len {len}");
            assert_eq!(
                scanned.to_bits(),
                documented_tile(&x).1.to_bits(),
                "len {len}"
            );
        }
    }

    /// The chain's operands: the totals are the documented tiles' totals, bit for bit, the
    /// blocks their left-to-right running sums (none for a single tile), and the tiles are
    /// scanned in place as the documented tile scan does.
    #[test]
    fn chained_scan_keeps_the_tile_totals() {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for (seed, len) in [5, TILE, 3 * TILE + 7].into_iter().enumerate() {
            let x = non_associative(len, 200 + seed as u64);
            let mut data = x.clone();
            let (blocks, totals) = chained_scan_tiles_with_totals(&mut data);
            let tiles: Vec<(Vec<f32>, f32)> = x.chunks(TILE).map(documented_tile).collect();
            let expected: Vec<f32> = tiles.iter().map(|t| t.1).collect();
            assert_eq!(bits(&totals), bits(&expected), "len {len}");
            let running: Vec<f32> = expected
                .iter()
                .scan(0f32, |p, &t| {
                    *p += t;
                    Some(*p)
                })
                .collect();
            let running = if len > TILE { running } else { Vec::new() };
            assert_eq!(bits(&blocks), bits(&running), "len {len}");
            let local: Vec<f32> = tiles.into_iter().flat_map(|t| t.0).collect();
            assert_eq!(bits(&data), bits(&local), "len {len}");
        }
    }

    #[test]
    fn levels() {
        assert_eq!(level_sizes(5), vec![5]);
        assert_eq!(level_sizes(TILE), vec![TILE]);
        assert_eq!(level_sizes(TILE + 1), vec![TILE + 1, 2]);
        assert_eq!(level_sizes(1 << 25), vec![1 << 25, 1 << 15, 32]);
    }
}
