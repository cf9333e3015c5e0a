//! The degree ≤ 4 transformation of seed 002 §III-D, which local messaging on a tree of
//! unbounded degree goes through (docs/design.md §12.4), and the messages that build it
//! (Theorem 3).
//!
//! A processor holds O(1) words, so a vertex cannot send to k children itself; and if it could,
//! the energy would grow with the degree (a star's centre would reach n − 1 cells, Θ(n^1.5)).
//! The seed rewires the children into a *virtual tree* without moving any vertex: a vertex
//! keeps at most two *current* children and each child gets at most two *appended* children,
//! so a message to all children is forwarded along a binary tree of siblings, in O(log k)
//! hops. The formulas of the seed's Transform are lost in our copy; this construction keeps
//! what its Lemma 8 needs, that the virtual tree of a light-first layout is light-first again:
//!
//! - the children c₀ … c_{k−1} of v (in the layout's child order; light-first: ascending
//!   subtree size) split into two *groups* of consecutive siblings, the first ⌊k/2⌋ and the
//!   rest; v's current children are the groups' first siblings, their *heads*;
//! - a group c_a … c_{b−1} headed by c_a splits what follows c_a the same way, and c_a's
//!   appended children are the heads of the two parts.
//!
//! Every subtree of the virtual tree is then a contiguous range of a preorder layout (a head
//! and its group's subtrees), and a vertex's virtual children come in ascending size: its real
//! children's groups hold its own subtree, smaller than any later sibling's subtree, and each
//! split puts the smaller half (fewer siblings, and the lighter ones in light-first order)
//! first. [`VirtualTree::check_light_first`] checks exactly that, and the tests run it on every
//! family. Each part halves, so a broadcast takes 1 + ⌊log₂ k⌋ hops.

use super::curve::Placement;
use super::messages::{Cost, Counter, Processors};
use generators::{NO_PARENT, Tree};

/// The virtual tree of a tree: every vertex's virtual parent and how many forwards its real
/// parent's message takes to reach it.
#[derive(Debug, Clone)]
pub struct VirtualTree {
    /// Virtual parent of every vertex; [`NO_PARENT`] at the root.
    parent: Vec<u32>,
    /// The non-root vertices grouped by hop: hop h is `by_hop[hop_start[h]..hop_start[h + 1]]`.
    /// Hop 0: sent to by the real parent itself; hop h: the h-th forward down a group.
    by_hop: Vec<u32>,
    hop_start: Vec<usize>,
}

/// The split of siblings [a, b) (a group's members after its head, or a parent's children):
/// the first ⌊(b − a)/2⌋, then the rest. Returns the two parts' starts and the end; a part
/// is empty where its start equals the next.
#[inline]
pub fn split(a: usize, b: usize) -> (usize, usize, usize) {
    (a, a + (b - a) / 2, b)
}

