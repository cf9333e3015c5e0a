//! What a layout costs to build (the seed's Theorem 4, docs/design.md §12.11), message by
//! message, before any pattern runs on it.
//!
//! The tree starts where its input put it: vertex v on processor v (its id in the file or
//! the generator), every vertex knowing its parent, its first child and its next sibling, and
//! the Euler tour's two entries of v, open(v) and close(v), on v's processor. Then:
//!
//! 1. *subtree sizes* (light-first and heavy-first only): the Euler tour in the input's child
//!    order ranked by random mate ([`super::list_ranking`]); size(v) is half the distance
//!    between v's two entries;
//! 2. *the order*: the tour in the layout's child order ranked, each open entry of weight 1,
//!    so that v's rank is its position in the preorder (depth-first ranks its one tour for both);
//! 3. *neighbours*: every entry sends its new position to its tour predecessor and successor
//!    (1 word each), so that every vertex knows the new positions of its first child, its
//!    siblings and, as first or last child, its parent;
//! 4. *placement*: every vertex sends its record to its processor in the layout (a
//!    permutation: [`RECORD_WORDS`] words).
//!
//! Not counted: ordering each vertex's children by subtree size between steps 1 and 2 (a sort
//! of the sibling lists; the seed reduces it to sorting, whose energy on the grid is Θ(n^1.5)
//! like the permutation's). A breadth-first layout needs every vertex's depth and a sort by it:
//! not counted either, so it has no construction figure.
//!
//! Each step runs whole before the next, so the steps' depths add. The ranks the messages
//! carried are returned, and checked against the layout by the tests.

use super::curve::Placement;
use super::layout::{Layout, LinearOrder};
use super::list_ranking::{NONE, rank};
use super::messages::{Cost, Counter};
use generators::Tree;

/// Words a vertex sends to its processor in the layout: its weight, its subtree size, its
/// index among its siblings and its parent's degree, and the new positions of its parent and
/// first child (the seed's inputs to the virtual tree, §III-D, and the patterns').
pub const RECORD_WORDS: u32 = 6;

/// The Euler tour of `tree` in its child order as a list: entry 2v is open(v), 2v + 1 is
/// close(v); the successor of open(v) is its first child's open (or its own close at a leaf),
/// of close(v) its next sibling's open, else its parent's close; the root's close is the tail.
pub fn tour(tree: &Tree) -> Vec<u32> {
    let n = tree.len();
    let mut succ = vec![NONE; 2 * n];
    for v in 0..n as u32 {
        let kids = tree.children(v);
        succ[2 * v as usize] = kids.first().map_or(2 * v + 1, |&c| 2 * c);
        for w in kids.windows(2) {
            succ[2 * w[0] as usize + 1] = 2 * w[1];
        }
        if let Some(&last) = kids.last() {
            succ[2 * last as usize + 1] = 2 * v + 1;
        }
    }
    succ
}

/// The construction's cost, and what its messages computed: every vertex's subtree size (by
/// the ranks of step 1 or 2) and position (by the ranks of step 2), by input id.
pub struct Built {
    pub cost: Cost,
    pub size: Vec<u32>,
    pub pos: Vec<u32>,
}

