//! The device copy kernel (`copy.wgsl`, dst[i] = src[i], a thread per word) as a recipe of
//! its own on a layout of its own: bench's bandwidth baseline and its clock warmer, run by the
//! engine like every kernel.

use crate::Error;
use crate::gpu::context::Context;
use crate::gpu::engine::{Part, Prepared};
use crate::gpu::recorder::Recorder;
use crate::gpu::recording::{
    BufId, BufferPlan, Builder, Layout, RESULTS, Request, Run, WEIGHTS, record,
};
use crate::gpu::types::VertexCount;
use crate::gpu::variants::Read;
use analysis::Op;
use analysis::algorithms::{Over, Stage, Step};

/// One copy, one timed phase.
const RECIPE: &[Step] = &[
    Step::run(Stage::COPY, "copy", Over::Vertices),
    Step::Phase("copy"),
];

/// `words` words from the plan's first buffer to its second.
struct Words {
    words: u32,
    wg: u32,
    count: BufId,
}

impl Layout for Words {
    fn expand(&self, b: &mut Builder, run: Run, over: Over, _: Request) -> Result<(), Error> {
        if over != Over::Vertices {
            return Err(crate::gpu::vectorial::unsupported(over));
        }
        let binding = b.bind(vec![
            ("count", self.count),
            ("src", WEIGHTS),
            ("dst", RESULTS),
        ]);
        b.dispatch(run, None, self.words.div_ceil(self.wg), binding, None, None);
        Ok(())
    }
}

/// A copy of `words` words between two buffers of its own, prepared.
pub(super) struct Copying {
    pub src: wgpu::Buffer,
    pub dst: wgpu::Buffer,
    run: Prepared,
    _buffers: Vec<wgpu::Buffer>,
}

impl Copying {
    /// `usage`: what the source and the destination are used for besides the copy.
    pub fn new(
        ctx: &Context,
        what: &str,
        words: usize,
        usage: [wgpu::BufferUsages; 2],
    ) -> Result<Copying, Error> {
        let src = ctx.buffer(&format!("{what} source"), words, words, usage[0])?;
        let dst = ctx.buffer(&format!("{what} destination"), words, words, usage[1])?;
        let mut plan = BufferPlan::new();
        let count = VertexCount {
            n: words as u32,
            ..Default::default()
        };
        let layout = Words {
            words: words as u32,
            wg: ctx.sizes.wg,
            count: plan.uniform(&format!("{what} count"), count),
        };
        let buffers = ctx.make_buffers(plan, [&src, &dst], words)?;
        let req = Request::f32(Op::Rootfix, Read::Rounded);
        let run = ctx
            .engine
            .prepare(&record(&layout, RECIPE, req)?, &buffers)?;
        Ok(Copying {
            src,
            dst,
            run,
            _buffers: buffers,
        })
    }

    /// Encodes the copy, timed as its one phase.
    pub fn encode(&self, ctx: &Context, rec: &mut Recorder) {
        ctx.encode(&self.run, Part::Compute, rec);
    }

    /// Timestamp slots it writes.
    pub fn timestamp_slots(&self) -> u32 {
        self.run.timestamp_slots()
    }
}
