//! A tree's layout on a spatial computer (seed 002 §III, docs/design.md §12.2): a linear order
//! of the vertices, then a space-filling curve ([`super::curve`]) that puts position i on a
//! cell of the grid. The order is one of
//!
//! - [`LinearOrder::BreadthFirst`]: level by level, each level in frontier order (natural child
//!   order) — the seed's bad case on a perfect binary tree, whose children sit ≈ i positions
//!   after their parent i;
//! - [`LinearOrder::DepthFirst`]: preorder, natural child order (ascending id) — on
//!   `caterpillar-legs` the path child comes first and every leg lands ≈ n/2 positions away;
//! - [`LinearOrder::LightFirst`]: preorder with children by ascending subtree size — the seed's
//!   light-first order (`generators::ChildOrder::LightFirst`), which makes messaging cost O(n)
//!   energy on distance-bound curves (Theorem 1) and on Z-order (Theorem 2);
//! - [`LinearOrder::HeavyFirst`]: preorder with the heaviest child first, the mirror image.
//!
//! A preorder puts every subtree on a contiguous range of positions: v's subtree is
//! `pos[v] .. pos[v] + size(v)`, which batched LCA needs (§VI).

use generators::{ChildOrder, NO_PARENT, Tree};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The linear order of the vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinearOrder {
    BreadthFirst,
    DepthFirst,
    LightFirst,
    HeavyFirst,
}

impl LinearOrder {
    pub const ALL: [LinearOrder; 4] = [
        LinearOrder::BreadthFirst,
        LinearOrder::DepthFirst,
        LinearOrder::LightFirst,
        LinearOrder::HeavyFirst,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LinearOrder::BreadthFirst => "breadth-first",
            LinearOrder::DepthFirst => "depth-first",
            LinearOrder::LightFirst => "light-first",
            LinearOrder::HeavyFirst => "heavy-first",
        }
    }

    /// The child order the tree must have: it orders the siblings of this layout, and it is
    /// the order the algorithms run in on this layout (their Euler tour, their schedule).
    pub fn child_order(self) -> ChildOrder {
        match self {
            LinearOrder::BreadthFirst | LinearOrder::DepthFirst => ChildOrder::Natural,
            LinearOrder::LightFirst => ChildOrder::LightFirst,
            LinearOrder::HeavyFirst => ChildOrder::HeavyFirst,
        }
    }

    /// Whether every subtree is a contiguous range of positions (a preorder).
    pub fn is_preorder(self) -> bool {
        self != LinearOrder::BreadthFirst
    }
}

impl fmt::Display for LinearOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for LinearOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        LinearOrder::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown order '{s}' (expected breadth-first, depth-first, light-first or heavy-first)"
                )
            })
    }
}

/// The position of every vertex in a linear order.
#[derive(Debug, Clone)]
pub struct Layout {
    order: LinearOrder,
    /// `pos[v]`: v's position, 0 … n − 1.
    pos: Vec<u32>,
}

impl Layout {
    /// The layout of `tree` in `order`, whatever the tree's own child order: the siblings are
    /// sorted by the order's child order (ascending id; ascending or descending subtree size,
    /// ties by ascending id), then the vertices are listed level by level or in preorder. A
    /// preorder is computed level by level in parallel ([`Tree::preorder_positions`]: a
    /// child's position is its parent's plus the sizes of the siblings before it).
    pub fn new(tree: &Tree, order: LinearOrder) -> Layout {
        let pos = match order {
            LinearOrder::BreadthFirst => breadth_first(tree),
            _ => tree.preorder_positions(order.child_order()),
        };
        Layout { order, pos }
    }

    /// The layout of a tree already renamed by position ([`Layout::renamed`]): vertex i at
    /// position i.
    pub fn identity(order: LinearOrder, n: usize) -> Layout {
        Layout {
            order,
            pos: (0..n as u32).collect(),
        }
    }

    /// The tree with every vertex renamed by its position (vertex i is the vertex at position
    /// i), in natural child order — which is this layout's sibling order, since siblings get
    /// ascending positions in it. A spatial machine names its processors so; the counts then
    /// walk memory in position order (nearby vertices, nearby addresses). A preorder layout's
    /// renamed tree is built in parallel from the sizes and depths
    /// ([`Tree::renamed_in_preorder`]); a breadth-first one through [`Tree::from_parents`].
    pub fn renamed(&self, tree: &Tree) -> Tree {
        if self.order.is_preorder() {
            // Refused only for positions that are no preorder of `tree` (an identity layout
            // of another tree): the general construction below holds for any permutation.
            if let Ok(renamed) = tree.renamed_in_preorder(&self.pos) {
                return renamed;
            }
        }
        self.renamed_by_parents(tree)
    }

    /// [`Layout::renamed`] through the renamed parent array and [`Tree::from_parents`]
    /// (sequential), for any layout.
    fn renamed_by_parents(&self, tree: &Tree) -> Tree {
        let mut parent = vec![NO_PARENT; tree.len()];
        for (v, &p) in tree.parents().iter().enumerate() {
            if p != NO_PARENT {
                parent[self.pos[v] as usize] = self.pos[p as usize];
            }
        }
        Tree::from_parents(parent, ChildOrder::Natural).expect("a renamed tree stays a tree")
    }

    /// Values given per vertex, listed by position instead (the weights of [`Layout::renamed`]).
    pub fn by_position<T: Copy + Default>(&self, values: &[T]) -> Vec<T> {
        let mut out = vec![T::default(); values.len()];
        for (v, &x) in values.iter().enumerate() {
            out[self.pos[v] as usize] = x;
        }
        out
    }