/// Builds `layout` of `source` (the tree as input), laid out as `renamed` (vertex i the one at
/// position i, its children in the layout's sibling order), counting its messages on the
/// processors of the input ids. `Err` for a breadth-first layout.
pub fn build(
    source: &Tree,
    layout: &Layout,
    renamed: &Tree,
    placements: &[Placement],
) -> Result<Built, String> {
    let n = source.len();
    if !layout.order().is_preorder() {
        return Err(
            "the construction of a breadth-first layout (depths, then a sort by depth) is not counted"
                .into(),
        );
    }
    let pos = layout.pos();
    // Processor (input id) of renamed vertex r.
    let mut input = vec![0u32; n];
    for (v, &p) in pos.iter().enumerate() {
        input[p as usize] = v as u32;
    }
    let depth_first = layout.order() == LinearOrder::DepthFirst;
    // The two rankings are steps one after the other on the machine, but counted apart: on two
    // threads at once.
    let (sized, (ordered, neighbours)) = rayon::join(
        || (!depth_first).then(|| rank(&tour(source), |_| 1, |e| e / 2, n, 1, placements)),
        || {
            // The layout's tour, on the renamed tree: entry 2r is open(r), on processor
            // input[r]. Its ranks count the opens before (high half: the position) and every
            // entry before (low half: what a depth-first layout takes its sizes from).
            let succ = tour(renamed);
            let both = |e: u32| (u64::from(e.is_multiple_of(2)) << 32) | 1;
            let words = if depth_first { 2 } else { 1 };
            let at = |e: u32| input[e as usize / 2];
            (
                rank(&succ, both, at, n, words, placements),
                neighbours(&succ, &input, placements),
            )
        },
    );
    let low = |r: u64| r & 0xffff_ffff;
    let span = |open: u64, close: u64| ((close - open) / 2 + 1) as u32;
    let mut size = vec![0u32; n];
    let mut at = vec![0u32; n];
    for (rv, &v) in input.iter().enumerate() {
        at[v as usize] = (ordered.rank[2 * rv] >> 32) as u32;
        if depth_first {
            size[v as usize] = span(low(ordered.rank[2 * rv]), low(ordered.rank[2 * rv + 1]));
        }
    }
    let mut cost = Cost::default();
    if let Some(r) = &sized {
        (0..n).for_each(|v| size[v] = span(r.rank[2 * v], r.rank[2 * v + 1]));
        cost = cost.then(&r.cost);
    }
    let c = &mut Counter::new(placements, n);
    for (v, &p) in pos.iter().enumerate() {
        c.send(v as u32, p, RECORD_WORDS);
    }
    let cost = cost.then(&ordered.cost).then(&neighbours).then(&c.cost());
    Ok(Built {
        cost,
        size,
        pos: at,
    })
}

/// Step 3: every entry of the tour `succ` sends its new position to its tour predecessor and
/// successor, all on the processors `input` of the renamed vertices.
fn neighbours(succ: &[u32], input: &[u32], placements: &[Placement]) -> Cost {
    let c = &mut Counter::new(placements, input.len());
    let mut pred = vec![NONE; succ.len()];
    for (e, &s) in succ.iter().enumerate() {
        if s != NONE {
            pred[s as usize] = e as u32;
        }
    }
    for e in 0..succ.len() {
        let from = input[e / 2];
        for to in [succ[e], pred[e]] {
            if to != NONE {
                c.send(from, input[to as usize / 2], 1);
            }
        }
    }
    c.cost()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::Curve;
    use generators::{ChildOrder, Topology};

    /// The ranks the construction's messages carried give every vertex's subtree size and its
    /// position in the layout, on every family and preorder layout; breadth-first is refused.
    #[test]
    fn the_messages_compute_the_layout() {
        let mut topologies = Topology::all_defaults();
        topologies.push("kary:2".parse().unwrap());
        for topo in topologies {
            let t = topo
                .generate(3000, ChildOrder::Natural, &mut generators::rng(5))
                .unwrap();
            let p = [Placement::new(Curve::Hilbert, t.len()).unwrap()];
            for order in LinearOrder::ALL {
                let layout = Layout::new(&t, order);
                let renamed = layout.renamed(&t);
                match build(&t, &layout, &renamed, &p) {
                    Err(_) => assert_eq!(order, LinearOrder::BreadthFirst),
                    Ok(b) => {
                        assert_eq!(b.pos, layout.pos(), "{topo} {order}");
                        assert_eq!(b.size, t.subtree_sizes(), "{topo} {order}");
                        assert!(b.cost.depth >= b.cost.chain_depth && b.cost.steps.len() >= 3);
                    }
                }
            }
        }
    }
}
