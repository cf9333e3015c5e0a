//! Host code of the level-synchronous kernels (paper Algorithm 1): rootfix top-down, leaffix
//! bottom-up, one level after the other, in the breadth-first labels of [`BfsLayout`].
//!
//! The paper's implementation (Merrill, Garland & Grimshaw's BFS) discovers each frontier on
//! the GPU with queues and load-balances its expansion with a prefix sum of the out-degrees.
//! A tree uploaded once has known levels: relabeling it breadth-first on the host makes every
//! level a contiguous range whose vertices each get a thread (perfect balance with no scan),
//! and lets [`LevelPlan`] choose per level between a dispatch of its own (wide levels) and a
//! single workgroup that walks many narrow levels in workgroup memory within one dispatch.
//! The additions and their order are the twin's: rootfix r[i] = r[parent] + w[i] once per
//! vertex, leaffix ((w[i] + l[c1]) + l[c2]) + … in child order.

use super::context::{Context, Recorder};
use super::layout::{BfsLayout, Forest, LevelPlan, Planned};
use super::relabel::Relabel;
use crate::Error;
use analysis::Op;

/// A forest's breadth-first buffers and both ops' plans.
pub(crate) struct ParallelTree {
    /// Breadth-first labels: weights in, results (r or l) out.
    pub labels: Relabel,
    rootfix: OpPlan,
    leaffix: OpPlan,
    /// Kept alive for the bind groups.
    _buffers: Vec<wgpu::Buffer>,
}

struct OpPlan {
    order: Vec<Planned>,
    narrow: wgpu::BindGroup,
    wide: wgpu::BindGroup,
    _buffers: PlanBuffers,
}

impl ParallelTree {
    /// Relabels `forest` breadth-first, plans both ops and uploads everything; `w` and `out`
    /// are the forest's weights and results in the tree's labels.
    pub fn new(
        ctx: &Context,
        forest: &Forest,
        w: &wgpu::Buffer,
        out: &wgpu::Buffer,
    ) -> Result<ParallelTree, Error> {
        let n = forest.len();
        let bfs = BfsLayout::new(forest);
        let labels = Relabel::new(ctx, "breadth-first", &bfs.orig, w, out)?;
        let parent = ctx.buffer_init("parallel parents", &bfs.parent, n)?;
        let child_start = ctx.buffer_init("parallel child starts", &bfs.child_start, n)?;
        let level_start = ctx.buffer_init("parallel level starts", &bfs.level_start, n)?;
        let (w, values) = (&labels.input, &labels.output);
        let k = &ctx.kernels;
        let plan = LevelPlan::rootfix(&bfs, &ctx.sizes);
        let b = PlanBuffers::new(ctx, &plan, n)?;
        let rootfix = OpPlan {
            order: plan.order,
            narrow: k.rootfix_narrow.bind(
                &ctx.device,
                &[
                    ("run", &b.narrow),
                    ("windows", &b.windows),
                    ("steps", &b.steps),
                    ("level_start", &level_start),
                    ("parent", &parent),
                    ("w", w),
                    ("r", values),
                ],
            ),
            wide: k.rootfix_level.bind(
                &ctx.device,
                &[
                    ("level", &b.wide),
                    ("parent", &parent),
                    ("w", w),
                    ("r", values),
                ],
            ),
            _buffers: b,
        };
        let plan = LevelPlan::leaffix(&bfs, &ctx.sizes);
        let b = PlanBuffers::new(ctx, &plan, n)?;
        let leaffix = OpPlan {
            order: plan.order,
            narrow: k.leaffix_narrow.bind(
                &ctx.device,
                &[
                    ("run", &b.narrow),
                    ("windows", &b.windows),
                    ("steps", &b.steps),
                    ("level_start", &level_start),
                    ("child_start", &child_start),
                    ("w", w),
                    ("l", values),
                ],
            ),
            wide: k.leaffix_level.bind(
                &ctx.device,
                &[
                    ("level", &b.wide),
                    ("child_start", &child_start),
                    ("w", w),
                    ("tasks", &b.tasks),
                    ("l", values),
                ],
            ),
            _buffers: b,
        };
        Ok(ParallelTree {
            labels,
            rootfix,
            leaffix,
            _buffers: vec![parent, child_start, level_start],
        })
    }

    /// Records every dispatch of `op` (timestamp slot 0 at the start, 1 at the end).
    pub fn record(&self, ctx: &Context, op: Op, rec: &mut Recorder) {
        let (plan, narrow, wide) = match op {
            Op::Rootfix => (
                &self.rootfix,
                &ctx.kernels.rootfix_narrow,
                &ctx.kernels.rootfix_level,
            ),
            Op::Leaffix => (
                &self.leaffix,
                &ctx.kernels.leaffix_narrow,
                &ctx.kernels.leaffix_level,
            ),
        };
        let stride = ctx.dynamic_stride;
        rec.dispatches("parallel", &plan.order, |pass, _, p| match *p {
            Planned::Narrow(k) => {
                narrow.set(pass);
                pass.set_bind_group(0, &plan.narrow, &[(k as u64 * stride) as u32]);
                pass.dispatch_workgroups(1, 1, 1);
            }
            Planned::Wide { index, groups } => {
                let (x, y) = ctx.fold(groups);
                wide.set(pass);
                pass.set_bind_group(0, &plan.wide, &[(index as u64 * stride) as u32]);
                pass.dispatch_workgroups(x, y, 1);
            }
        });
    }
}

/// A plan's dispatch parameters, windows, steps and gather tasks on the device.
struct PlanBuffers {
    narrow: wgpu::Buffer,
    wide: wgpu::Buffer,
    windows: wgpu::Buffer,
    steps: wgpu::Buffer,
    tasks: wgpu::Buffer,
}

impl PlanBuffers {
    fn new(ctx: &Context, plan: &LevelPlan, n: usize) -> Result<PlanBuffers, Error> {
        Ok(PlanBuffers {
            narrow: ctx.uniforms("narrow dispatches", &plan.narrow),
            wide: ctx.uniforms("wide dispatches", &plan.wide),
            windows: ctx.buffer_init("narrow windows", &plan.windows, n)?,
            steps: ctx.buffer_init("narrow steps", &plan.steps, n)?,
            tasks: ctx.buffer_init("gather tasks", &plan.tasks, n)?,
        })
    }
}
