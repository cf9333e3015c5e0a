//! Batched lowest common ancestors on the heavy-light decomposition of a light-first layout
//! (seed 002 §VI, docs/design.md §12.7), its answers and its energy and depth.
//!
//! The path decomposition links every vertex to its heaviest child (light-first's last child:
//! the largest subtree, ties by the larger id); a path's *layer* is the number of light edges
//! above it (at most log₂ n). Every path root s of layer i ≥ 1 roots a subtree of the cover,
//! whose positions in a preorder layout are the range pos\[s\] … pos\[s\] + size(s) − 1. The
//! algorithm, for queries (u, v) held by both u and v:
//!
//! 1. subtree sizes by a treefix sum (contraction leaffix of ones); a query whose one end lies
//!    in the other's range is answered by it;
//! 2. every vertex sends its range to its children (a local broadcast, 2 words);
//! 3. the layers, by a top-down treefix sum (contraction rootfix);
//! 4. for each layer i = 1, 2, …: every layer-i path root s, which knows its parent p's range
//!    from step 2, broadcasts (p's range and its own, 4 words) within its range along a
//!    complete binary tree of the positions in light-first order (Lemma 13: the root, then the
//!    lighter half, then the heavier), and a vertex u of the range answers p for every query
//!    (u, v) with v in p's range but not in s's; then a barrier, an all-reduce over the grid.
//!
//! Each query is answered at the first layer where one of its ends leaves the other's subtree
//! (Corollary 3), and the answer is then exact: that end lies in T_s, the other in T_p \ T_s.
//! The steps run one after the other, so their depths add.

use super::curve::Placement;
use super::layout::Layout;
use super::local;
use super::messages::{Cost, Counter};
use super::scan;
use super::virtual_tree::VirtualTree;
use generators::{NO_PARENT, Tree};

/// Why batched LCA cannot run on a layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LcaError {
    #[error(
        "batched LCA needs every subtree on a contiguous range of positions (a preorder layout); {0} is not one"
    )]
    NotPreorder(super::layout::LinearOrder),
}

/// The heavy-light decomposition of a tree, on a preorder layout.
pub struct BatchedLca<'a> {
    tree: &'a Tree,
    pos: &'a [u32],
    /// The root of v's path.
    head: Vec<u32>,
    /// The layer of v's path: the light edges between it and the root.
    layer: Vec<u32>,
}

