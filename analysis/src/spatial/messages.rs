//! Exact counting of a message pattern's energy, depth and congestion (seed 002 §II-A,
//! docs/design.md §12.1), message by message.
//!
//! A processor is named by its position in the layout's linear order (vertex v lives on
//! processor `pos[v]`); each [`Placement`] puts the positions on a grid by one curve. A
//! message of w words from processor i to processor j costs w × the Manhattan distance of
//! their cells: its *energy*, summed over every message, for every placement at once (the
//! messages do not depend on the curve, only their lengths do).
//!
//! A pattern sends its messages in *phases*: the messages of one phase are independent of each
//! other, and a message depends on every message its sender received in an earlier phase. A
//! message to the processor itself is no message: it costs nothing and adds no depth. Two
//! depths are counted:
//!
//! - the **chain depth**, the longest chain of dependent messages: each processor keeps a
//!   clock, a message leaves with its sender's clock at the start of its phase and arrives one
//!   later. It ignores the model's limit on messages per round: a star's root reaching its
//!   n − 1 leaves in one phase has chain depth 1.
//! - the **depth** under that limit (the model's: a processor sends and receives a constant
//!   number of messages per round; here one of each). A greedy schedule: a processor sends the
//!   messages of a phase one per round, in the order the pattern lists them, from the first
//!   round at which it has received everything of earlier phases; a message sent in round r
//!   reaches its receiver at r + 1, and a processor takes one message per round, earliest
//!   arrival first, its clock the round of the last one taken. The depth is the last round in
//!   which a message is taken: the star's root above takes n − 1 rounds.
//!
//! **Congestion** is the most messages one processor sends or receives in one phase (what
//! the limit serialises: depth exceeds chain depth where it exceeds 1). **Contention** is the
//! most words one processor sends or receives over the whole pattern (the C of
//! [`super::time_model`]), and **longest** the longest distance one message travels.

use super::curve::Placement;

/// Where the vertices live: the processor of vertex v. A layout's positions (`&[u32]`,
/// `pos[v]`), or [`Renamed`] for a tree renamed by position, where the lookup would only read
/// back v — one memory access per message end saved, on trees of millions of vertices.
pub trait Processors: Copy + Sync {
    fn of(self, v: u32) -> u32;
}

impl Processors for &[u32] {
    #[inline]
    fn of(self, v: u32) -> u32 {
        self[v as usize]
    }
}

/// Vertex v on processor v: the tree renamed by position (`super::Layout::renamed`).
#[derive(Debug, Clone, Copy)]
pub struct Renamed;

impl Processors for Renamed {
    #[inline]
    fn of(self, v: u32) -> u32 {
        v
    }
}

/// One step of a pattern that runs whole before the next starts (batched LCA's steps): what
/// the time estimate ([`super::time_model`]) reads, step by step.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Step {
    /// Σ words × distance, per placement.
    pub energy: Vec<u64>,
    /// Its depth under the per-round limit.
    pub depth: u64,
    /// The most words one processor sends or receives in it.
    pub contention: u64,
    /// The longest distance one of its messages travels, per placement.
    pub longest: Vec<u32>,
}

/// What a pattern cost.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cost {
    /// Σ words × Manhattan distance, one per placement (in the order given).
    pub energy: Vec<u64>,
    /// Rounds under the model's limit of one message sent and one received per processor per
    /// round (the greedy schedule of the module's text).
    pub depth: u64,
    /// The longest chain of dependent messages, without that limit.
    pub chain_depth: u64,
    /// Number of messages (between distinct processors).
    pub messages: u64,
    /// The most messages one processor sends or receives in one phase.
    pub congestion: u64,
    /// The steps, one after another (one for a pattern counted on one counter).
    pub steps: Vec<Step>,
}

impl Cost {
    /// Two patterns one after the other (every processor waits for the first to end): the
    /// energies, message counts and depths add; the congestion is the larger.
    pub fn then(mut self, next: &Cost) -> Cost {
        if self.energy.is_empty() {
            self.energy = vec![0; next.energy.len()];
        }
        for (a, b) in self.energy.iter_mut().zip(&next.energy) {
            *a += b;
        }
        self.depth += next.depth;
        self.chain_depth += next.chain_depth;
        self.messages += next.messages;
        self.congestion = self.congestion.max(next.congestion);
        self.steps.extend(next.steps.iter().cloned());
        self
    }

    /// The same messages with `words` times the words each.
    pub fn times(mut self, words: u64) -> Cost {
        self.energy.iter_mut().for_each(|e| *e *= words);
        for s in &mut self.steps {
            s.energy.iter_mut().for_each(|e| *e *= words);
            s.contention *= words;
        }
        self
    }

    /// The most words one processor sends or receives in one step.
    pub fn contention(&self) -> u64 {
        self.steps.iter().map(|s| s.contention).max().unwrap_or(0)
    }

