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
    /// The vertex at each position.
    vertex_at: Vec<u32>,
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
        let mut vertex_at = vec![0u32; n];
        for (v, &p) in layout.pos().iter().enumerate() {
            vertex_at[p as usize] = v as u32;
        }
        Ok(BatchedLca {
            tree,
            pos: layout.pos(),
            head,
            layer,
            vertex_at,
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

    /// The algorithm on `queries` (pairs of vertices), replayed message by message: its answers,
    /// taken where its messages deliver what decides them, and the energy and depth of its
    /// own messages, steps 2 and 4 (steps 1 and 3 are the treefix sums of contraction, leaffix
    /// and rootfix, on the same layout, which the caller adds). Every layer ends with the same
    /// barrier, the grid all-reduce ([`scan::all_reduce`] on every position, 1 word), counted
    /// once and repeated. An answer is [`NO_PARENT`] only where the algorithm answered nothing,
    /// which Corollary 3 rules out.
    pub fn run(
        &self,
        vt: &VirtualTree,
        placements: &[Placement],
        queries: &[(u32, u32)],
    ) -> LcaRun {
        let n = self.tree.len();
        let mut answers = vec![NO_PARENT; queries.len()];
        // Step 1: a query with one end in the other's range is answered by that end.
        for (q, &(u, v)) in queries.iter().enumerate() {
            if self.within(u, v) {
                answers[q] = u;
            } else if self.within(v, u) {
                answers[q] = v;
            }
        }
        let held = Held::new(n, queries, &answers);
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
        // Each layer starts once the previous barrier has ended everywhere: its depths are its
        // own (the broadcast trees' levels, counted from the barrier on) plus the barrier's.
        let (mut frontier, mut next) = (Vec::new(), Vec::new());
        for layer in roots.iter().skip(1) {
            c.barrier();
            frontier.clear();
            for &s in layer {
                // What s broadcasts: its parent's range (learned in step 2) and its own.
                let p = self.tree.parents()[s as usize];
                self.decide(&held, queries, &mut answers, s, p, s);
                frontier.push((self.pos[s as usize], self.tree.subtree_size(s), s));
            }
            while !frontier.is_empty() {
                next.clear();
                for &(a, m, s) in &frontier {
                    let left = (m - 1) / 2;
                    let right = m - 1 - left;
                    for (at, size) in [(a + 1, left), (a + 1 + left, right)] {
                        if size > 0 {
                            c.send(a, at, 4);
                            next.push((at, size, s));
                        }
                    }
                }
                c.end_phase();
                for &(at, _, s) in &next {
                    let p = self.tree.parents()[s as usize];
                    self.decide(
                        &held,
                        queries,
                        &mut answers,
                        self.vertex_at[at as usize],
                        p,
                        s,
                    );
                }
                std::mem::swap(&mut frontier, &mut next);
            }
        }
        let rounds = self.layers() as u64;
        let own = c.cost();
        let mut step4 = own.clone();
        step4.energy = own
            .energy
            .iter()
            .zip(&barrier.energy)
            .map(|(e, b)| e + rounds * b)
            .collect();
        step4.depth = own.depth + rounds * barrier.depth;
        step4.chain_depth = own.chain_depth + rounds * barrier.chain_depth;
        step4.messages = own.messages + rounds * barrier.messages;
        step4.congestion = own.congestion.max(barrier.congestion);
        for _ in 0..rounds {
            step4.steps.extend(barrier.steps.iter().cloned());
        }
        LcaRun {
            cost: ranges.cost().then(&step4),
            answers,
        }
    }

    /// Vertex `u` has received (p's range, s's range): it answers p for each query it holds
    /// whose other end lies in p's range but not in s's.
    fn decide(
        &self,
        held: &Held,
        queries: &[(u32, u32)],
        answers: &mut [u32],
        u: u32,
        p: u32,
        s: u32,
    ) {
        for &q in held.of(u) {
            let (a, b) = queries[q as usize];
            let other = if a == u { b } else { a };
            if answers[q as usize] == NO_PARENT && self.within(p, other) && !self.within(s, other) {
                answers[q as usize] = p;
            }
        }
    }

    /// The energy and depth of the algorithm's own messages (no queries).
    pub fn cost(&self, vt: &VirtualTree, placements: &[Placement]) -> Cost {
        self.run(vt, placements, &[]).cost
    }
}

/// What [`BatchedLca::run`] gives.
pub struct LcaRun {
    pub cost: Cost,
    /// Per query, the vertex that answered it.
    pub answers: Vec<u32>,
}

/// The queries still open after step 1, by the vertices that hold them (both ends).
struct Held {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Held {
    fn new(n: usize, queries: &[(u32, u32)], answers: &[u32]) -> Held {
        let open = || {
            queries
                .iter()
                .enumerate()
                .filter(|(q, _)| answers[*q] == NO_PARENT)
        };
        let mut start = vec![0u32; n + 1];
        for (_, &(u, v)) in open() {
            start[u as usize + 1] += 1;
            start[v as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut items = vec![0u32; start[n] as usize];
        for (q, &(u, v)) in open() {
            for x in [u, v] {
                items[fill[x as usize] as usize] = q as u32;
                fill[x as usize] += 1;
            }
        }
        Held { start, items }
    }

    fn of(&self, u: u32) -> &[u32] {
        &self.items[self.start[u as usize] as usize..self.start[u as usize + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::LinearOrder;
    use super::super::lifting::BinaryLifting;
    use super::*;
    use generators::{ChildOrder, Topology};
    use rand::RngExt as _;

    /// The answers of the replay equal binary lifting's on random queries, every topology
    /// (kary:2 too), every preorder layout; the cheap CI share of the ≥ 10⁶ queries of
    /// tests/spatial_lca.rs.
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
                let queries: Vec<(u32, u32)> = (0..5000)
                    .map(|_| (rng.random_range(0..2000), rng.random_range(0..2000)))
                    .collect();
                let vt = VirtualTree::new(&t);
                let p = [Placement::new(crate::spatial::Curve::Hilbert, 2000).unwrap()];
                let run = lca.run(&vt, &p, &queries);
                for (&(u, v), &a) in queries.iter().zip(&run.answers) {
                    assert_eq!(a, reference.lca(u, v), "{topo} {order} ({u}, {v})");
                }
                // The queries change the answers, never the messages.
                assert_eq!(run.cost, lca.cost(&vt, &p), "{topo} {order}");
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