impl<'a> BatchedLca<'a> {
    pub fn new(tree: &'a Tree, layout: &'a Layout) -> Result<BatchedLca<'a>, LcaError> {
        if !layout.order().is_preorder() {
            return Err(LcaError::NotPreorder(layout.order()));
        }
        let n = tree.len();
        let size = tree.subtree_sizes();
        let (mut head, mut layer) = (vec![0u32; n], vec![0u32; n]);
        head[tree.root() as usize] = tree.root();
        for &v in tree.preorder() {
            let kids = tree.children(v);
            let heavy = kids.iter().copied().max_by_key(|&k| (size[k as usize], k));
            for &k in kids {
                let (ku, vu) = (k as usize, v as usize);
                if Some(k) == heavy {
                    head[ku] = head[vu];
                    layer[ku] = layer[vu];
                } else {
                    head[ku] = k;
                    layer[ku] = layer[vu] + 1;
                }
            }
        }
        Ok(BatchedLca {
            tree,
            pos: layout.pos(),
            head,
            layer,
        })
    }

    /// The number of layers below the root's path (the rounds of step 4).
    pub fn layers(&self) -> u32 {
        self.layer.iter().copied().max().unwrap_or(0)
    }

    /// Whether `x` lies in the subtree of `a` (by the range of positions).
    #[inline]
    fn within(&self, a: u32, x: u32) -> bool {
        let (lo, px) = (self.pos[a as usize], self.pos[x as usize]);
        lo <= px && px < lo + self.tree.subtree_size(a)
    }

    /// The path roots of layers 1 … layer(u) above `u`, layer 1 first.
    fn heads(&self, u: u32, out: &mut Vec<u32>) {
        out.clear();
        let mut h = self.head[u as usize];
        while self.layer[h as usize] > 0 {
            out.push(h);
            h = self.head[self.tree.parents()[h as usize] as usize];
        }
        out.reverse();
    }

    /// The answer the algorithm gives to the query (u, v): step 1's range test, else the
    /// first layer where a cover subtree holds exactly one of them.
    pub fn answer(&self, u: u32, v: u32, scratch: &mut (Vec<u32>, Vec<u32>)) -> u32 {
        if self.within(u, v) {
            return u;
        }
        if self.within(v, u) {
            return v;
        }
        let (hu, hv) = scratch;
        self.heads(u, hu);
        self.heads(v, hv);
        for i in 0..hu.len().max(hv.len()) {
            for (heads, other) in [(&*hu, v), (&*hv, u)] {
                if let Some(&s) = heads.get(i) {
                    let p = self.tree.parents()[s as usize];
                    if self.within(p, other) && !self.within(s, other) {
                        return p;
                    }
                }
            }
        }
        NO_PARENT
    }

    /// The energy and depth of the algorithm's own messages, steps 2 and 4; steps 1 and 3 are
    /// the treefix sums of contraction (leaffix, rootfix) on the same layout, which the caller
    /// adds. Every layer ends with the same barrier, the grid all-reduce
    /// ([`scan::all_reduce`] on every position, 1 word), counted once and repeated.
    pub fn cost(&self, vt: &VirtualTree, placements: &[Placement]) -> Cost {
        let n = self.tree.len();
        let barrier = &{
            let c = &mut Counter::new(placements, n);
            scan::all_reduce(c, n as u32, 1);
            c.cost()
        };
        let ranges = &mut Counter::new(placements, n);
        local::broadcast(vt, self.pos, ranges, 2);
        let c = &mut Counter::new(placements, n);
        let mut roots: Vec<Vec<u32>> = vec![Vec::new(); self.layers() as usize + 1];
        for v in 0..n as u32 {
            if self.head[v as usize] == v && self.layer[v as usize] > 0 {
                roots[self.layer[v as usize] as usize].push(v);
            }
        }
        // Each layer starts once the previous barrier has ended everywhere: its depth is its
        // own phases (the broadcast trees' levels) plus the barrier's.
        let mut depth = 0;
        let (mut frontier, mut next) = (Vec::new(), Vec::new());
        for layer in roots.iter().skip(1) {
            frontier.clear();
            frontier.extend(
                layer
                    .iter()
                    .map(|&s| (self.pos[s as usize], self.tree.subtree_size(s))),
            );
            depth += barrier.depth;
            while !frontier.is_empty() {
                next.clear();
                for &(a, m) in &frontier {
                    let left = (m - 1) / 2;
                    let right = m - 1 - left;
                    for (at, size) in [(a + 1, left), (a + 1 + left, right)] {
                        if size > 0 {
                            c.send(a, at, 4);
                            next.push((at, size));
                        }
                    }
                }
                c.end_phase();
                depth += u32::from(!next.is_empty());
                std::mem::swap(&mut frontier, &mut next);
            }
        }
        let rounds = self.layers() as u64;
        let step4 = Cost {
            energy: c
                .energy()
                .iter()
                .zip(&barrier.energy)
                .map(|(e, b)| e + rounds * b)
                .collect(),
            depth,
            messages: c.cost().messages + rounds * barrier.messages,
        };
        ranges.cost().then(&step4)
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::LinearOrder;
    use super::super::lifting::BinaryLifting;
    use super::*;
    use generators::{ChildOrder, Topology};
    use rand::RngExt as _;

    /// The layered answers equal binary lifting's on random queries, every topology (kary:2
    /// too), every preorder layout; the cheap CI share of the ≥ 10⁶ queries of tests/spatial.rs.
    #[test]
    fn answers_equal_binary_lifting() {
        let mut topologies = Topology::all_defaults();
        topologies.push("kary:2".parse().unwrap());
        for topo in topologies {
            for order in [LinearOrder::LightFirst, LinearOrder::DepthFirst] {
                let mut rng = generators::rng(11);
                let t = topo.generate(2000, order.child_order(), &mut rng).unwrap();
                let layout = Layout::new(&t, order);
                let lca = BatchedLca::new(&t, &layout).unwrap();
                let reference = BinaryLifting::new(&t);
                let mut scratch = Default::default();
                for _ in 0..5000 {
                    let (u, v) = (rng.random_range(0..2000), rng.random_range(0..2000));
                    assert_eq!(
                        lca.answer(u, v, &mut scratch),
                        reference.lca(u, v),
                        "{topo} {order} ({u}, {v})"
                    );
                }
            }
        }
    }

    /// Layers: a chain has one path (0 layers below it); a perfect binary tree of 2^k − 1
    /// vertices has k − 1; breadth-first layouts are refused.
    #[test]
    fn layers_and_refusal() {
        let make = |topo: &str, n| {
            topo.parse::<Topology>()
                .unwrap()
                .generate(n, ChildOrder::LightFirst, &mut generators::rng(1))
                .unwrap()
        };
        let chain = make("chain", 100);
        let lf = Layout::new(&chain, LinearOrder::LightFirst);
        assert_eq!(BatchedLca::new(&chain, &lf).unwrap().layers(), 0);
        let binary = make("kary:2", 1023);
        let lf = Layout::new(&binary, LinearOrder::LightFirst);
        assert_eq!(BatchedLca::new(&binary, &lf).unwrap().layers(), 9);
        let natural = binary.with_order(ChildOrder::Natural);
        let bfs = Layout::new(&natural, LinearOrder::BreadthFirst);
        assert!(BatchedLca::new(&natural, &bfs).is_err());
    }
}
