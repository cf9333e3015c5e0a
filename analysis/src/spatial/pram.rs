//! A PRAM treefix simulated on the spatial computer (seed 002's point of comparison;
//! docs/design.md §12.3): rootfix by pointer jumping (Wyllie), the textbook PRAM algorithm of
//! O(log n) steps. Each step, every vertex v whose jump pointer j(v) is still a vertex reads
//! j(v)'s partial sum and pointer: a request of 1 word from v's processor to j(v)'s and a reply
//! of 2 words back, then r(v) += r(j(v)), j(v) := j(j(v)). The step's reads are independent
//! (request, then reply: depth 2 per step), and the steps follow one another, so the depth is
//! 2·⌈log₂(height + 1)⌉. Nothing keeps a read close: at step k it spans 2^k edges of the
//! tree, which no layout keeps short for every vertex, so on a chain the energy grows like
//! n^1.5 — the PRAM simulation's price the seed's treefix avoids.

use super::curve::Placement;
use super::messages::{Cost, Counter, Processors};
use generators::{NO_PARENT, Tree};

/// The messages of pointer-jumping rootfix on `tree`, vertex v on processor `pos.of(v)`.
pub fn pointer_jumping(tree: &Tree, pos: impl Processors, placements: &[Placement]) -> Cost {
    let c = &mut Counter::new(placements, tree.len());
    let mut jump: Vec<u32> = tree.parents().to_vec();
    let mut next = vec![NO_PARENT; jump.len()];
    loop {
        let mut any = false;
        for (v, &j) in jump.iter().enumerate() {
            if j != NO_PARENT {
                c.send(pos.of(v as u32), pos.of(j), 1);
                any = true;
            }
        }
        if !any {
            break;
        }
        c.end_phase();
        for (v, &j) in jump.iter().enumerate() {
            next[v] = if j != NO_PARENT {
                c.send(pos.of(j), pos.of(v as u32), 2);
                jump[j as usize]
            } else {
                NO_PARENT
            };
        }
        c.end_phase();
        std::mem::swap(&mut jump, &mut next);
    }
    c.cost()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::curve::Curve;
    use generators::{ChildOrder, Topology};

    fn chain(n: usize) -> Tree {
        "chain"
            .parse::<Topology>()
            .unwrap()
            .generate(n, ChildOrder::Natural, &mut generators::rng(1))
            .unwrap()
    }

    /// A chain 0 → 1 → 2 → 3 on a row-major 2 × 2 grid, vertex i on processor i (cells (0,0),
    /// (1,0), (0,1), (1,1)). Step 1: 1, 2, 3 read their parents (distances 1, 2, 1); step 2: 2
    /// and 3 read 0 and 1 (distances 1, 1); step 3: nobody is left.
    #[test]
    fn chain_of_four_by_hand() {
        let t = chain(4);
        let pos: Vec<u32> = (0..4).collect();
        let pl = [Placement::new(Curve::RowMajor, 4).unwrap()];
        let c = pointer_jumping(&t, &pos[..], &pl);
        // Requests of 1 word and replies of 2: 3 words per read, distances 1+2+1 then 1+1.
        assert_eq!(c.energy, [3 * (1 + 2 + 1) + 3 * (1 + 1)]);
        assert_eq!(c.messages, 2 * (3 + 2));
        assert_eq!(c.depth, 4);
    }

    /// The depth is 2·⌈log₂(height + 1)⌉ on a chain of n vertices (height n − 1), with the
    /// per-round limit or without: every vertex reads a different one.
    #[test]
    fn depth_is_twice_the_steps() {
        for n in [2usize, 3, 5, 64, 65, 1000] {
            let t = chain(n);
            let pos: Vec<u32> = (0..n as u32).collect();
            let pl = [Placement::new(Curve::Hilbert, n).unwrap()];
            let steps = (usize::BITS - (n - 1).leading_zeros()) as u64;
            let c = pointer_jumping(&t, &pos[..], &pl);
            assert_eq!((c.chain_depth, c.depth), (2 * steps, 2 * steps), "n={n}");
        }
    }

    /// On a star every leaf reads the root at once: the PRAM's concurrent read, which the
    /// root answers one per round — n − 1 requests taken, n − 1 replies sent.
    #[test]
    fn a_star_serialises_at_its_root() {
        let n = 100;
        let t = Topology::Star
            .generate(n, ChildOrder::Natural, &mut generators::rng(1))
            .unwrap();
        let pos: Vec<u32> = (0..n as u32).collect();
        let pl = [Placement::new(Curve::Hilbert, n).unwrap()];
        let c = pointer_jumping(&t, &pos[..], &pl);
        assert_eq!(c.chain_depth, 2);
        assert_eq!(c.congestion, n as u64 - 1);
        assert!(c.depth >= n as u64 - 1, "{}", c.depth);
    }
}
