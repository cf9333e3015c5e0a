//! The Euler tour read by position: which vertex each of the 2n positions opens or closes.
//!
//! The vectorial orders' bounds read the scanned tour position by position and need, at each,
//! the vertex and whether the position opens it. The tree gives the inverse (`open[v]`,
//! `close[v]`), so the map is a scatter with one random write per position, made on every
//! core, with the close flag in the entry so that telling an open from a close reads nothing
//! else. It is made for each walk and dropped after it rather than kept for the tree: a walk's
//! results are measured right after it, at the peak of an evaluation's memory, where the map
//! would add 8 bytes per vertex.

use generators::Tree;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The flag of a position that closes its vertex (vertex ids are below 2^31: a tree's
/// positions, 2n, fit in u32).
const CLOSES: u32 = 1 << 31;

/// The vertex at each Euler-tour position, and whether the position opens it.
#[derive(Debug, Clone, PartialEq)]
pub struct TourVertices(Vec<u32>);

impl TourVertices {
    pub fn new(tree: &Tree) -> TourVertices {
        let (open, close) = (tree.open(), tree.close());
        assert!(tree.len() < CLOSES as usize, "vertex ids fit in 31 bits");
        let at: Vec<AtomicU32> = (0..2 * tree.len()).map(|_| AtomicU32::new(0)).collect();
        // Every position is written exactly once (the tour is a bijection from the 2n
        // (vertex, open/close) pairs to the positions), so the order of the writes is moot.
        (0..tree.len()).into_par_iter().for_each(|v| {
            at[open[v] as usize].store(v as u32, Relaxed);
            at[close[v] as usize].store(v as u32 | CLOSES, Relaxed);
        });
        TourVertices(at.into_iter().map(AtomicU32::into_inner).collect())
    }

    /// The vertex opened or closed at position `p`.
    #[inline]
    pub fn vertex(&self, p: usize) -> usize {
        (self.0[p] & !CLOSES) as usize
    }

    /// Whether position `p` opens its vertex.
    #[inline]
    pub fn opens(&self, p: usize) -> bool {
        self.0[p] & CLOSES == 0
    }

    /// Positions: twice the vertices.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use generators::{ChildOrder, Topology};

    /// Each position names the vertex whose open or close it is, and only that.
    #[test]
    fn positions_name_their_vertex() {
        let mut rng = generators::rng(5);
        for topology in [Topology::RandomRecursive, Topology::Star, Topology::Chain] {
            let tree = topology
                .generate(3001, ChildOrder::LightFirst, &mut rng)
                .unwrap();
            let tour = TourVertices::new(&tree);
            assert_eq!(tour.len(), 2 * tree.len());
            for p in 0..tour.len() {
                let v = tour.vertex(p);
                let at = if tour.opens(p) {
                    tree.open()[v]
                } else {
                    tree.close()[v]
                };
                assert_eq!(at as usize, p, "{topology:?} position {p}");
            }
        }
    }
}
