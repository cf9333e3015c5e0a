//! An order traced into levels of independent additions: what a GPU runs when an order's
//! additions follow no regular pattern (the contraction order's rakes and compresses).
//!
//! Running a generic order on [`Traced`] values records every addition `a + b` (its operands
//! named by *slot*) instead of computing it. Slot 0 holds +0, slots 1 ..= n the weights, and
//! each addition writes a slot of its own, so a value, once written, never changes. The
//! additions are then grouped by depth (inputs have depth 0, an addition one more than its
//! deeper operand): those of one level are independent, and a level only reads slots of
//! earlier levels. [`AdditionProgram::eval`] runs the levels one after the other; a GPU runs
//! each level as one dispatch (`shaders/addition_level.wgsl`). Each addition has the same two
//! operands as in the order, so every result has the order's bits (tested against it).
//!
//! The number of levels is the order's depth: O(log n) for contraction on any tree (a chain
//! of 10^5 vertices: 54 levels for leaffix, 65 for rootfix; a star: 18 and 1).

use crate::scan_value::ScanValue;
use std::cell::RefCell;

/// A value of a traced order: the slot that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Traced(u32);

/// The first slot the additions write, and their operand slots in the order they happen.
type Tape = (u32, Vec<(u32, u32)>);

thread_local! {
    /// The additions recorded so far by this thread's [`AdditionProgram::trace`]. `ScanValue::plus`
    /// takes no context, so the tape is here; it is only ever set for the duration of one trace.
    static TAPE: RefCell<Option<Tape>> = const { RefCell::new(None) };
}

impl ScanValue for Traced {
    /// Traced orders are given the slots of the weights as the f32 of those bits (slot 0,
    /// the bits of +0, is the order's zero).
    #[inline]
    fn term(w: f32) -> Self {
        Traced(w.to_bits())
    }
    fn plus(self, rhs: Self) -> Self {
        TAPE.with(|t| {
            let mut t = t.borrow_mut();
            let (first, adds) = t
                .as_mut()
                .expect("Traced values are added only inside a trace");
            adds.push((self.0, rhs.0));
            Traced(*first + adds.len() as u32 - 1)
        })
    }
}

/// An order's additions, level by level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdditionProgram {
    /// Weights (slots 1 ..= n).
    pub n: usize,
    /// The additions of level L are `level_start[L] .. level_start[L + 1]`; addition k writes
    /// slot `first_slot() + k`.
    pub level_start: Vec<u32>,
    /// Operand slots of each addition, `lhs + rhs` in the order's operand order.
    pub lhs: Vec<u32>,
    pub rhs: Vec<u32>,
    /// The slot of each result.
    pub result: Vec<u32>,
}

impl AdditionProgram {
    /// Traces `order`, run on weights `0..n` (as slots); it returns the results.
    ///
    /// # Panics
    /// If the program would need 2^32 slots or more.
    pub fn trace(n: usize, order: impl FnOnce(&[f32]) -> Vec<Traced>) -> AdditionProgram {
        let first = u32::try_from(n + 1).expect("fewer than 2^32 slots");
        let slots: Vec<f32> = (1..first).map(f32::from_bits).collect();
        TAPE.with(|t| *t.borrow_mut() = Some((first, Vec::new())));
        let results = order(&slots);
        let (_, tape) = TAPE.with(|t| t.borrow_mut().take()).unwrap();
        assert!(
            (first as usize) + tape.len() <= u32::MAX as usize,
            "fewer than 2^32 slots"
        );
        Self::levelize(n, &tape, results.iter().map(|r| r.0).collect())
    }

