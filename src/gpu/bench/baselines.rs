//! The baselines a kernel is judged against, measured in the same run: a device copy kernel
//! and plain host↔device buffer copies.

use super::BUDGET_S;
use super::copying::Copying;
use super::kernel::{named, timed};
use super::warmer::Warmer;
use crate::Error;
use crate::gpu::Gpu;
use analysis::records::bench::BenchRecord;
use std::time::Instant;

/// Baseline rows for trees of `n` vertices, measured now: `copy` (a device kernel copying the
/// 2n words of an Euler-tour vector; compute columns), `upload` and `download` (4n bytes with
/// wgpu's plain buffer copies: `Queue::write_buffer`, and a copy into a mapped buffer read
/// back into a `Vec`; transfer columns, each waited for).
pub(super) fn baselines_warm(
    gpu: &Gpu,
    warmer: &Warmer,
    n: usize,
    reps: usize,
) -> Result<Vec<BenchRecord>, Error> {
    let ctx = &gpu.ctx;
    let words = 2 * n;
    use wgpu::BufferUsages as U;
    let copying = Copying::new(ctx, "copy", words, [U::COPY_DST, U::COPY_SRC])?;
    let (src, dst) = (&copying.src, &copying.dst);
    let bytes = 4 * n as u64;
    let host: Vec<u8> = (0..bytes).map(|i| i as u8).collect();
    let down = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("download baseline"),
        size: bytes,
        usage: U::MAP_READ | U::COPY_DST,
        mapped_at_creation: false,
    });
    let (mut copy, mut upload, mut download) = (Vec::new(), Vec::new(), Vec::new());
    let start = Instant::now();
    // One warm-up round, then the timed ones.
    for rep in 0..=reps.max(1) {
        warmer.run(gpu)?;
        let t = Instant::now();
        let mut rec = ctx.recorder();
        copying.encode(ctx, &mut rec);
        let slots = copying.timestamp_slots();
        ctx.resolve_timestamps(&mut rec.encoder, slots);
        rec.submit();
        ctx.wait()?;
        let wall = t.elapsed().as_secs_f64();
        let ticks = ctx.read_timestamps(slots)?;
        let kernel = ticks.and_then(|t| t.last().copied()).unwrap_or(wall);

        let t = Instant::now();
        ctx.queue.write_buffer(src, 0, &host);
        ctx.queue.submit([]);
        ctx.wait()?;
        let up_s = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let mut rec = ctx.recorder();
        rec.encoder.copy_buffer_to_buffer(dst, 0, &down, 0, bytes);
        rec.submit();
        let back = ctx.map_read(&down, bytes, |b| b.to_vec())?;
        let down_s = t.elapsed().as_secs_f64();
        if back.len() as u64 != bytes {
            return Err(Error::Gpu("download baseline: short read".into()));
        }
        if rep > 0 {
            copy.push(kernel);
            upload.push(up_s);
            download.push(down_s);
            if start.elapsed().as_secs_f64() > BUDGET_S {
                break;
            }
        }
    }
    let row = |algorithm: &str| named(gpu, "", n, 0, "", algorithm);
    let zeros = vec![0.0; copy.len()];
    Ok(vec![
        timed(row("copy"), copy, zeros.clone(), 2 * 4 * words as u64),
        timed(row("upload"), zeros.clone(), upload, bytes),
        timed(row("download"), zeros, download, bytes),
    ])
}
