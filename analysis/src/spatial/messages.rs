//! Exact counting of a message pattern's energy and depth (seed 002 §II-A, docs/design.md
//! §12.1), message by message.
//!
//! A processor is named by its position in the layout's linear order (vertex v lives on
//! processor `pos[v]`); each [`Placement`] puts the positions on a grid by one curve. A
//! message of w words from processor i to processor j costs w × the Manhattan distance of
//! their cells: its *energy*, summed over every message, for every placement at once (the
//! messages do not depend on the curve, only their lengths do).
//!
//! *Depth* is the longest chain of dependent messages. A pattern sends its messages in
//! *phases*: the messages of one phase are independent of each other, and a message depends
//! on every message its sender received in an earlier phase. Each processor keeps a clock,
//! the depth of the longest chain that reached it; a message leaves with its sender's clock
//! as it was at the start of the phase and arrives one later. A message to the processor
//! itself is no message: it costs nothing and adds no depth.

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

/// What a pattern cost.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cost {
    /// Σ words × Manhattan distance, one per placement (in the order given).
    pub energy: Vec<u64>,
    /// The longest chain of dependent messages.
    pub depth: u32,
    /// Number of messages (between distinct processors).
    pub messages: u64,
}

impl Cost {
    /// Two patterns one after the other (every processor waits for the first to end): the
    /// energies and message counts add, and so do the depths.
    pub fn then(mut self, next: &Cost) -> Cost {
        if self.energy.is_empty() {
            self.energy = vec![0; next.energy.len()];
        }
        for (a, b) in self.energy.iter_mut().zip(&next.energy) {
            *a += b;
        }
        self.depth += next.depth;
        self.messages += next.messages;
        self
    }

    /// The energy of every message counted `words` times (its words scaled).
    pub fn times(mut self, words: u64) -> Cost {
        self.energy.iter_mut().for_each(|e| *e *= words);
        self
    }
}

/// Counts the messages of one pattern, phase by phase.
pub struct Counter<'a> {
    placements: &'a [Placement],
    clock: Vec<u32>,
    /// Arrivals of the current phase: (processor, depth).
    pending: Vec<(u32, u32)>,
    energy: Vec<u64>,
    depth: u32,
    messages: u64,
}

impl<'a> Counter<'a> {
    /// A counter for `processors` processors (positions 0 … processors − 1), placed by each of
    /// `placements` (each must hold at least that many cells).
    pub fn new(placements: &'a [Placement], processors: usize) -> Counter<'a> {
        assert!(placements.iter().all(|p| p.len() >= processors));
        Counter {
            placements,
            clock: vec![0; processors],
            pending: Vec::new(),
            energy: vec![0; placements.len()],
            depth: 0,
            messages: 0,
        }
    }

    /// One message of `words` words from processor `from` to processor `to`, in the current
    /// phase.
    #[inline]
    pub fn send(&mut self, from: u32, to: u32, words: u32) {
        if from == to {
            return;
        }
        for (e, p) in self.energy.iter_mut().zip(self.placements) {
            *e += words as u64 * p.distance(from, to) as u64;
        }
        let arrival = self.clock[from as usize] + 1;
        self.depth = self.depth.max(arrival);
        self.messages += 1;
        self.pending.push((to, arrival));
    }

    /// Ends the current phase: its messages have arrived.
    pub fn end_phase(&mut self) {
        for &(to, arrival) in &self.pending {
            let c = &mut self.clock[to as usize];
            *c = (*c).max(arrival);
        }
        self.pending.clear();
    }

    /// The energy so far, per placement.
    pub fn energy(&self) -> &[u64] {
        &self.energy
    }

    /// What the pattern cost so far (the current phase included).
    pub fn cost(&self) -> Cost {
        Cost {
            energy: self.energy.clone(),
            depth: self.depth,
            messages: self.messages,
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
        assert_eq!(c.cost().depth, 1);
        let mut c = Counter::new(&p, 9);
        c.send(0, 1, 1);
        c.end_phase();
        c.send(1, 2, 1);
        c.end_phase();
        c.send(3, 3, 5);
        c.send(0, 4, 3);
        c.end_phase();
        assert_eq!(
            c.cost(),
            Cost {
                energy: vec![1 + 1 + 3 * 2],
                depth: 2,
                messages: 3
            }
        );
    }
}