    /// The longest distance one message travels, per placement.
    pub fn longest(&self) -> Vec<u32> {
        let mut out = vec![0; self.energy.len()];
        for s in &self.steps {
            for (o, &l) in out.iter_mut().zip(&s.longest) {
                *o = (*o).max(l);
            }
        }
        out
    }
}

/// A message of the current phase, on its way.
#[derive(Debug, Clone, Copy)]
struct Pending {
    to: u32,
    words: u32,
    /// Its arrival on the chain clock.
    chain: u32,
    /// The round it reaches its receiver under the per-round limit.
    round: u32,
}

/// A processor's state while a pattern is counted: one record per processor, so that a
/// message's end reads one cache line, not one per array (the counts walk millions of them).
#[derive(Debug, Clone, Copy, Default)]
struct Proc {
    /// The longest chain that reached it.
    chain: u32,
    /// The round from which it may send its next message.
    send_free: u32,
    /// The round from which it may take its next message; one more than the round of the last
    /// one it took, so also one more than the round its state is ready.
    recv_free: u32,
    /// The phase (+ 1) of its sends and receives counted in `sent` and `got`, and how many.
    sent_in: u32,
    sent: u32,
    got_in: u32,
    got: u32,
    /// What `recv_free` was before the current phase, and the arrival round of its first
    /// message in it: a second message undoes the first one's provisional take.
    recv_before: u32,
    first_round: u32,
    words_out: u32,
    words_in: u32,
}

/// Counts the messages of one pattern, phase by phase.
pub struct Counter<'a> {
    placements: &'a [Placement],
    procs: Vec<Proc>,
    /// The current phase + 1 (0 marks no phase in a processor's tallies).
    phase: u32,
    pending: Vec<Pending>,
    /// Receivers of several messages in one phase: (processor, arrival round), sorted to be
    /// taken earliest first.
    crowded: Vec<(u32, u32)>,
    energy: Vec<u64>,
    longest: Vec<u32>,
    chain_depth: u32,
    depth: u32,
    /// Clocks no processor is behind, set by [`Counter::barrier`]: (chain, round).
    floor: (u32, u32),
    messages: u64,
    congestion: u32,
}

