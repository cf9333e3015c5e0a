//! The contraction kernel's layout (rake and compress, seed 002): the contraction order of
//! every tree of the forest traced into one program of independent additions per level
//! (`analysis::orders::program`), a dispatch per level over a buffer of slots
//! ([`Over::ProgramLevels`]). The weights are copied into slots 1 ..= n on the way in and the
//! results gathered from their slots on the way out ([`Over::ResultSlots`]).
//!
//! Each addition has the order's own operands, so the results are the CPU twin's
//! (`analysis::orders::contraction::twin`) bit for bit; a forest's program is its trees' programs side by
//! side, level by level (each tree traced on its own schedule).

use super::layout::Forest;
use super::recording::{
    BufId, BufferPlan, Builder, Command, Layout, RESULTS, Request, Run, WEIGHTS,
};
use super::shaders::Sizes;
use super::types::{AdditionLevel, LevelDispatch, VertexCount};
use super::vectorial::unsupported;
use crate::Error;
use analysis::Op;
use analysis::algorithms::Over;
use analysis::orders::contraction::{self, Schedule};
use analysis::orders::program::{AdditionProgram, Traced};

// Every per-dispatch uniform is bound with LevelDispatch's size (engine.rs).
const _: () = assert!(size_of::<AdditionLevel>() == size_of::<LevelDispatch>());

/// A forest's slots and both ops' programs.
pub(crate) struct ProgramForest {
    n: u32,
    wg: u32,
    slots: BufId,
    rootfix: ProgramBuffers,
    leaffix: ProgramBuffers,
}

/// One op's program on the device.
struct ProgramBuffers {
    /// Workgroups of each level's dispatch.
    groups: Vec<u32>,
    /// The levels' per-dispatch uniforms.
    levels: BufId,
    lhs: BufId,
    rhs: BufId,
    /// Each vertex's result slot, and their count.
    result: BufId,
    count: BufId,
}

/// The contraction order of `op` on every tree of `forest` (on its schedule), traced as one
/// program.
fn trace(forest: &Forest, schedules: &[Schedule], op: Op) -> AdditionProgram {
    AdditionProgram::trace(forest.len(), |w| {
        let mut results = Vec::with_capacity(w.len());
        for (t, schedule) in schedules.iter().enumerate() {
            let w = &w[forest.offsets[t]..forest.offsets[t + 1]];
            results.extend(match op {
                Op::Rootfix => contraction::rootfix_on::<Traced>(schedule, w),
                Op::Leaffix => contraction::leaffix_on::<Traced>(schedule, w),
            });
        }
        results
    })
}

impl ProgramForest {
    /// Traces both ops on `forest` and plans their programs.
    pub fn new(forest: &Forest, sizes: &Sizes, plan: &mut BufferPlan) -> ProgramForest {
        let n = forest.len();
        // One schedule per tree, shared by both ops (it depends on the tree alone).
        let schedules: Vec<Schedule> = forest.trees.iter().map(|t| Schedule::new(t)).collect();
        let programs = Op::ALL.map(|op| trace(forest, &schedules, op));
        let most = programs.iter().map(|p| p.additions()).max().unwrap_or(0);
        let usage = wgpu::BufferUsages::COPY_DST;
        let slots = plan.zeroed("contraction slots", 1 + n + most, usage);
        let [rootfix, leaffix] = programs.map(|p| ProgramBuffers::new(p, sizes.wg, plan));
        ProgramForest {
            n: n as u32,
            wg: sizes.wg,
            slots,
            rootfix,
            leaffix,
        }
    }
}

impl Layout for ProgramForest {
    fn expand(&self, b: &mut Builder, run: Run, over: Over, req: Request) -> Result<(), Error> {
        let p = match req.op {
            Op::Rootfix => &self.rootfix,
            Op::Leaffix => &self.leaffix,
        };
        match over {
            Over::ProgramLevels => {
                let binding = b.bind(vec![
                    ("level", p.levels),
                    ("lhs", p.lhs),
                    ("rhs", p.rhs),
                    ("slot", self.slots),
                ]);
                for (level, &groups) in p.groups.iter().enumerate() {
                    b.dispatch(run, None, groups, binding, Some(level as u32), None);
                }
            }
            // out[v] = slots[result[v]].
            Over::ResultSlots => {
                let binding = b.bind(vec![
                    ("count", p.count),
                    ("orig", p.result),
                    ("src", self.slots),
                    ("dst", RESULTS),
                ]);
                let groups = self.n.div_ceil(self.wg);
                b.dispatch(run, None, groups, binding, None, None);
            }
            _ => return Err(unsupported(over)),
        }
        Ok(())
    }

    /// The weights into slots 1 ..= n (slot 0 stays +0).
    fn copies_in(&self) -> Vec<Command> {
        vec![Command::Copy {
            src: WEIGHTS,
            dst: self.slots,
            offset: 4,
            bytes: 4 * self.n as u64,
        }]
    }
}

impl ProgramBuffers {
    fn new(p: AdditionProgram, wg: u32, plan: &mut BufferPlan) -> ProgramBuffers {
        let (levels, groups): (Vec<AdditionLevel>, Vec<u32>) = p
            .level_start
            .windows(2)
            .map(|l| {
                let level = AdditionLevel {
                    add_first: l[0],
                    add_end: l[1],
                    first_slot: p.first_slot(),
                    pad0: 0,
                };
                (level, (l[1] - l[0]).div_ceil(wg))
            })
            .unzip();
        let count = VertexCount {
            n: p.n as u32,
            ..Default::default()
        };
        ProgramBuffers {
            groups,
            levels: plan.per_dispatch("addition levels", levels),
            lhs: plan.data("addition lhs", p.lhs),
            rhs: plan.data("addition rhs", p.rhs),
            result: plan.data("result slots", p.result),
            count: plan.uniform("contraction results", count),
        }
    }
}
