//! The device context every kernel's host code shares: device, queue, limits, sizes, the
//! engine (pipelines and runs), timestamp queries, and checked buffer creation.

use super::engine::{Engine, Part, Prepared};
use super::recorder::Recorder;
use super::recording::{BufferPlan, Contents};
use super::shaders::Sizes;
use crate::Error;
use analysis::Algorithm;
use wgpu::util::DeviceExt;

/// Timestamp slots a call writes at most: 0 at the start of its first timed phase, one at the
/// end of each phase, for the recipe of the registry with the most phases.
fn timestamp_slots() -> u32 {
    let phases = Algorithm::ALL
        .into_iter()
        .filter_map(|a| a.gpu())
        .map(|k| k.phases().len())
        .max()
        .unwrap_or(0);
    1 + phases.max(1) as u32
}

pub(crate) struct Timestamps {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    period_ns: f32,
}

/// Device, queue, pipelines and limits.
pub(crate) struct Context {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// The device's limits, lowered by `GpuOptions`.
    pub limits: wgpu::Limits,
    pub sizes: Sizes,
    pub engine: Engine,
    timestamps: Option<Timestamps>,
}

impl Context {
    pub fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        limits: wgpu::Limits,
        sizes: Sizes,
        timestamps: bool,
    ) -> Context {
        let engine = Engine::new(device.clone(), sizes, &limits);
        let timestamps = timestamps.then(|| {
            let slots = timestamp_slots();
            let bytes = 8 * slots as u64;
            Timestamps {
                set: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("timestamps"),
                    ty: wgpu::QueryType::Timestamp,
                    count: slots,
                }),
                resolve: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("timestamps resolve"),
                    size: bytes,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                read: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("timestamps read"),
                    size: bytes,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                period_ns: queue.get_timestamp_period(),
            }
        });
        Context {
            device,
            queue,
            limits,
            sizes,
            engine,
            timestamps,
        }
    }

    pub fn has_timestamps(&self) -> bool {
        self.timestamps.is_some()
    }

    /// Checks a storage buffer of `bytes` against the device's limits.
    pub fn check(&self, what: &str, bytes: u64, n: usize) -> Result<(), Error> {
        check_limits(&self.limits, what, bytes, n)
    }

    /// A zeroed storage buffer of `len` 32-bit words (at least one), checked against the limits.
    pub fn buffer(
        &self,
        what: &str,
        len: usize,
        n: usize,
        usage: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer, Error> {
        let bytes = 4 * len.max(1) as u64;
        self.check(what, bytes, n)?;
        Ok(self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(what),
            size: bytes,
            usage: usage | wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        }))
    }

    /// A storage buffer holding `bytes`, checked.
    pub fn buffer_bytes(&self, what: &str, bytes: &[u8], n: usize) -> Result<wgpu::Buffer, Error> {
        self.check(what, bytes.len() as u64, n)?;
        Ok(self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(what),
                contents: bytes,
                usage: wgpu::BufferUsages::STORAGE,
            }))
    }

    /// A uniform buffer holding one struct's `bytes`.
    pub fn uniform_bytes(&self, what: &str, bytes: &[u8]) -> wgpu::Buffer {
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(what),
                contents: bytes,
                usage: wgpu::BufferUsages::UNIFORM,
            })
    }

    /// A uniform buffer of structs of `size` bytes each, one per dispatch, `stride` bytes
    /// apart (bound with a dynamic offset).
    pub fn uniforms_bytes(
        &self,
        what: &str,
        values: &[u8],
        size: usize,
        stride: u64,
    ) -> wgpu::Buffer {
        let stride = stride as usize;
        let count = values.len() / size.max(1);
        let mut bytes = vec![0u8; stride * count.max(1)];
        for (i, v) in values.chunks_exact(size).enumerate() {
            bytes[i * stride..i * stride + size].copy_from_slice(v);
        }
        self.uniform_bytes(what, &bytes)
    }

    /// The command buffers of one call.
    pub fn recorder(&self) -> Recorder<'_> {
        Recorder::new(&self.device, &self.queue)
    }

    /// Encodes `part` of a prepared run, with the timestamps of its phases.
    pub fn encode(&self, run: &Prepared, part: Part, rec: &mut Recorder) {
        let queries = self.timestamps.as_ref().map(|t| &t.set);
        run.encode(&self.engine, part, queries, rec);
    }

    /// Makes the buffers of `plan` (the forest's weights and results are `forest`), each
    /// checked against the device's limits (`n`: the forest's vertices, for the message).
    pub fn make_buffers(
        &self,
        plan: BufferPlan,
        forest: [&wgpu::Buffer; 2],
        n: usize,
    ) -> Result<Vec<wgpu::Buffer>, Error> {
        let mut out = Vec::with_capacity(plan.specs.len());
        for (i, spec) in plan.specs.into_iter().enumerate() {
            let what = &spec.label;
            out.push(match spec.contents {
                Contents::Forest => forest[i].clone(),
                Contents::Zeroed { words, usage } => self.buffer(what, words, n, usage)?,
                Contents::Data(data) => self.buffer_bytes(what, data.bytes(), n)?,
                Contents::Uniform(value) => self.uniform_bytes(what, value.bytes()),
                Contents::PerDispatch(values, size) => {
                    self.uniforms_bytes(what, values.bytes(), size, self.engine.stride)
                }
            });
        }
        Ok(out)
    }

    /// Resolves slots `0..slots` (after the call's last pass).
    pub fn resolve_timestamps(&self, encoder: &mut wgpu::CommandEncoder, slots: u32) {
        if let Some(t) = &self.timestamps {
            encoder.resolve_query_set(&t.set, 0..slots, &t.resolve, 0);
            encoder.copy_buffer_to_buffer(&t.resolve, 0, &t.read, 0, 8 * slots as u64);
        }
    }

    /// Seconds from slot 0 to each slot 1..slots, if the adapter has timestamps.
    pub fn read_timestamps(&self, slots: u32) -> Result<Option<Vec<f64>>, Error> {
        let Some(t) = &self.timestamps else {
            return Ok(None);
        };
        let period = t.period_ns as f64 * 1e-9;
        self.map_read(&t.read, 8 * slots as u64, |bytes| {
            let ticks: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                .collect();
            Some(
                ticks[1..]
                    .iter()
                    .map(|&x| x.wrapping_sub(ticks[0]) as f64 * period)
                    .collect(),
            )
        })
    }

    pub fn wait(&self) -> Result<(), Error> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| Error::Gpu(format!("waiting for the device: {e}")))
    }

    /// Maps the first `bytes` of a MAP_READ buffer, hands them to `f`, unmaps.
    pub fn map_read<R>(
        &self,
        buffer: &wgpu::Buffer,
        bytes: u64,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, Error> {
        let slice = buffer.slice(..bytes);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        rx.recv()
            .map_err(|e| Error::Gpu(format!("mapping a buffer: {e}")))?
            .map_err(|e| Error::Gpu(format!("mapping a buffer: {e}")))?;
        let result = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("mapping a buffer: {e}")))?;
            f(&view)
        };
        buffer.unmap();
        Ok(result)
    }
}

/// A storage buffer of `bytes` for a tree of `n` vertices must fit the binding and buffer limits.
pub(crate) fn check_limits(
    l: &wgpu::Limits,
    what: &str,
    bytes: u64,
    n: usize,
) -> Result<(), Error> {
    for (limit, value) in [
        (
            "max_storage_buffer_binding_size",
            l.max_storage_buffer_binding_size,
        ),
        ("max_buffer_size", l.max_buffer_size),
    ] {
        if bytes > value {
            return Err(Error::GpuLimit(format!(
                "a tree of {n} vertices needs a {what} buffer of {bytes} bytes, above the adapter's {limit} of {value} bytes; use --backend cpu or a smaller tree"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_error_names_the_limit_and_the_size() {
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: 1 << 27,
            ..wgpu::Limits::default()
        };
        assert!(check_limits(&limits, "E", 1 << 27, 1 << 24).is_ok());
        let e = check_limits(&limits, "vectorial Euler-tour vector E", 1 << 28, 1 << 25)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("max_storage_buffer_binding_size of 134217728"),
            "{e}"
        );
        assert!(e.contains("268435456 bytes"), "{e}");
        assert!(e.contains("33554432 vertices"), "{e}");
    }
}
