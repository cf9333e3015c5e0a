//! The communication of the Euler-tour family — `vectorial` and its variants, and
//! `vectorial-exact` (docs/design.md §4, §12.3, §12.5): the vertex ↔ tour-position messages around a
//! grid prefix scan ([`super::scan`]).
//!
//! The 2n positions of the Euler tour live two per processor: tour position t on processor
//! ⌊t / 2⌋ (the tour is part of the layout, computed once with it, seed §IV). Then
//!
//! 1. *write*: vertex v sends its weight (1 word, an f32) to the processors of open\[v\] and, for
//!    rootfix, of close\[v\] (leaffix writes +0 there, which the tour processor knows alone);
//! 2. *scan*: each processor adds its two entries, and the plan of [`super::scan`] scans the n
//!    processors' sums; every message carries a scan value;
//! 3. *read*: rootfix: the processor of open\[v\] sends S[open v] to v; leaffix: the processors of
//!    close\[v\] and open\[v\] − 1 send S[close v] and S[open v − 1] to v, which subtracts.
//!
//! A scan value is 1 word for `vectorial` (f32), 2 for `vectorial-compensated` (a float-float)
//! and L for `vectorial-exact` (its fixed point of L 32-bit limbs). A rootfix read can be
//! rounded to f32 where it is read (1 word); a leaffix read carries the scan value, whose
//! difference is taken at v. The parts are counted apart so that one count serves every word
//! size.

use super::curve::Placement;
use super::messages::{Cost, Counter, Processors};
use super::scan;
use crate::Op;
use generators::Tree;

/// The Euler-tour pattern of one op, counted in its three parts (each per placement).
#[derive(Debug, Clone)]
pub struct TourCost {
    /// The writes (one word each).
    pub write: Vec<u64>,
    /// The scan's messages, counted with one word each.
    pub scan: Vec<u64>,
    /// The reads, counted with one word each.
    pub read: Vec<u64>,
    pub depth: u32,
    pub messages: u64,
    pub op: Op,
}

impl TourCost {
    /// The cost with scan values of `words` words.
    pub fn with_words(&self, words: u64) -> Cost {
        let read_words = match self.op {
            Op::Rootfix => 1,
            Op::Leaffix => words,
        };
        Cost {
            energy: (0..self.write.len())
                .map(|i| self.write[i] + words * self.scan[i] + read_words * self.read[i])
                .collect(),
            depth: self.depth,
            messages: self.messages,
        }
    }
}

/// The messages of the Euler-tour family's `op` on `tree` (its child order fixes the tour).
pub fn euler_tour(tree: &Tree, pos: impl Processors, op: Op, placements: &[Placement]) -> TourCost {
    let n = tree.len();
    let c = &mut Counter::new(placements, n);
    let (open, close) = (tree.open(), tree.close());
    let cell = |t: u32| t / 2;
    for v in 0..n {
        c.send(pos.of(v as u32), cell(open[v]), 1);
        if op == Op::Rootfix {
            c.send(pos.of(v as u32), cell(close[v]), 1);
        }
    }
    c.end_phase();
    let e0 = c.energy().to_vec();
    scan::scan(c, n as u32, 1);
    let e1 = c.energy().to_vec();
    for v in 0..n {
        match op {
            Op::Rootfix => c.send(cell(open[v]), pos.of(v as u32), 1),
            Op::Leaffix => {
                c.send(cell(close[v]), pos.of(v as u32), 1);
                if open[v] > 0 {
                    c.send(cell(open[v] - 1), pos.of(v as u32), 1);
                }
            }
        }
    }
    c.end_phase();
    let cost = c.cost();
    let minus = |a: &[u64], b: &[u64]| a.iter().zip(b).map(|(x, y)| x - y).collect::<Vec<_>>();
    TourCost {
        write: e0.clone(),
        scan: minus(&e1, &e0),
        read: minus(&cost.energy, &e1),
        depth: cost.depth,
        messages: cost.messages,
        op,
    }
}
