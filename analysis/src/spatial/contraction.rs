//! The communication of `contraction` (seed 002 §V, docs/design.md §12.6): every message
//! between cluster representatives, round by round, on the algorithm's own schedule
//! ([`crate::orders::contraction::Schedule`], the one its twin and its bounds run).
//!
//! A cluster is named by its representative, its top vertex, and lives on that vertex's
//! processor. Each round of the schedule sends, in phases:
//!
//! 1. *control*: every cluster with children tells them its random-mate coin and whether it
//!    has a single child (1 word), which is what a child needs to know whether it is viable; a
//!    cluster with several children is a single vertex, and reaches them along the pairwise
//!    tree of its children (below);
//! 2. *compress* c into p (x, c's only child): c → p its partial sum and x's name (2 words),
//!    c → x the name of its new parent (1 word); rootfix also p → c its Q\[p\] (1 word, A\[c\]);
//! 3. *rake* leaves s₁ … s_m into p: leaffix reduces their sums into p along the pairwise tree
//!    of the schedule's own sum (`crate::orders::contraction::pairwise`: at level j, the leader
//!    of the right half of every group of 2^j sends to the leader of its left half; then s₁ →
//!    p), 1 word each; rootfix broadcasts Q\[p\] to them along the same tree, mirrored (A\[s\]).
//!
//! Uncontraction, rounds in reverse: leaffix x → c, l\[x\] (1 word, l\[c\] = P\[c\] + l\[x\]);
//! rootfix p → every raked leaf (the pairwise tree) and p → c for every compress, R\[p\] (1 word;
//! nothing when p is the root's cluster, where R\[v\] = A\[v\]).

use super::curve::Placement;
use super::messages::{Cost, Counter, Processors};
use crate::Op;
use crate::orders::contraction::Schedule;
use generators::Tree;

/// The later phases of pairwise trees, kept until the current phase (phase 0, whose messages
/// are sent at once) ends.
#[derive(Default)]
struct Phases(Vec<Vec<(u32, u32, u32)>>);

impl Phases {
    fn push(&mut self, c: &mut Counter, phase: usize, (from, to): (u32, u32), words: u32) {
        if phase == 0 {
            return c.send(from, to, words);
        }
        if self.0.len() <= phase {
            self.0.resize_with(phase + 1, Vec::new);
        }
        self.0[phase].push((from, to, words));
    }

    /// Ends phase 0, then sends the kept phases in order, each a phase of its own.
    fn flush(&mut self, c: &mut Counter) {
        c.end_phase();
        for phase in self.0.iter_mut().skip(1) {
            if phase.is_empty() {
                continue;
            }
            for &(from, to, words) in phase.iter() {
                c.send(from, to, words);
            }
            c.end_phase();
            phase.clear();
        }
    }

    /// The reduce of `members` (processors, in order) into `root` along the pairwise tree:
    /// level j = 1 … ⌈log₂ m⌉ in phases 0 … J − 1, then members[0] → root in phase J.
    fn reduce(&mut self, c: &mut Counter, members: &[u32], root: u32, words: u32) {
        let levels = levels(members.len());
        for j in 1..=levels {
            let (group, half) = (1usize << j, 1usize << (j - 1));
            for a in (0..members.len()).step_by(group) {
                if a + half < members.len() {
                    self.push(c, j - 1, (members[a + half], members[a]), words);
                }
            }
        }
        self.push(c, levels, (members[0], root), words);
    }

    /// The mirror of [`Phases::reduce`]: root → members[0], then the levels top down.
    fn broadcast(&mut self, c: &mut Counter, root: u32, members: &[u32], words: u32) {
        let levels = levels(members.len());
        self.push(c, 0, (root, members[0]), words);
        for j in (1..=levels).rev() {
            let (group, half) = (1usize << j, 1usize << (j - 1));
            for a in (0..members.len()).step_by(group) {
                if a + half < members.len() {
                    self.push(c, levels - j + 1, (members[a], members[a + half]), words);
                }
            }
        }
    }
}