    pub fn order(&self) -> LinearOrder {
        self.order
    }

    /// `pos[v]`, the position of every vertex.
    pub fn pos(&self) -> &[u32] {
        &self.pos
    }

    pub fn len(&self) -> usize {
        self.pos.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }
}

/// Breadth-first positions: level by level, each level in frontier order with the children
/// in ascending id.
fn breadth_first(tree: &Tree) -> Vec<u32> {
    let n = tree.len();
    let mut pos = vec![0u32; n];
    let mut next = 0u32;
    if tree.child_order() == ChildOrder::Natural {
        // The tree's own levels are that order.
        for d in 0..tree.num_levels() {
            for &v in tree.level(d) {
                pos[v as usize] = next;
                next += 1;
            }
        }
        return pos;
    }
    let mut queue = std::collections::VecDeque::from([tree.root()]);
    let mut kids = Vec::new();
    while let Some(v) = queue.pop_front() {
        pos[v as usize] = next;
        next += 1;
        kids.clear();
        kids.extend_from_slice(tree.children(v));
        kids.sort_unstable();
        queue.extend(kids.iter().copied());
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use generators::NO_PARENT;

    /// The paper's Fig. 2 tree a(b(c, d, e), f), ids a = 0 … f = 5.
    fn fig2(order: ChildOrder) -> Tree {
        Tree::from_parents(vec![NO_PARENT, 0, 1, 1, 1, 0], order).unwrap()
    }

    #[test]
    fn positions_of_each_order() {
        for tree_order in ChildOrder::ALL {
            let pos = |o: LinearOrder| Layout::new(&fig2(tree_order), o).pos;
            assert_eq!(pos(LinearOrder::BreadthFirst), [0, 1, 3, 4, 5, 2]);
            assert_eq!(pos(LinearOrder::DepthFirst), [0, 1, 2, 3, 4, 5]);
            // Light-first: f (size 1) before b (size 4).
            assert_eq!(pos(LinearOrder::LightFirst), [0, 2, 3, 4, 5, 1]);
            assert_eq!(pos(LinearOrder::HeavyFirst), [0, 1, 2, 3, 4, 5]);
        }
    }

    /// Renamed by position, in natural child order, every tree lists its vertices in the
    /// layout's order: preorder 0, 1, …, n − 1 (breadth-first: levels 0, 1, …), and the same
    /// Euler tour as the tree in the layout's child order.
    #[test]
    fn renamed_trees_keep_the_layout_order() {
        use generators::Topology;
        for topo in Topology::all_defaults() {
            let t = topo
                .generate(500, ChildOrder::Natural, &mut generators::rng(4))
                .unwrap();
            for order in LinearOrder::ALL {
                let layout = Layout::new(&t, order);
                let r = layout.renamed(&t);
                let listed: Vec<u32> = match order {
                    LinearOrder::BreadthFirst => (0..r.num_levels())
                        .flat_map(|d| r.level(d).to_vec())
                        .collect(),
                    _ => r.preorder().to_vec(),
                };
                assert!(listed.iter().enumerate().all(|(i, &v)| v == i as u32));
                let same = t.with_order(order.child_order());
                let open: Vec<u32> = layout.by_position(same.open());
                assert_eq!(r.open(), &open[..], "{topo} {order}");
            }
        }
    }

    /// The parallel constructions equal the sequential ones: a preorder layout's positions
    /// are the preorder of the tree in the layout's child order, and its renamed tree (never
    /// refused) equals the one `from_parents` builds, array for array.
    #[test]
    fn parallel_layouts_equal_the_sequential_ones() {
        use generators::Topology;
        for topo in Topology::all_defaults() {
            let t = topo
                .generate(20_000, ChildOrder::Natural, &mut generators::rng(9))
                .unwrap();
            for order in LinearOrder::ALL.into_iter().filter(|o| o.is_preorder()) {
                let layout = Layout::new(&t, order);
                let sequential = t.with_order(order.child_order());
                let mut want = vec![0u32; t.len()];
                for (i, &v) in sequential.preorder().iter().enumerate() {
                    want[v as usize] = i as u32;
                }
                assert_eq!(layout.pos(), &want[..], "{topo} {order}");
                let r = t.renamed_in_preorder(layout.pos()).unwrap();
                let s = layout.renamed_by_parents(&t);
                assert_eq!(r.parents(), s.parents(), "{topo} {order}");
                assert_eq!(r.csr(), s.csr(), "{topo} {order}");
                assert_eq!(r.depths(), s.depths(), "{topo} {order}");
                assert_eq!(r.subtree_sizes(), s.subtree_sizes(), "{topo} {order}");
                assert_eq!(r.preorder(), s.preorder(), "{topo} {order}");
                assert_eq!(r.postorder(), s.postorder(), "{topo} {order}");
                assert_eq!(r.open(), s.open(), "{topo} {order}");
                assert_eq!(r.close(), s.close(), "{topo} {order}");
                assert_eq!(r.num_levels(), s.num_levels(), "{topo} {order}");
                for d in 0..r.num_levels() {
                    assert_eq!(r.level(d), s.level(d), "{topo} {order} level {d}");
                }
            }
        }
    }

    #[test]
    fn names_parse() {
        for o in LinearOrder::ALL {
            assert_eq!(o.name().parse::<LinearOrder>().unwrap(), o);
        }
        assert!("random".parse::<LinearOrder>().is_err());
    }
}
