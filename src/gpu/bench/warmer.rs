//! Keeping the GPU's clocks up before each timed call.

use super::copying::Copying;
use crate::Error;
use crate::gpu::Gpu;
use std::time::{Duration, Instant};

/// Busy time before each timed call (the clock governor reacts within a couple of hundred ms).
pub(super) const WARM_MS: u64 = 200;

/// Copies of 2^22 words submitted together, repeated until [`WARM_MS`] have passed.
const COPIES: usize = 16;

/// Keeps the GPU's clocks up before each timed call. An idle H100 drops its SMs to 345 MHz
/// within seconds (measured with nvidia-smi during `bench`), and a short kernel timed after a
/// host pause (tree generation, the CPU twin check, transfers) ran at that clock: 3.4x slower,
/// depending on what ran before. 200 ms of copy kernels first make every timed call start at
/// the clock a busy GPU runs at.
pub(super) struct Warmer {
    copying: Copying,
}

impl Warmer {
    pub(super) fn new(gpu: &Gpu) -> Result<Warmer, Error> {
        let empty = wgpu::BufferUsages::empty();
        let copying = Copying::new(&gpu.ctx, "warm-up", 1 << 22, [empty, empty])?;
        Ok(Warmer { copying })
    }

    pub(super) fn run(&self, gpu: &Gpu) -> Result<(), Error> {
        let ctx = &gpu.ctx;
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(WARM_MS) {
            let mut rec = ctx.recorder();
            for _ in 0..COPIES {
                self.copying.encode(ctx, &mut rec);
            }
            rec.submit();
            ctx.wait()?;
        }
        Ok(())
    }
}