/// ⌈log₂ m⌉: the levels of the pairwise sum of m operands.
fn levels(m: usize) -> usize {
    (usize::BITS - (m.max(1) - 1).leading_zeros()) as usize
}

/// The messages of `contraction` `op` on `tree` with its schedule `s`, vertex v on processor
/// `pos.of(v)`.
pub fn contraction(
    tree: &Tree,
    s: &Schedule,
    pos: impl Processors,
    op: Op,
    placements: &[Placement],
) -> Cost {
    let [cost] = contraction_ops(tree, s, pos, [op], placements);
    cost
}

/// [`contraction`] for several ops in one replay of the schedule: the clusters' state and
/// every message's ends are worked out once, and each op's messages counted on its own
/// counter (the same counts as one replay per op).
pub fn contraction_ops<const K: usize>(
    tree: &Tree,
    s: &Schedule,
    pos: impl Processors,
    ops: [Op; K],
    placements: &[Placement],
) -> [Cost; K] {
    let n = tree.len();
    let mut counters: [(Counter, Phases, Op); K] =
        ops.map(|op| (Counter::new(placements, n), Phases::default(), op));
    let at = |v: u32| pos.of(v);
    // The clusters' state, replayed from the schedule as it ran.
    let mut nchild: Vec<u32> = (0..n as u32)
        .map(|v| tree.children(v).len() as u32)
        .collect();
    let mut xchild: Vec<u32> = (0..n as u32)
        .map(|v| tree.children(v).iter().fold(0, |a, &k| a ^ k))
        .collect();
    let mut gone = vec![false; n];
    // The children of every vertex not raked yet, compacted after each rake: a vertex with
    // several child clusters is a single vertex whose children are these.
    let (start, children) = tree.csr();
    let mut live = children.to_vec();
    let mut live_end: Vec<u32> = start[1..].to_vec();
    let mut active: Vec<u32> = (0..n as u32).collect();
    let mut members = Vec::new();
    for round in s.rounds() {
        for &q in &active {
            members.clear();
            match nchild[q as usize] {
                0 => continue,
                1 => members.push(at(xchild[q as usize])),
                _ => members.extend(
                    live[start[q as usize] as usize..live_end[q as usize] as usize]
                        .iter()
                        .map(|&k| at(k)),
                ),
            }
            for (c, phases, _) in &mut counters {
                phases.broadcast(c, at(q), &members, 1);
            }
        }
        for (c, phases, _) in &mut counters {
            phases.flush(c);
        }
        for k in s.compresses(round) {
            for (c, _, op) in &mut counters {
                if *op == Op::Rootfix {
                    c.send(at(k.p), at(k.c), 1);
                }
                c.send(at(k.c), at(k.p), 2);
                c.send(at(k.c), at(k.x), 1);
            }
            xchild[k.p as usize] = k.x;
            gone[k.c as usize] = true;
        }
        for (c, _, _) in &mut counters {
            c.end_phase();
        }
        for rake in s.rakes(round) {
            let leaves = s.leaves(rake);
            members.clear();
            members.extend(leaves.iter().map(|&v| at(v)));
            for (c, phases, op) in &mut counters {
                match op {
                    Op::Leaffix => phases.reduce(c, &members, at(rake.p), 1),
                    Op::Rootfix => phases.broadcast(c, at(rake.p), &members, 1),
                }
            }
            let p = rake.p as usize;
            for &v in leaves {
                nchild[p] -= 1;
                xchild[p] ^= v;
                gone[v as usize] = true;
            }
            let kept = &mut live[start[p] as usize..live_end[p] as usize];
            let mut end = 0;
            for i in 0..kept.len() {
                if !gone[kept[i] as usize] {
                    kept[end] = kept[i];
                    end += 1;
                }
            }
            live_end[p] = start[p] + end as u32;
        }
        for (c, phases, _) in &mut counters {
            phases.flush(c);
        }
        active.retain(|&v| !gone[v as usize]);
    }
    let root = s.root();
    counters.map(|(mut c, mut phases, op)| {
        let c = &mut c;
        for round in s.rounds().iter().rev() {
            match op {
                Op::Leaffix => {
                    for k in s.compresses(round) {
                        c.send(at(k.x), at(k.c), 1);
                    }
                    c.end_phase();
                }
                Op::Rootfix => {
                    for rake in s.rakes(round).iter().filter(|r| r.p != root) {
                        members.clear();
                        members.extend(s.leaves(rake).iter().map(|&v| at(v)));
                        phases.broadcast(c, at(rake.p), &members, 1);
                    }
                    phases.flush(c);
                    for k in s.compresses(round).iter().filter(|k| k.p != root) {
                        c.send(at(k.p), at(k.c), 1);
                    }
                    c.end_phase();
                }
            }
        }
        c.cost()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ops in one replay count what one replay per op counts, on every topology and
    /// curve.
    #[test]
    fn one_replay_for_both_ops() {
        use crate::spatial::{Curve, Renamed};
        use generators::{ChildOrder, Topology};
        for topo in Topology::all_defaults() {
            let t = topo
                .generate(3000, ChildOrder::LightFirst, &mut generators::rng(3))
                .unwrap();
            let s = Schedule::new(&t);
            let p: Vec<Placement> = [Curve::Hilbert, Curve::RowMajor]
                .map(|c| Placement::new(c, t.len()).unwrap())
                .into();
            let both = contraction_ops(&t, &s, Renamed, [Op::Leaffix, Op::Rootfix], &p);
            for (cost, op) in both.iter().zip([Op::Leaffix, Op::Rootfix]) {
                assert_eq!(cost, &contraction(&t, &s, Renamed, op, &p), "{topo} {op}");
            }
        }
    }

    #[test]
    fn pairwise_levels() {
        assert_eq!(levels(1), 0);
        assert_eq!(levels(2), 1);
        assert_eq!(levels(3), 2);
        assert_eq!(levels(4), 2);
        assert_eq!(levels(5), 3);
    }

    /// The reduce of 5 members: level 1 pairs (1→0, 3→2), level 2 (2→0), level 3 (4→0),
    /// then 0 → root; the broadcast is its mirror. Positions 10 … 14 and 19 on a row-major
    /// 10 × 10 grid: the energy is the sum of the index gaps (one row), the depth the phases.
    #[test]
    fn pairwise_tree_of_five() {
        let p = [crate::spatial::Placement::new(crate::spatial::Curve::RowMajor, 100).unwrap()];
        let members = [10, 11, 12, 13, 14];
        let mut c = Counter::new(&p, 100);
        let mut phases = Phases::default();
        phases.reduce(&mut c, &members, 19, 1);
        phases.flush(&mut c);
        // 11→10, 13→12, 12→10, 14→10, 10→19: 1 + 1 + 2 + 4 + 9; the longest chain is
        // 13→12→10→19 (14→10 goes in the third phase, but depends on nothing). Under the
        // per-round limit, 10 takes its three messages in rounds 1, 2, 3 and sends in round 3:
        // depth 4.
        let cost = c.cost();
        assert_eq!(cost.energy, vec![17]);
        assert_eq!((cost.chain_depth, cost.depth, cost.messages), (3, 4, 5));
        // 19→10, 10→14, 10→12, then 10→11 and 12→13: the longest chain 19→10→12→13; 10 sends
        // three messages one per round (rounds 1, 2, 3), the last reaching 11 in round 4.
        let mut c = Counter::new(&p, 100);
        phases.broadcast(&mut c, 19, &members, 1);
        phases.flush(&mut c);
        let cost = c.cost();
        assert_eq!(cost.energy, vec![17]);
        assert_eq!((cost.chain_depth, cost.depth, cost.messages), (3, 4, 5));
    }
}
