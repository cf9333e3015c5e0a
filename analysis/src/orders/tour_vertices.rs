//! The Euler tour read by position: which vertex each of the 2n positions opens or closes,
//! its weight at an open, and where it opened at a close.
//!
//! The vectorial orders' bounds write and read the tour position by position and need, at
//! each, the vertex, whether the position opens it, its weight (E[p] is ±w or 0) and, at a
//! close, the open (leaffix reads S[open v − 1]). The tree gives the inverse (`open[v]`,
//! `close[v]`), so the map is a scatter with one random write per position, made on every
//! core; the close flag and the weight or the open position share the vertex's entry, so that
//! writing E and reading the tour load nothing by vertex (on a tree with random labels each
//! such load is a cache miss). A close's weight is its open's entry, most often a few
//! positions before it (subtrees are small). It is made for each walk and dropped after it rather than kept for the tree: a walk's
//! results are measured right after it, at the peak of an evaluation's memory, where the map
//! would add 8 bytes per vertex.

use generators::Tree;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The flag of a position that closes its vertex (vertex ids are below 2^31: a tree's
/// positions, 2n, fit in u32).
const CLOSES: u32 = 1 << 31;

/// The vertex at each Euler-tour position and whether the position opens it (the low 32 bits),
/// with its weight's bits at an open and its open position at a close (the high 32 bits).
#[derive(Debug, Clone, PartialEq)]
pub struct TourVertices(Vec<u64>);

impl TourVertices {
    /// The tour of `tree` with the weights `w`.
    pub fn new(tree: &Tree, w: &[f32]) -> TourVertices {
        let (open, close) = (tree.open(), tree.close());
        assert!(tree.len() < CLOSES as usize, "vertex ids fit in 31 bits");
        assert_eq!(tree.len(), w.len(), "one weight per vertex");
        let at: Vec<AtomicU64> = (0..2 * tree.len()).map(|_| AtomicU64::new(0)).collect();
        // Every position is written exactly once (the tour is a bijection from the 2n
        // (vertex, open/close) pairs to the positions), so the order of the writes is moot.
        (0..tree.len()).into_par_iter().for_each(|v| {
            let (o, c) = (open[v] as usize, close[v] as usize);
            at[o].store((u64::from(w[v].to_bits()) << 32) | v as u64, Relaxed);
            at[c].store((o as u64) << 32 | u64::from(v as u32 | CLOSES), Relaxed);
        });
        TourVertices(at.into_iter().map(AtomicU64::into_inner).collect())
    }

    /// The vertex opened or closed at position `p`.
    #[inline]
    pub fn vertex(&self, p: usize) -> usize {
        (self.0[p] as u32 & !CLOSES) as usize
    }

    /// Whether position `p` opens its vertex.
    #[inline]
    pub fn opens(&self, p: usize) -> bool {
        self.0[p] as u32 & CLOSES == 0
    }

    /// The weight of the vertex at position `p`.
    #[inline]
    pub fn weight(&self, p: usize) -> f32 {
        let at = if self.opens(p) { p } else { self.open_of(p) };
        f32::from_bits((self.0[at] >> 32) as u32)
    }

    /// The position where the vertex closed at `p` opened.
    #[inline]
    pub fn open_of(&self, p: usize) -> usize {
        debug_assert!(!self.opens(p), "position {p} opens its vertex");
        (self.0[p] >> 32) as usize
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

    /// Each position names the vertex whose open or close it is, and only that, with its
    /// weight's bits (−0, NaN payloads and subnormals included).
    #[test]
    fn positions_name_their_vertex() {
        let mut rng = generators::rng(5);
        for topology in [Topology::RandomRecursive, Topology::Star, Topology::Chain] {
            let tree = topology
                .generate(3001, ChildOrder::LightFirst, &mut rng)
                .unwrap();
            let w: Vec<f32> = (0..tree.len() as u32)
                .map(|i| f32::from_bits(i.wrapping_mul(2_654_435_761)))
                .collect();
            let tour = TourVertices::new(&tree, &w);
            assert_eq!(tour.len(), 2 * tree.len());
            for p in 0..tour.len() {
                let v = tour.vertex(p);
                assert_eq!(tour.weight(p).to_bits(), w[v].to_bits());
                if !tour.opens(p) {
                    assert_eq!(tour.open_of(p), tree.open()[v] as usize);
                }
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
