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

use generators::{ChildOrder, Tree};
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

/// Why a layout cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("the {order} layout needs the tree in {expected} child order (it is in {found})")]
    ChildOrder {
        order: LinearOrder,
        expected: ChildOrder,
        found: ChildOrder,
    },
}

/// The position of every vertex in a linear order.
#[derive(Debug, Clone)]
pub struct Layout {
    order: LinearOrder,
    /// `pos[v]`: v's position, 0 … n − 1.
    pos: Vec<u32>,
}

impl Layout {
    /// The layout of `tree`, which must be in `order`'s child order
    /// ([`LinearOrder::child_order`]; `Tree::with_order` gives it).
    pub fn new(tree: &Tree, order: LinearOrder) -> Result<Layout, LayoutError> {
        if tree.child_order() != order.child_order() {
            return Err(LayoutError::ChildOrder {
                order,
                expected: order.child_order(),
                found: tree.child_order(),
            });
        }
        let mut pos = vec![0u32; tree.len()];
        let mut put = |i: usize, v: u32| pos[v as usize] = i as u32;
        match order {
            LinearOrder::BreadthFirst => (0..tree.num_levels())
                .flat_map(|d| tree.level(d).iter().copied())
                .enumerate()
                .for_each(|(i, v)| put(i, v)),
            _ => tree
                .preorder()
                .iter()
                .enumerate()
                .for_each(|(i, &v)| put(i, v)),
        }
        Ok(Layout { order, pos })
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
        let pos = |o: LinearOrder| Layout::new(&fig2(o.child_order()), o).unwrap().pos;
        assert_eq!(pos(LinearOrder::BreadthFirst), [0, 1, 3, 4, 5, 2]);
        assert_eq!(pos(LinearOrder::DepthFirst), [0, 1, 2, 3, 4, 5]);
        // Light-first: f (size 1) before b (size 4).
        assert_eq!(pos(LinearOrder::LightFirst), [0, 2, 3, 4, 5, 1]);
        assert_eq!(pos(LinearOrder::HeavyFirst), [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn refuses_a_tree_in_another_child_order() {
        let e = Layout::new(&fig2(ChildOrder::Natural), LinearOrder::LightFirst).unwrap_err();
        assert!(e.to_string().contains("light-first child order"), "{e}");
        for o in LinearOrder::ALL {
            assert_eq!(o.name().parse::<LinearOrder>().unwrap(), o);
        }
    }
}
