//! The level-synchronous kernels' layout (paper Algorithm 1): rootfix top-down, leaffix
//! bottom-up, one level after the other, in the breadth-first labels of [`BfsLayout`].
//!
//! The paper's implementation (Merrill, Garland & Grimshaw's BFS) discovers each frontier on
//! the GPU with queues and load-balances its expansion with a prefix sum of the out-degrees.
//! A tree uploaded once has known levels: relabeling it breadth-first on the host makes every
//! level a contiguous range whose vertices each get a thread (perfect balance with no scan),
//! and lets [`LevelPlan`] choose per level between a dispatch of its own (wide levels,
//! [`Over::WideLevels`]) and a single workgroup that walks many narrow levels in workgroup
//! memory within one dispatch ([`Over::NarrowRuns`]), in the plan's order. The additions and
//! their order are the twin's: rootfix r[i] = r[parent] + w[i] once per vertex, leaffix
//! ((w[i] + l[c1]) + l[c2]) + … in child order.

use super::layout::{BfsLayout, Forest, LevelPlan, Planned};
use super::recording::{BufId, BufferPlan, Builder, Layout, Request, Run};
use super::relabel::Labels;
use super::shaders::Sizes;
use super::vectorial::unsupported;
use crate::Error;
use analysis::Op;
use analysis::algorithms::Over;

/// A forest in breadth-first labels and both ops' level plans.
pub(crate) struct LevelForest {
    labels: Labels,
    parent: BufId,
    child_start: BufId,
    level_start: BufId,
    rootfix: OpPlan,
    leaffix: OpPlan,
}

/// One op's level plan on the device.
struct OpPlan {
    order: Vec<Planned>,
    /// Per-dispatch uniforms of the narrow runs and of the wide levels.
    narrow: BufId,
    wide: BufId,
    windows: BufId,
    steps: BufId,
    tasks: BufId,
}

impl OpPlan {
    fn new(plan: LevelPlan, buffers: &mut BufferPlan) -> OpPlan {
        OpPlan {
            order: plan.order,
            narrow: buffers.per_dispatch("narrow dispatches", plan.narrow),
            wide: buffers.per_dispatch("wide dispatches", plan.wide),
            windows: buffers.data("narrow windows", plan.windows),
            steps: buffers.data("narrow steps", plan.steps),
            tasks: buffers.data("gather tasks", plan.tasks),
        }
    }
}

impl LevelForest {
    /// Relabels `forest` breadth-first and plans both ops.
    pub fn new(forest: &Forest, sizes: &Sizes, plan: &mut BufferPlan) -> LevelForest {
        let bfs = BfsLayout::new(forest);
        let labels = Labels::new(plan, "breadth-first", &bfs.orig, sizes.wg);
        let rootfix = OpPlan::new(LevelPlan::rootfix(&bfs, sizes), plan);
        let leaffix = OpPlan::new(LevelPlan::leaffix(&bfs, sizes), plan);
        LevelForest {
            labels,
            parent: plan.data("parallel parents", bfs.parent),
            child_start: plan.data("parallel child starts", bfs.child_start),
            level_start: plan.data("parallel level starts", bfs.level_start),
            rootfix,
            leaffix,
        }
    }
}

impl Layout for LevelForest {
    fn expand(&self, b: &mut Builder, run: Run, over: Over, req: Request) -> Result<(), Error> {
        let p = match req.op {
            Op::Rootfix => &self.rootfix,
            Op::Leaffix => &self.leaffix,
        };
        let narrow = match over {
            Over::LabelsIn | Over::LabelsOut => {
                // The level kernels leave sums of the accumulation format.
                let store = b.stores_narrower();
                self.labels.expand(b, run, over, store);
                return Ok(());
            }
            Over::NarrowRuns => true,
            Over::WideLevels => false,
            _ => return Err(unsupported(over)),
        };
        let values = self.labels.output;
        let binding = b.bind(vec![
            ("run", p.narrow),
            ("level", p.wide),
            ("windows", p.windows),
            ("steps", p.steps),
            ("tasks", p.tasks),
            ("level_start", self.level_start),
            ("parent", self.parent),
            ("child_start", self.child_start),
            ("w", self.labels.input),
            ("r", values),
            ("l", values),
        ]);
        for (at, planned) in p.order.iter().enumerate() {
            let (entry, groups) = match *planned {
                Planned::Narrow(k) if narrow => (k, 1),
                Planned::Wide { index, groups } if !narrow => (index, groups),
                _ => continue,
            };
            b.dispatch(
                run,
                None,
                groups,
                binding,
                Some(entry as u32),
                Some(at as u32),
            );
        }
        Ok(())
    }
}