impl<'a> Counter<'a> {
    /// A counter for `processors` processors (positions 0 … processors − 1), placed by each of
    /// `placements` (each must hold at least that many cells).
    pub fn new(placements: &'a [Placement], processors: usize) -> Counter<'a> {
        assert!(placements.iter().all(|p| p.len() >= processors));
        Counter {
            placements,
            procs: vec![Proc::default(); processors],
            phase: 1,
            pending: Vec::new(),
            crowded: Vec::new(),
            energy: vec![0; placements.len()],
            longest: vec![0; placements.len()],
            chain_depth: 0,
            depth: 0,
            floor: (0, 0),
            messages: 0,
            congestion: 0,
        }
    }

    /// One message of `words` words from processor `from` to processor `to`, in the current
    /// phase.
    #[inline]
    pub fn send(&mut self, from: u32, to: u32, words: u32) {
        if from == to {
            return;
        }
        for ((e, l), p) in self
            .energy
            .iter_mut()
            .zip(self.longest.iter_mut())
            .zip(self.placements)
        {
            let d = p.distance(from, to);
            *e += words as u64 * d as u64;
            *l = (*l).max(d);
        }
        let (floor, phase) = (self.floor, self.phase);
        let f = &mut self.procs[from as usize];
        let chain = f.chain.max(floor.0) + 1;
        let leave = (f.recv_free.saturating_sub(1))
            .max(f.send_free)
            .max(floor.1);
        f.send_free = leave + 1;
        f.words_out = f.words_out.saturating_add(words);
        if f.sent_in != phase {
            f.sent_in = phase;
            f.sent = 0;
        }
        f.sent += 1;
        self.congestion = self.congestion.max(f.sent);
        self.chain_depth = self.chain_depth.max(chain);
        self.messages += 1;
        self.pending.push(Pending {
            to,
            words,
            chain,
            round: leave + 1,
        });
    }

    /// Ends the current phase: its messages have arrived. A receiver takes one message per
    /// round, earliest arrival first: a lone message at once, several sorted.
    pub fn end_phase(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let phase = self.phase;
        for m in &self.pending {
            let t = &mut self.procs[m.to as usize];
            t.chain = t.chain.max(m.chain);
            t.words_in = t.words_in.saturating_add(m.words);
            if t.got_in != phase {
                // The first message of the phase: taken provisionally.
                t.got_in = phase;
                t.got = 1;
                t.recv_before = t.recv_free;
                t.first_round = m.round;
                let slot = m.round.max(t.recv_free);
                t.recv_free = slot + 1;
                self.depth = self.depth.max(slot);
                continue;
            }
            t.got += 1;
            self.congestion = self.congestion.max(t.got);
            if t.got == 2 {
                // Not alone: its first message joins the sorted ones, taken afresh. (Its
                // provisional round is no later than the rounds they will take.)
                t.recv_free = t.recv_before;
                self.crowded.push((m.to, t.first_round));
            }
            self.crowded.push((m.to, m.round));
        }
        self.crowded.sort_unstable();
        for &(to, round) in &self.crowded {
            let r = &mut self.procs[to as usize].recv_free;
            let slot = round.max(*r);
            *r = slot + 1;
            self.depth = self.depth.max(slot);
        }
        self.crowded.clear();
        self.pending.clear();
        self.phase += 1;
    }

    /// A barrier: every processor waits until every message so far has arrived (ends the
    /// current phase).
    pub fn barrier(&mut self) {
        self.end_phase();
        self.floor = (self.chain_depth, self.depth);
    }

    /// (depth, chain depth) so far.
    pub fn depths(&self) -> (u64, u64) {
        (self.depth as u64, self.chain_depth as u64)
    }

    /// The energy so far, per placement.
    pub fn energy(&self) -> &[u64] {
        &self.energy
    }

    /// What the pattern cost so far, as one step (the current phase included).
    pub fn cost(&mut self) -> Cost {
        self.end_phase();
        let contention = self
            .procs
            .iter()
            .map(|p| p.words_out.max(p.words_in))
            .max()
            .unwrap_or(0) as u64;
        Cost {
            energy: self.energy.clone(),
            depth: self.depth as u64,
            chain_depth: self.chain_depth as u64,
            messages: self.messages,
            congestion: self.congestion as u64,
            steps: vec![Step {
                energy: self.energy.clone(),
                depth: self.depth as u64,
                contention,
                longest: self.longest.clone(),
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::curve::Curve;

    /// Phases: a chain 0 → 1 → 2 sent in one phase has depth 1 (independent messages); in two
    /// phases, depth 2. Energy: row-major 3 × 3 grid, positions 0 and 4 are (0,0) and (1,1).
    #[test]
    fn phases_and_energy() {
        let p = [Placement::new(Curve::RowMajor, 9).unwrap()];
        let mut c = Counter::new(&p, 9);
        c.send(0, 1, 1);
        c.send(1, 2, 1);
        c.end_phase();
        assert_eq!((c.cost().chain_depth, c.cost().depth), (1, 1));
        let mut c = Counter::new(&p, 9);
        c.send(0, 1, 1);
        c.end_phase();
        c.send(1, 2, 1);
        c.end_phase();
        c.send(3, 3, 5);
        c.send(0, 4, 3);
        c.end_phase();
        let cost = c.cost();
        assert_eq!(cost.energy, vec![1 + 1 + 3 * 2]);
        assert_eq!((cost.chain_depth, cost.depth, cost.messages), (2, 2, 3));
        // Processor 0 sent two messages, but in two phases; everyone else one at a time.
        assert_eq!(cost.congestion, 1);
        // Processor 0 sent 1 + 3 words; processor 4 received 3.
        assert_eq!(cost.contention(), 4);
        assert_eq!(cost.longest(), vec![2]);
    }

    /// One processor sending k messages in one phase takes k rounds (chain depth 1); k
    /// processors sending to one take k rounds too; a message that waits for a serialised one
    /// leaves after it.
    #[test]
    fn the_limit_serialises_a_phase() {
        let p = [Placement::new(Curve::RowMajor, 16).unwrap()];
        let mut c = Counter::new(&p, 16);
        for k in 1..8 {
            c.send(0, k, 1);
        }
        c.end_phase();
        // 7 sends from 0 leave in rounds 0 … 6 and arrive in rounds 1 … 7.
        assert_eq!(
            (c.cost().chain_depth, c.cost().depth, c.cost().congestion),
            (1, 7, 7)
        );
        // Processor 7 (reached in round 7) forwards: its message arrives in round 8.
        c.send(7, 8, 1);
        c.end_phase();
        assert_eq!((c.cost().chain_depth, c.cost().depth), (2, 8));
        let mut c = Counter::new(&p, 16);
        for k in 1..6 {
            c.send(k, 0, 1);
        }
        c.end_phase();
        assert_eq!(
            (c.cost().chain_depth, c.cost().depth, c.cost().congestion),
            (1, 5, 5)
        );
        // Receivers take the earliest arrival first: 9 reaches 10 in round 1 once 0's second
        // message (round 2) is listed before it.
        let mut c = Counter::new(&p, 16);
        c.send(0, 1, 1);
        c.send(0, 10, 1);
        c.send(9, 10, 1);
        c.end_phase();
        assert_eq!(c.cost().depth, 2);
    }
}
