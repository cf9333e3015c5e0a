//! Weights up and results down through staging buffers kept for the life of the device: the
//! upload buffer stays mapped between calls (mapped again, asynchronously, as soon as a
//! submission has used it), and each direction costs one host copy, split across threads,
//! straight between the caller's slices and the mapped memory.

use super::context::Context;
use crate::Error;
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Bytes each thread copies at a time.
const PIECE: usize = 1 << 20;

struct Upload {
    buffer: wgpu::Buffer,
    /// True while mapped for writing.
    mapped: Arc<AtomicBool>,
}

#[derive(Default)]
pub(crate) struct Staging {
    up: Option<Upload>,
    down: Option<wgpu::Buffer>,
}

/// Grown sizes: the next power of two, at least 64 KiB.
fn capacity(bytes: u64) -> u64 {
    bytes.next_power_of_two().max(1 << 16)
}

impl Staging {
    /// Writes `parts` end to end into the mapped upload buffer and unmaps it; copy from the
    /// returned buffer, then call [`Staging::remap`] after submitting.
    pub fn write(&mut self, ctx: &Context, parts: &[&[f32]]) -> Result<&wgpu::Buffer, Error> {
        let bytes = 4 * parts.iter().map(|p| p.len() as u64).sum::<u64>();
        if self.up.as_ref().is_none_or(|u| u.buffer.size() < bytes) {
            self.up = Some(Upload {
                buffer: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("weights staging"),
                    size: capacity(bytes),
                    usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: true,
                }),
                mapped: Arc::new(AtomicBool::new(true)),
            });
        }
        let up = self.up.as_ref().unwrap();
        if !up.mapped.load(Ordering::Acquire) {
            // Mapped again once the previous call's submission is done.
            ctx.wait()?;
            if !up.mapped.load(Ordering::Acquire) {
                return Err(Error::Gpu(
                    "the weights staging buffer could not be mapped".into(),
                ));
            }
        }
        // Byte offset of each part, then one mapped view per piece (pieces start on
        // MAP_ALIGNMENT boundaries), copied on all threads.
        let mut offsets = vec![0usize];
        for p in parts {
            offsets.push(offsets.last().unwrap() + 4 * p.len());
        }
        let total = bytes as usize;
        (0..total.div_ceil(PIECE))
            .into_par_iter()
            .try_for_each(|piece| -> Result<(), Error> {
                let (a, b) = (piece * PIECE, ((piece + 1) * PIECE).min(total));
                let mut view = up
                    .buffer
                    .get_mapped_range_mut(a as u64..b as u64)
                    .map_err(|e| Error::Gpu(format!("mapping the weights staging buffer: {e}")))?;
                let mut k = offsets.partition_point(|&o| o <= a) - 1;
                let mut at = a;
                while at < b {
                    let end = offsets[k + 1].min(b);
                    if end > at {
                        let src: &[u8] = bytemuck::cast_slice(parts[k]);
                        let from = at - offsets[k];
                        view.slice(at - a..end - a)
                            .copy_from_slice(&src[from..from + end - at]);
                        at = end;
                    }
                    k += 1;
                }
                Ok(())
            })?;
        up.buffer.unmap();
        up.mapped.store(false, Ordering::Release);
        Ok(&up.buffer)
    }

    /// Maps the upload buffer again (after the submission that copies from it).
    pub fn remap(&self) {
        if let Some(up) = &self.up {
            let mapped = up.mapped.clone();
            up.buffer.map_async(wgpu::MapMode::Write, .., move |r| {
                mapped.store(r.is_ok(), Ordering::Release);
            });
        }
    }

    /// The download buffer, at least `bytes` long.
    pub fn down(&mut self, ctx: &Context, bytes: u64) -> &wgpu::Buffer {
        if self.down.as_ref().is_none_or(|d| d.size() < bytes) {
            self.down = Some(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("results staging"),
                size: capacity(bytes),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        self.down.as_ref().unwrap()
    }

    /// Maps the download buffer (after the copy into it was submitted) and splits its first
    /// values into vectors of `lens`.
    pub fn read(&self, ctx: &Context, lens: &[usize]) -> Result<Vec<Vec<f32>>, Error> {
        let total: usize = lens.iter().sum();
        let down = self.down.as_ref().expect("download buffer");
        ctx.map_read(down, 4 * total.max(1) as u64, |raw| {
            let mut outs: Vec<Vec<f32>> = lens.iter().map(|&n| vec![0f32; n]).collect();
            let mut src = raw;
            let mut pieces = Vec::new();
            for out in &mut outs {
                let dst: &mut [u8] = bytemuck::cast_slice_mut(out);
                let (mine, rest) = src.split_at(dst.len());
                src = rest;
                pieces.extend(dst.chunks_mut(PIECE).zip(mine.chunks(PIECE)));
            }
            pieces
                .into_par_iter()
                .for_each(|(dst, src)| dst.copy_from_slice(src));
            outs
        })
    }
}
