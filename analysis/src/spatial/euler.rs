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
use super::messages::{Cost, Counter, Processors, Step};
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
    /// The pattern counted with one word per message: depths, messages, congestion, longest.
    pub unit: Cost,
    /// (scan words, contention): the most words one processor sends or receives, per scan
    /// word size asked for.
    pub contention: Vec<(u64, u64)>,
    pub op: Op,
}

/// Words of a read with scan values of `words` words: rounded to f32 where a rootfix reads
/// it, the scan value itself for leaffix's difference.
fn read_words(op: Op, words: u64) -> u64 {
    match op {
        Op::Rootfix => 1,
        Op::Leaffix => words,
    }
}

impl TourCost {
    /// The cost with scan values of `words` words (one of those asked for in [`euler_tour`]).
    pub fn with_words(&self, words: u64) -> Cost {
        let read_words = read_words(self.op, words);
        let energy: Vec<u64> = (0..self.write.len())
            .map(|i| self.write[i] + words * self.scan[i] + read_words * self.read[i])
            .collect();
        let contention = self
            .contention
            .iter()
            .find(|c| c.0 == words)
            .expect("the word size was asked for")
            .1;
        Cost {
            energy: energy.clone(),
            steps: vec![Step {
                energy,
                depth: self.unit.depth,
                contention,
                longest: self.unit.longest(),
            }],
            ..self.unit.clone()
        }
    }
}

/// Words per processor and direction, by part: what a word size turns into contention.
struct Tally {
    /// [write, scan, read] words sent, then received, per processor.
    out: [Vec<u32>; 3],
    inn: [Vec<u32>; 3],
}

impl Tally {
    fn add(&mut self, part: usize, from: u32, to: u32) {
        if from != to {
            self.out[part][from as usize] += 1;
            self.inn[part][to as usize] += 1;
        }
    }

    /// The most words one processor sends or receives, with reads and scan values of these
    /// words.
    fn contention(&self, scan_words: u64, read_words: u64) -> u64 {
        let words = |t: &[Vec<u32>; 3], p: usize| {
            t[0][p] as u64 + scan_words * t[1][p] as u64 + read_words * t[2][p] as u64
        };
        (0..self.out[0].len())
            .map(|p| words(&self.out, p).max(words(&self.inn, p)))
            .max()
            .unwrap_or(0)
    }
}

/// The messages of the Euler-tour family's `op` on `tree` (its child order fixes the tour),
/// with the contention of each scan word size of `words`.
pub fn euler_tour(
    tree: &Tree,
    pos: impl Processors,
    op: Op,
    placements: &[Placement],
    words: &[u64],
) -> TourCost {
    let n = tree.len();
    let c = &mut Counter::new(placements, n);
    let zeros = || [vec![0u32; n], vec![0u32; n], vec![0u32; n]];
    let mut tally = Tally {
        out: zeros(),
        inn: zeros(),
    };
    let (open, close) = (tree.open(), tree.close());
    let cell = |t: u32| t / 2;
    for v in 0..n {
        let at = pos.of(v as u32);
        c.send(at, cell(open[v]), 1);
        tally.add(0, at, cell(open[v]));
        if op == Op::Rootfix {
            c.send(at, cell(close[v]), 1);
            tally.add(0, at, cell(close[v]));
        }
    }
    c.end_phase();
    let e0 = c.energy().to_vec();
    scan::scan_with(c, n as u32, 1, &mut |from, to| tally.add(1, from, to));
    let e1 = c.energy().to_vec();
    let mut read = |c: &mut Counter, from: u32, to: u32| {
        c.send(from, to, 1);
        tally.add(2, from, to);
    };
    for v in 0..n {
        let at = pos.of(v as u32);
        match op {
            Op::Rootfix => read(c, cell(open[v]), at),
            Op::Leaffix => {
                read(c, cell(close[v]), at);
                if open[v] > 0 {
                    read(c, cell(open[v] - 1), at);
                }
            }
        }
    }
    let unit = c.cost();
    let minus = |a: &[u64], b: &[u64]| a.iter().zip(b).map(|(x, y)| x - y).collect::<Vec<_>>();
    TourCost {
        write: e0.clone(),
        scan: minus(&e1, &e0),
        read: minus(&unit.energy, &e1),
        contention: words
            .iter()
            .map(|&w| (w, tally.contention(w, read_words(op, w))))
            .collect(),
        unit,
        op,
    }
}
