//! An algorithm's error bounds, from one walk of its order ([`Algorithm::walk`]): what the
//! bounds module computes on a walk, asked of an algorithm by name.

use super::Algorithm;
use crate::Op;
use crate::bounds::{APrioriBounds, LAMBDA, NodeBounds};
use crate::orders::Walker;
use generators::Tree;

impl Algorithm {
    /// The a priori bounds (deterministic, sharp, probabilistic at `lambda`) of every node,
    /// evaluated on the algorithm's own summation tree.
    pub fn a_priori(self, tree: &Tree, w: &[f32], op: Op, lambda: f64) -> APrioriBounds {
        self.walk(&Walker::new(tree), w, op, lambda).a_priori()
    }

    /// The algorithm's f32 additions replayed addition by addition, with their running error
    /// bounds: (values, bounds).
    pub fn running(self, tree: &Tree, w: &[f32], op: Op) -> (Vec<f32>, Vec<f64>) {
        let walked = self.walk(&Walker::new(tree), w, op, LAMBDA);
        let running = walked.running();
        (walked.values, running)
    }

    /// All four bounds of every node, from one walk of the order. `values` are the evaluated
    /// results (CPU twin or GPU): the running bound applies where they equal the replay bit
    /// for bit, and is +∞ elsewhere.
    pub fn node_bounds(self, tree: &Tree, w: &[f32], op: Op, values: &[f32]) -> NodeBounds {
        NodeBounds::of(self.walk(&Walker::new(tree), w, op, LAMBDA), values)
    }
}
