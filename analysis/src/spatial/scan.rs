//! The grid prefix scan of the Euler-tour family, and the all-reduce of batched LCA's
//! barriers (docs/design.md §12.5): one plan over the positions 0 … m − 1 of the curve.
//!
//! Blocks of 4^ℓ consecutive positions, level ℓ = 1 … L = ⌈log₄ m⌉; a block's *leader* is its
//! first position. Up-sweep, ℓ = 1 … L: the leaders of sub-blocks 1, 2, 3 of every block send
//! their sums to the block's leader (sub-block 0's leader is the block's). Down-sweep,
//! ℓ = L … 1: every block's leader sends to the leaders of sub-blocks 1, 2, 3 the sum of
//! everything before them (its own offset plus the sums of the sub-blocks to their left). Each
//! leader then knows the exclusive prefix of its block; a position finishes its own entries
//! locally. 2(m − 1) messages, depth 2L.
//!
//! On Hilbert and Z-order an aligned block of 4^ℓ positions is a square of side 2^ℓ, so a
//! level's messages travel O(2^ℓ) each and the scan costs O(m) energy; on row-major a block is
//! a run of a row (or of several), and the scan costs O(m log m) while blocks are shorter
//! than a row. This is the plan the energy counts, not the GPU's scan plan (§6), which fixes
//! the rounding: lost bits come from the algorithm, energy from this plan.

use super::messages::Counter;

/// The block leaders' messages of the up-sweep (`up`) or the down-sweep, all levels; `seen`
/// is told every message's ends.
fn sweep(c: &mut Counter, m: u32, words: u32, up: bool, seen: &mut dyn FnMut(u32, u32)) {
    let mut levels = Vec::new();
    let mut sub = 1u64;
    while sub < m as u64 {
        levels.push(sub);
        sub *= 4;
    }
    if !up {
        levels.reverse();
    }
    for sub in levels {
        let block = 4 * sub;
        for b in (0..m as u64).step_by(block as usize) {
            for i in 1..4 {
                let s = b + i * sub;
                if s < m as u64 {
                    let (from, to) = match up {
                        true => (s as u32, b as u32),
                        false => (b as u32, s as u32),
                    };
                    c.send(from, to, words);
                    seen(from, to);
                }
            }
        }
        c.end_phase();
    }
}

/// The prefix scan of one value per position 0 … m − 1 (`words` words each).
pub fn scan(c: &mut Counter, m: u32, words: u32) {
    scan_with(c, m, words, &mut |_, _| {});
}

/// [`scan`], telling `seen` every message's ends.
pub fn scan_with(c: &mut Counter, m: u32, words: u32, seen: &mut dyn FnMut(u32, u32)) {
    sweep(c, m, words, true, seen);
    sweep(c, m, words, false, seen);
}

/// An all-reduce over positions 0 … m − 1: the up-sweep reduces to position 0, the down-sweep
/// broadcasts the result back (the same messages as [`scan`]).
pub fn all_reduce(c: &mut Counter, m: u32, words: u32) {
    scan(c, m, words);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::curve::{Curve, Placement};

    /// 16 positions on a 4 × 4 Hilbert grid: level 1 (sub-blocks of 1): 12 messages of
    /// distance 1 each way; level 2 (sub-blocks of 4): 3 messages each way, from the corners of
    /// the quadrants. Chain depth 2 levels × 2.
    #[test]
    fn sixteen_positions_by_hand() {
        let p = [Placement::new(Curve::Hilbert, 16).unwrap()];
        let mut c = Counter::new(&p, 16);
        scan(&mut c, 16, 1);
        let cost = c.cost();
        assert_eq!(cost.messages, 2 * 15);
        assert_eq!(cost.chain_depth, 4);
        // Under the per-round limit a leader takes its three sums one per round and sends its
        // three offsets one per round: 3 + 3 rounds up, 3 + 3 down.
        assert_eq!(cost.depth, 12);
        // Level 1: inside each 2 × 2 quadrant, positions 1, 2, 3 reach position 0 at
        // distances 1, 2, 1 (a U). Level 2: quadrant leaders 4, 8, 12 at (0,2), (2,2), (3,1)
        // reach (0,0) at distances 2, 4, 4.
        let up = 4 * (1 + 2 + 1) + (2 + 4 + 4);
        assert_eq!(cost.energy, vec![2 * up]);
    }
}
