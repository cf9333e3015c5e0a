//! Host code of the contraction kernel (rake and compress, seed 002): the contraction order of
//! every tree of the forest traced into one program of independent additions per level
//! (`analysis::orders::program`), run as one dispatch per level over a buffer of slots
//! (`addition_level.wgsl`). The weights are copied into slots 1 ..= n on the way in and the
//! results gathered from their slots on the way out (`permute.wgsl`'s gather).
//!
//! Each addition has the order's own operands, so the results are the CPU twin's
//! (`analysis::orders::contraction::twin`) bit for bit; a forest's program is its trees' programs side by
//! side, level by level (each tree traced on its own schedule).

use super::context::{Context, Recorder};
use super::layout::Forest;
use super::types::{AdditionLevel, LevelDispatch, VertexCount};
use crate::Error;
use analysis::Op;
use analysis::orders::contraction::{self, Schedule};
use analysis::orders::program::{AdditionProgram, Traced};

// Every dynamic uniform is bound with LevelDispatch's size (shaders.rs).
const _: () = assert!(size_of::<AdditionLevel>() == size_of::<LevelDispatch>());

/// A forest's slot buffer and both ops' programs.
pub(crate) struct ContractionTree {
    n: u32,
    slots: wgpu::Buffer,
    rootfix: ProgramBuffers,
    leaffix: ProgramBuffers,
}

/// One op's program on the device.
struct ProgramBuffers {
    /// Workgroups of each level's dispatch.
    groups: Vec<u32>,
    levels: wgpu::BindGroup,
    /// out[v] = slots[result[v]].
    results: wgpu::BindGroup,
    _buffers: Vec<wgpu::Buffer>,
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

impl ContractionTree {
    /// Traces both ops on `forest` and uploads their programs; `out` holds the results in the
    /// tree's labels.
    pub fn new(
        ctx: &Context,
        forest: &Forest,
        out: &wgpu::Buffer,
    ) -> Result<ContractionTree, Error> {
        let n = forest.len();
        // One schedule per tree, shared by both ops (it depends on the tree alone).
        let schedules: Vec<Schedule> = forest.trees.iter().map(|t| Schedule::new(t)).collect();
        let programs = Op::ALL.map(|op| trace(forest, &schedules, op));
        let most = programs.iter().map(|p| p.additions()).max().unwrap_or(0);
        let slots = ctx.buffer(
            "contraction slots",
            1 + n + most,
            n,
            wgpu::BufferUsages::COPY_DST,
        )?;
        let [rootfix, leaffix] = programs;
        Ok(ContractionTree {
            n: n as u32,
            rootfix: ProgramBuffers::new(ctx, &rootfix, &slots, out)?,
            leaffix: ProgramBuffers::new(ctx, &leaffix, &slots, out)?,
            slots,
        })
    }

    /// Records the weights' copy into slots 1 ..= n (slot 0 stays +0).
    pub fn record_in(&self, w: &wgpu::Buffer, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_buffer_to_buffer(w, 0, &self.slots, 4, 4 * self.n as u64);
    }

    /// Records one dispatch per level of `op`'s program (timestamp slot 0 at the start, 1 at
    /// the end).
    pub fn record(&self, ctx: &Context, op: Op, rec: &mut Recorder) {
        let program = self.program(op);
        let stride = ctx.dynamic_stride;
        rec.dispatches("contraction", &program.groups, |pass, level, &groups| {
            let (x, y) = ctx.fold(groups);
            ctx.kernels.addition_level.set(pass);
            pass.set_bind_group(0, &program.levels, &[(level as u64 * stride) as u32]);
            pass.dispatch_workgroups(x, y, 1);
        });
    }

    /// Records the gather of `op`'s results into the forest's result buffer.
    pub fn record_out(&self, ctx: &Context, op: Op, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("contraction results"),
            timestamp_writes: None,
        });
        let (x, y) = ctx.fold(self.n.div_ceil(ctx.sizes.wg));
        ctx.kernels.gather.set(&mut pass);
        pass.set_bind_group(0, &self.program(op).results, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }

    fn program(&self, op: Op) -> &ProgramBuffers {
        match op {
            Op::Rootfix => &self.rootfix,
            Op::Leaffix => &self.leaffix,
        }
    }
}

impl ProgramBuffers {
    fn new(
        ctx: &Context,
        p: &AdditionProgram,
        slots: &wgpu::Buffer,
        out: &wgpu::Buffer,
    ) -> Result<ProgramBuffers, Error> {
        let wg = ctx.sizes.wg;
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
        let n = p.n;
        let uniforms = ctx.uniforms("addition levels", &levels);
        let lhs = ctx.buffer_init("addition lhs", &p.lhs, n)?;
        let rhs = ctx.buffer_init("addition rhs", &p.rhs, n)?;
        let result = ctx.buffer_init("result slots", &p.result, n)?;
        let count = ctx.uniform(
            "contraction results",
            &VertexCount {
                n: n as u32,
                ..Default::default()
            },
        );
        let k = &ctx.kernels;
        Ok(ProgramBuffers {
            groups,
            levels: k.addition_level.bind(
                &ctx.device,
                &[
                    ("level", &uniforms),
                    ("lhs", &lhs),
                    ("rhs", &rhs),
                    ("slot", slots),
                ],
            ),
            results: k.gather.bind(
                &ctx.device,
                &[
                    ("count", &count),
                    ("orig", &result),
                    ("src", slots),
                    ("dst", out),
                ],
            ),
            _buffers: vec![uniforms, lhs, rhs, result, count],
        })
    }
}
