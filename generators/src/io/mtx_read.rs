//! What reading a Matrix Market graph gives: its spanning tree and the entries' values as
//! weights. Apart from the parser ([`super::mtx`]) and the tree's construction
//! ([`super::spanning`]), which both use them.

use super::error::Reason;
use super::own_weights::Refused;
use crate::Tree;

pub(crate) struct Mtx {
    pub tree: Tree,
    pub weights: Option<Vec<f32>>,
    /// Values that became weights but are no valid f32 weights.
    pub refused: Refused,
    /// File ids of the tree's vertices when they are not `v + 1` (forest mode `Largest`).
    pub file_ids: Option<Vec<u64>>,
    /// Number of vertices of the file.
    pub file_vertices: u64,
    /// Connected components of the graph.
    pub components: usize,
}

/// Each entry's value, or where and why it is no valid f32 weight: noted only if it becomes
/// one.
pub(crate) struct Values {
    pub(crate) v: Vec<f32>,
    /// (entry, byte offset, reason) of values that are not valid weights; their `v` is NaN.
    pub(crate) bad: Vec<(u32, usize, Reason)>,
}

impl Values {
    /// The value of entry `e` as a weight (see [`Refused::note`]).
    pub(crate) fn weight(&self, e: u32, refused: &mut Refused) -> f32 {
        let x = self.v[e as usize];
        if x.is_nan() {
            let i = self
                .bad
                .binary_search_by_key(&e, |b| b.0)
                .expect("NaN placeholders are recorded");
            let (_, at, r) = &self.bad[i];
            return refused.note(*at, r.clone());
        }
        x
    }
}
