//! Keeping the GPU's clocks up before each timed call.

use crate::Error;
use crate::gpu::Gpu;
use crate::gpu::types::VertexCount;
use std::time::{Duration, Instant};

/// Busy time before each timed call (the clock governor reacts within a couple of hundred ms).
pub(super) const WARM_MS: u64 = 200;

/// Keeps the GPU's clocks up before each timed call. An idle H100 drops its SMs to 345 MHz
/// within seconds (measured with nvidia-smi during `bench`), and a short kernel timed after a
/// host pause (tree generation, the CPU twin check, transfers) ran at that clock: 3.4x slower,
/// depending on what ran before. 200 ms of copy kernels first make every timed call start at
/// the clock a busy GPU runs at.
pub(super) struct Warmer {
    bind: wgpu::BindGroup,
    groups: (u32, u32),
    _buffers: Vec<wgpu::Buffer>,
}

impl Warmer {
    pub(super) fn new(gpu: &Gpu) -> Result<Warmer, Error> {
        let ctx = &gpu.ctx;
        let words = 1usize << 22;
        let src = ctx.buffer("warm-up source", words, words, wgpu::BufferUsages::empty())?;
        let dst = ctx.buffer(
            "warm-up destination",
            words,
            words,
            wgpu::BufferUsages::empty(),
        )?;
        let count = ctx.uniform(
            "warm-up count",
            &VertexCount {
                n: words as u32,
                ..Default::default()
            },
        );
        Ok(Warmer {
            bind: ctx.kernels.copy.bind(
                &ctx.device,
                &[("count", &count), ("src", &src), ("dst", &dst)],
            ),
            groups: ctx.fold((words as u32).div_ceil(ctx.sizes.wg)),
            _buffers: vec![src, dst, count],
        })
    }

    pub(super) fn run(&self, gpu: &Gpu) -> Result<(), Error> {
        let ctx = &gpu.ctx;
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(WARM_MS) {
            let mut rec = crate::gpu::Recorder::new(ctx);
            {
                let mut pass = rec.encoder.begin_compute_pass(&Default::default());
                ctx.kernels.copy.set(&mut pass);
                pass.set_bind_group(0, &self.bind, &[]);
                for _ in 0..16 {
                    pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
                }
            }
            rec.submit();
            ctx.wait()?;
        }
        Ok(())
    }
}