    /// Groups the tape's additions by depth (tape order within a level) and renumbers slots.
    fn levelize(n: usize, tape: &[(u32, u32)], result: Vec<u32>) -> AdditionProgram {
        let first = n as u32 + 1;
        let depth_of = |depth: &[u32], s: u32| {
            if s < first {
                0
            } else {
                depth[(s - first) as usize]
            }
        };
        let mut depth = Vec::with_capacity(tape.len());
        for &(a, b) in tape {
            let d = 1 + depth_of(&depth, a).max(depth_of(&depth, b));
            depth.push(d);
        }
        let levels = depth.iter().copied().max().unwrap_or(0) as usize;
        let mut level_start = vec![0u32; levels + 1];
        for &d in &depth {
            level_start[d as usize] += 1; // level d − 1's count, shifted by one
        }
        for l in 1..=levels {
            level_start[l] += level_start[l - 1];
        }
        // The new position of each tape entry: its level's next free one.
        let mut next = level_start.clone();
        let mut position = vec![0u32; tape.len()];
        for (k, &d) in depth.iter().enumerate() {
            position[k] = next[d as usize - 1];
            next[d as usize - 1] += 1;
        }
        let renumber = |s: u32| {
            if s < first {
                s
            } else {
                first + position[(s - first) as usize]
            }
        };
        let (mut lhs, mut rhs) = (vec![0; tape.len()], vec![0; tape.len()]);
        for (k, &(a, b)) in tape.iter().enumerate() {
            let p = position[k] as usize;
            (lhs[p], rhs[p]) = (renumber(a), renumber(b));
        }
        AdditionProgram {
            n,
            level_start,
            lhs,
            rhs,
            result: result.into_iter().map(renumber).collect(),
        }
    }

    /// The first slot written by an addition (after +0 and the weights).
    pub fn first_slot(&self) -> u32 {
        self.n as u32 + 1
    }

    /// Levels of additions.
    pub fn levels(&self) -> usize {
        self.level_start.len() - 1
    }

    /// Additions in all.
    pub fn additions(&self) -> usize {
        self.lhs.len()
    }

    /// Runs the program on `w`, level by level (the GPU kernel's CPU twin).
    pub fn eval<T: ScanValue>(&self, w: &[f32]) -> Vec<T> {
        assert_eq!(w.len(), self.n, "one weight per input");
        let mut slots: Vec<T> = Vec::with_capacity(self.n + 1 + self.additions());
        slots.push(T::zero());
        slots.extend(w.iter().map(|&x| T::term(x)));
        for (&a, &b) in self.lhs.iter().zip(&self.rhs) {
            let x = slots[a as usize].plus(slots[b as usize]);
            slots.push(x);
        }
        self.result.iter().map(|&s| slots[s as usize]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;
    use crate::orders::contraction;
    use generators::{ChildOrder, Topology, WeightModel};

    fn program(tree: &generators::Tree, op: Op) -> AdditionProgram {
        AdditionProgram::trace(tree.len(), |w| match op {
            Op::Rootfix => contraction::rootfix(tree, w),
            Op::Leaffix => contraction::leaffix(tree, w),
        })
    }

    /// The program's results are the order's, bit for bit, and each level reads only
    /// earlier slots.
    #[test]
    fn contraction_program_is_the_order() {
        for (i, topo) in Topology::all_defaults().into_iter().enumerate() {
            let mut rng = generators::rng(40 + i as u64);
            let n = 3000;
            let tree = topo.generate(n, ChildOrder::Natural, &mut rng).unwrap();
            let w = WeightModel::Gensum.weights(n, 1e12, &mut rng).unwrap();
            for op in Op::ALL {
                let p = program(&tree, op);
                let order: Vec<f32> = match op {
                    Op::Rootfix => contraction::rootfix(&tree, &w),
                    Op::Leaffix => contraction::leaffix(&tree, &w),
                };
                let got: Vec<f32> = p.eval(&w);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&order), "{topo} {op}");
                for l in 0..p.levels() {
                    let level_first = p.first_slot() + p.level_start[l];
                    for k in p.level_start[l]..p.level_start[l + 1] {
                        let k = k as usize;
                        assert!(
                            p.lhs[k] < level_first && p.rhs[k] < level_first,
                            "{topo} {op}"
                        );
                    }
                }
            }
        }
    }

    /// O(log n) levels on a chain and a star, where the sequential order's depth is n.
    #[test]
    fn levels_logarithmic() {
        let mut rng = generators::rng(5);
        for topo in [Topology::Chain, Topology::Star] {
            let tree = topo
                .generate(100_000, ChildOrder::Natural, &mut rng)
                .unwrap();
            for op in Op::ALL {
                let p = program(&tree, op);
                eprintln!(
                    "{topo} {op}: {} levels, {} additions",
                    p.levels(),
                    p.additions()
                );
                assert!(p.levels() <= 8 * 17, "{topo} {op}: {} levels", p.levels());
                assert!(p.additions() <= 3 * tree.len());
            }
        }
    }
}
