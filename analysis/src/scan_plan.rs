//! The scan plan: the fixed summation tree of the vectorial algorithm's inclusive +scan.
//!
//! The GPU shaders, the CPU twin and the error bound all follow this one definition, so it is
//! written once, generic over what is being "added" (f32 for the twin, error bounds for the
//! bound computation).
//!
//! Plan (a three-stage tiled scan, as in Merrill & Garland's reduce-then-scan, one level per
//! dispatch chain):
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

/// Threads per workgroup of the scan shaders.
pub const WORKGROUP_SIZE: usize = 256;
/// Consecutive elements each thread scans serially.
pub const ITEMS_PER_THREAD: usize = 4;
/// Elements per tile (one workgroup).
pub const TILE: usize = WORKGROUP_SIZE * ITEMS_PER_THREAD;
/// Kogge–Stone steps over the thread totals: log2(WORKGROUP_SIZE).
pub const KOGGE_STONE_STEPS: u32 = WORKGROUP_SIZE.trailing_zeros();

pub use crate::orders::ScanValue;

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
    let mut totals: Vec<T> = data.chunks_mut(TILE).map(scan_tile).collect();
    if totals.len() <= 1 {
        return Vec::new();
    }
    inclusive_scan(&mut totals);
    totals
}

/// Stage 3: every element of tile k ≥ 1 becomes `blocks[k − 1] + local`.
pub fn uniform_add<T: ScanValue>(data: &mut [T], blocks: &[T]) {
    for (tile, &prefix) in data.chunks_mut(TILE).skip(1).zip(blocks) {
        tile.iter_mut().for_each(|x| *x = prefix.plus(*x));
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
            inclusive_scan(&mut data);
            assert_eq!(data, expected, "len {len}");
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
