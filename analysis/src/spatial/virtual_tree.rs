//! The degree ≤ 4 transformation of seed 002 §III-D, which local messaging on a tree of
//! unbounded degree goes through (docs/design.md §12.4).
//!
//! A processor holds O(1) words, so a vertex cannot send to k children itself; and if it could,
//! the energy would grow with the degree (a star's centre would reach n − 1 cells, Θ(n^1.5)).
//! The seed rewires the children into a *virtual tree* without moving any vertex: a vertex
//! keeps at most two *current* children and each child gets at most two *appended* children, so
//! a message to all children is forwarded along a binary tree of siblings, in O(log k) hops.
//!
//! Our reading of the construction (the formulas of the seed's §III-D, Fig. 3 are lost in the
//! copy we have; the text says which sibling forwards to which):
//!
//! - v with children c₁ … c_k (child order; light-first: ascending subtree size) sends itself to
//!   the last, heaviest child c_k and to c₁, the root of the *sibling tree* of c₁ … c_{k−1};
//! - the sibling tree of c_a … c_b (rooted at c_a) gives c_a two appended children: c_{a+1},
//!   root of the sibling tree of the next ⌈(b − a)/2⌉ siblings, and the sibling after those, root
//!   of the sibling tree of the rest. A sibling's virtual parent is its left sibling when it is
//!   a left child, and otherwise the sibling whose left subtree ends just before it: the
//!   "right sibling of the rightmost descendant" of the seed's text. In a preorder layout each
//!   sibling tree is again a preorder of contiguous subtrees, lighter ones first.
//!
//! Every vertex then has at most 2 + 2 = 4 virtual children, and the sibling trees are balanced
//! (height ⌈log₂ k⌉). What the seed proves (Lemma 8) is that the virtual tree is again in
//! light-first order, so Theorem 1 applies to it; we do not prove that of this construction —
//! its energy is counted, not assumed (docs/design.md §12.9 gives the measured cost).

use generators::{NO_PARENT, Tree};

/// The virtual tree of a tree: every vertex's virtual parent and how many forwards its real
/// parent's message takes to reach it.
#[derive(Debug, Clone)]
pub struct VirtualTree {
    /// Virtual parent of every vertex; [`NO_PARENT`] at the root.
    parent: Vec<u32>,
    /// The non-root vertices grouped by hop: hop h is `by_hop[hop_start[h]..hop_start[h + 1]]`.
    /// Hop 0: sent to by the real parent itself; hop h: the h-th forward down a sibling tree.
    by_hop: Vec<u32>,
    hop_start: Vec<usize>,
}

impl VirtualTree {
    /// The virtual tree of `tree`, its children in the tree's child order.
    pub fn new(tree: &Tree) -> VirtualTree {
        let n = tree.len();
        let mut parent = vec![NO_PARENT; n];
        let mut hop = vec![0u8; n];
        let mut stack: Vec<(usize, usize, u8)> = Vec::new();
        for v in 0..n as u32 {
            let kids = tree.children(v);
            let Some((&last, rest)) = kids.split_last() else {
                continue;
            };
            parent[last as usize] = v;
            if rest.is_empty() {
                continue;
            }
            parent[rest[0] as usize] = v;
            // The sibling tree of rest[a..b], rooted at rest[a], which sits at hop h.
            stack.push((0, rest.len(), 0));
            while let Some((a, b, h)) = stack.pop() {
                let after = b - a - 1;
                if after == 0 {
                    continue;
                }
                let mid = a + 1 + after.div_ceil(2);
                for (lo, hi) in [(a + 1, mid), (mid, b)] {
                    if lo < hi {
                        parent[rest[lo] as usize] = rest[a];
                        hop[rest[lo] as usize] = h + 1;
                        stack.push((lo, hi, h + 1));
                    }
                }
            }
        }
        let max_hop = hop.iter().copied().max().unwrap_or(0) as usize;
        let mut hop_start = vec![0usize; max_hop + 2];
        for (v, &h) in hop.iter().enumerate() {
            if parent[v] != NO_PARENT {
                hop_start[h as usize + 1] += 1;
            }
        }
        for h in 0..=max_hop {
            hop_start[h + 1] += hop_start[h];
        }
        let mut fill = hop_start.clone();
        let mut by_hop = vec![0u32; n.saturating_sub(1)];
        for (v, &h) in hop.iter().enumerate() {
            if parent[v] != NO_PARENT {
                by_hop[fill[h as usize]] = v as u32;
                fill[h as usize] += 1;
            }
        }
        VirtualTree {
            parent,
            by_hop,
            hop_start,
        }
    }

    /// The virtual parent of every vertex ([`NO_PARENT`] at the root).
    pub fn parents(&self) -> &[u32] {
        &self.parent
    }

    /// The largest hop + 1: the number of phases of a local broadcast.
    pub fn hops(&self) -> usize {
        self.hop_start.len() - 1
    }

    /// The vertices at hop `h`.
    pub fn at_hop(&self, h: usize) -> &[u32] {
        &self.by_hop[self.hop_start[h]..self.hop_start[h + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use generators::{ChildOrder, Topology};

    /// Every vertex but the root has a virtual parent; following them reaches the root (a
    /// tree); at most 4 virtual children each; a virtual parent is the real parent or a
    /// sibling; hops ⌈log₂ k⌉ at most for k children.
    #[test]
    fn a_tree_of_degree_at_most_four() {
        let mut topologies = Topology::all_defaults();
        topologies.push("kary:2".parse().unwrap());
        for topo in topologies {
            for n in [1, 2, 5, 100, 3000] {
                let t = topo
                    .generate(n, ChildOrder::LightFirst, &mut generators::rng(7))
                    .unwrap();
                let vt = VirtualTree::new(&t);
                let mut kids = vec![0u32; n];
                for v in 0..n as u32 {
                    let p = vt.parents()[v as usize];
                    if v == t.root() {
                        assert_eq!(p, NO_PARENT);
                        continue;
                    }
                    kids[p as usize] += 1;
                    let real = t.parent(v).unwrap();
                    assert!(p == real || t.parent(p) == Some(real), "{topo} {v}");
                    // Climbing virtual parents ends at the root.
                    let (mut u, mut steps) = (v, 0);
                    while u != t.root() {
                        u = vt.parents()[u as usize];
                        steps += 1;
                        assert!(steps <= n, "{topo}: a cycle");
                    }
                }
                assert!(kids.iter().all(|&k| k <= 4), "{topo} n = {n}");
                let k = t.max_out_degree().max(1) as f64;
                assert!(vt.hops() <= 1 + k.log2().ceil() as usize, "{topo} n = {n}");
                let listed: usize = (0..vt.hops()).map(|h| vt.at_hop(h).len()).sum();
                assert_eq!(listed, n - 1);
            }
        }
    }

    /// A star of 8: root 0 sends to 1 and 7; the sibling tree of 1 … 6 is 1(2(3, 4), 5(6)).
    #[test]
    fn the_sibling_tree_of_a_star() {
        let t = Topology::Star
            .generate(8, ChildOrder::Natural, &mut generators::rng(1))
            .unwrap();
        let vt = VirtualTree::new(&t);
        assert_eq!(vt.parents(), &[NO_PARENT, 0, 1, 2, 2, 1, 5, 0]);
        assert_eq!(vt.at_hop(0), &[1, 7]);
        assert_eq!(vt.at_hop(1), &[2, 5]);
        assert_eq!(vt.at_hop(2), &[3, 4, 6]);
        assert_eq!(vt.hops(), 3);
    }
}
