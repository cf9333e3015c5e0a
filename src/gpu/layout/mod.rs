//! Host-side preparation of an uploaded tree, or of a forest of trees computed in one go:
//! the relabelings that make the kernels' memory accesses coalesced, and the plans (which
//! dispatch does what) the kernels follow. Relabeling changes where values live, never which
//! f32 additions are performed nor their order.
//!
//! - [`BfsLayout`]: breadth-first labels for the level-synchronous kernels. Level d of the
//!   forest (level d of every tree, trees in job order) is a contiguous range of labels, and
//!   the children of a vertex are a contiguous range of the level below, in child order.
//! - [`LevelPlan`]: the dispatches of parallel rootfix (top-down) or leaffix (bottom-up):
//!   runs of narrow levels (at most a workgroup's width) walked by one workgroup in windows
//!   that fit in workgroup memory, wider levels one dispatch each (one SM alone would take
//!   longer than a dispatch), high-degree vertices gathered by a workgroup.
//! - [`PreorderLayout`]: preorder labels for the vectorial kernel, each tree's Euler-tour
//!   segment aligned to a scan tile, and the scan plan's tiles per level (a tree's prefixes
//!   never cross into another tree's segment).
//!
//! One file per layout: [`levels`] (breadth-first labels and the level plan), [`preorder`]
//! (preorder labels and the scan plan); the forest both lay out is here.

mod levels;
mod preorder;
#[cfg(test)]
mod tests;

pub(crate) use levels::{BfsLayout, LevelPlan, Planned};
pub(crate) use preorder::{PreorderLayout, ROOT_BIT};

use generators::Tree;

/// Trees laid end to end: vertex v of tree j is global vertex `offsets[j] + v`, its index in
/// the weight and result buffers.
pub(crate) struct Forest<'a> {
    pub trees: Vec<&'a Tree>,
    pub offsets: Vec<usize>,
}

impl<'a> Forest<'a> {
    pub fn new(trees: Vec<&'a Tree>) -> Forest<'a> {
        let mut offsets = Vec::with_capacity(trees.len() + 1);
        offsets.push(0);
        for t in &trees {
            offsets.push(offsets.last().unwrap() + t.len());
        }
        Forest { trees, offsets }
    }

    /// Vertices in all.
    pub fn len(&self) -> usize {
        *self.offsets.last().unwrap()
    }
}