impl VirtualTree {
    /// The virtual tree of `tree`, its children in the tree's child order.
    pub fn new(tree: &Tree) -> VirtualTree {
        let n = tree.len();
        let mut parent = vec![NO_PARENT; n];
        let mut hop = vec![0u8; n];
        // Groups to split: (siblings, start, end, the vertex that sends to its parts, hop).
        let mut stack: Vec<(usize, usize, u32, u8)> = Vec::new();
        for v in 0..n as u32 {
            let kids = tree.children(v);
            if kids.is_empty() {
                continue;
            }
            stack.push((0, kids.len(), v, 0));
            while let Some((a, b, from, h)) = stack.pop() {
                let (l, r, end) = split(a, b);
                for (lo, hi) in [(l, r), (r, end)] {
                    if lo < hi {
                        let head = kids[lo];
                        parent[head as usize] = from;
                        hop[head as usize] = h;
                        stack.push((lo + 1, hi, head, h + 1));
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

    /// The seed's Lemma 8 on a tree renamed by a preorder layout (vertex i at position i):
    /// the virtual tree is in light-first order — every virtual subtree is the contiguous
    /// range of positions that starts at its root, and every vertex's virtual children, in
    /// position order, have non-decreasing virtual subtree sizes. `Err` names the first vertex
    /// where it fails.
    pub fn check_light_first(&self) -> Result<(), String> {
        let n = self.parent.len();
        let mut size = vec![1u32; n];
        // A virtual parent precedes its children in a preorder (a real parent or a left
        // sibling), so sizes accumulate from the last position back.
        for v in (0..n).rev() {
            let p = self.parent[v];
            if p != NO_PARENT {
                if p as usize >= v {
                    return Err(format!("vertex {v}: virtual parent {p} after it"));
                }
                size[p as usize] += size[v];
            }
        }
        let mut kids: Vec<Vec<u32>> = vec![Vec::new(); n];
        for v in 0..n {
            if self.parent[v] != NO_PARENT {
                kids[self.parent[v] as usize].push(v as u32);
            }
        }
        for (u, ks) in kids.iter().enumerate() {
            let mut next = u as u32 + 1;
            let mut last = 0;
            for &k in ks {
                if k != next {
                    return Err(format!(
                        "vertex {u}: virtual child {k} at {k}, expected {next}"
                    ));
                }
                if size[k as usize] < last {
                    return Err(format!(
                        "vertex {u}: virtual child {k} of size {} after one of size {last}",
                        size[k as usize]
                    ));
                }
                last = size[k as usize];
                next += size[k as usize];
            }
            if next != u as u32 + size[u] {
                return Err(format!("vertex {u}: virtual subtree not contiguous"));
            }
        }
        Ok(())
    }
}

/// The messages that build the virtual tree (the seed's Theorem 3), on a tree whose vertex v is
/// on processor `pos.of(v)`. What each vertex knows before: its parent, its left and right
/// siblings, its index among them and its parent's degree (the seed's assumption), and its
/// own subtree size — so every vertex works out by index arithmetic where it sits in its
/// parent's groups, and a head knows the first sibling after it. What it must learn by
/// message is where the second part of its group starts: the first part's total size, which
/// the first part's head sends up once its own group is built (1 word); the head then tells
/// the second part's head its virtual parent (1 word), which answers with its part's total
/// (1 word) once built. A real parent needs only its first group's total (its first child's
/// position is its own + 1). Phases follow these dependencies, deepest groups first.
pub fn build_cost(tree: &Tree, pos: impl Processors, placements: &[Placement]) -> Cost {
    let n = tree.len();
    let mut phases: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut put = |phase: usize, from: u32, to: u32| {
        if phases.len() <= phase {
            phases.resize_with(phase + 1, Vec::new);
        }
        phases[phase].push((from, to));
    };
    for v in 0..n as u32 {
        let kids = tree.children(v);
        if kids.len() < 2 {
            continue;
        }
        let (l, r, _) = split(0, kids.len());
        // The first group's head sends its total once its group is built.
        let known = built(kids, l, r, &mut put);
        put(phase_after(known), kids[l], v);
        built(kids, r, kids.len(), &mut put);
    }
    let c = &mut Counter::new(placements, n);
    for phase in &phases {
        for &(from, to) in phase {
            c.send(pos.of(from), pos.of(to), 1);
        }
        c.end_phase();
    }
    c.cost()
}

/// The first phase in which a value known after phase `known` can be sent (`None`: known
/// from the start).
fn phase_after(known: Option<usize>) -> usize {
    known.map_or(0, |p| p + 1)
}

/// Lists the messages that build the group `kids[a..b]` (headed by `kids[a]`) and returns the
/// phase after which its head knows the group's total size (`None`: from the start).
fn built(kids: &[u32], a: usize, b: usize, put: &mut impl FnMut(usize, u32, u32)) -> Option<usize> {
    let head = kids[a];
    let (l, r, end) = split(a + 1, b);
    if r == end {
        return None;
    }
    // The first part's total reaches the head; then the head names itself to the second
    // part's head (unless that is its right sibling, which knows it).
    let told = if l < r {
        let first = built(kids, l, r, put);
        let p = phase_after(first);
        put(p, kids[l], head);
        put(p + 1, head, kids[r]);
        Some(p + 1)
    } else {
        None
    };
    let second = built(kids, r, end, put);
    let p = phase_after(second).max(phase_after(told));
    put(p, kids[r], head);
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use generators::{ChildOrder, Topology};

    /// Every vertex but the root has a virtual parent; following them reaches the root (a
    /// tree); at most 4 virtual children each; a virtual parent is the real parent or a
    /// sibling; hops 1 + ⌊log₂ k⌋ at most for k children.
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
                assert!(vt.hops() <= 1 + k.log2().floor() as usize, "{topo} n = {n}");
                let listed: usize = (0..vt.hops()).map(|h| vt.at_hop(h).len()).sum();
                assert_eq!(listed, n - 1);
            }
        }
    }

    /// A star of 8: the root's children 1 … 7 split into 1 … 3 and 4 … 7; 1 heads 2 and 3,
    /// 4 heads 5 and 6 … 7, 6 heads 7.
    #[test]
    fn the_groups_of_a_star() {
        let t = Topology::Star
            .generate(8, ChildOrder::Natural, &mut generators::rng(1))
            .unwrap();
        let vt = VirtualTree::new(&t);
        assert_eq!(vt.parents(), &[NO_PARENT, 0, 1, 1, 0, 4, 4, 6]);
        assert_eq!(vt.at_hop(0), &[1, 4]);
        assert_eq!(vt.at_hop(1), &[2, 3, 5, 6]);
        assert_eq!(vt.at_hop(2), &[7]);
        assert!(vt.check_light_first().is_ok());
        // Building it: 1's first part is {2}: 2 → 1 its total (phase 0), 1 names itself to
        // 3 (phase 1), 3 → 1 (phase 2), 1 → 0 its group's total (phase 3: 0 then knows where
        // 4 is). 4's group 5 … 7: 5 → 4 (0), 4 → 6 (1); 6's only part is its right sibling 7,
        // which knows it: 7 → 6 (0); then 6 → 4 (2). 8 messages, the longest chain 4.
        let p = [Placement::new(crate::spatial::Curve::RowMajor, 8).unwrap()];
        let c = build_cost(&t, crate::spatial::Renamed, &p);
        assert_eq!(c.messages, 8);
        assert_eq!(c.chain_depth, 4);
    }

    /// The check itself fails where it should: the heavier child first, or a gap.
    #[test]
    fn the_lemma_eight_check_fails_on_a_heavy_first_virtual_tree() {
        // 0(1(2), 3): children sizes 2 then 1, contiguous: not light-first.
        let vt = VirtualTree {
            parent: vec![NO_PARENT, 0, 1, 0],
            by_hop: vec![1, 2, 3],
            hop_start: vec![0, 3],
        };
        assert!(
            vt.check_light_first()
                .unwrap_err()
                .contains("size 1 after one of size 2")
        );
        // 0(2(1)): a vertex before its virtual parent, no preorder.
        let vt = VirtualTree {
            parent: vec![NO_PARENT, 2, 0],
            by_hop: vec![2, 1],
            hop_start: vec![0, 2],
        };
        assert!(vt.check_light_first().unwrap_err().contains("after it"));
    }
}
