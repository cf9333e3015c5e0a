//! GPU twins of the parallel, vectorial and contraction kernels (WGSL through wgpu), bit for
//! bit equal to the CPU twins of [`analysis::algorithms`] (each descriptor's twin hook).
//!
//! A kernel is its descriptor's recipe (`analysis::algorithms::Step`s) run on a forest
//! uploaded in the descriptor's layout: the forest's layout expands each step into dispatches,
//! which makes a recording (a list of dispatches, built and tested without a device), and
//! the engine runs it. Layout of this module:
//! - `adapter`: which adapter, and `accuracy info`; `backend`: the GPU, the CPU or either;
//! - `context`: device, queue, limits, timestamps, checked buffers; `recorder`: a call's
//!   command buffers;
//! - `shaders`: the WGSL of `shaders/` (every file compiled in by build.rs), composed into
//!   modules and read by the compiler (naga): bindings, overrides, entry points; the sizes;
//! - `arithmetic`: the formats every stage adds and stores in (f16, bf16 as f32 words);
//! - `variants`: the one table of scan variants (storage format × scan word × read);
//! - `engine`: every pipeline, built on first use, and the runs of recordings;
//! - `recording`: buffers and dispatches as data, built from a recipe over a layout;
//! - `types`: the structs shared with the shaders (Rust definitions, generated WGSL);
//! - `layout`: the host-side relabelings (breadth-first, preorder) and dispatch plans;
//! - `parallel`, `vectorial`, `contraction`: each layout, and what a recipe's steps cover on
//!   it; `relabel`: weights into a layout's labels and results back;
//! - `resident`: the uploaded forests, their buffers keyed by layout, with their prepared runs;
//! - `exact_reference`: the exact reference from the unrounded read of the variant that gives it;
//! - `transfer`: weights up, results down through reused staging buffers; `timing`: where a
//!   call's time went;
//! - `bench`: `accuracy bench`.
//!
//! One [`Gpu`] holds the device and a small cache of uploaded trees (or forests of trees from
//! [`Backend::compute_many`]), keyed by their full structure: a sweep's calls on one tree
//! upload it once. GPU access is serialized by a mutex: the sweep's rayon threads share one
//! `Gpu` safely.

mod adapter;
mod arithmetic;
/// Whether the GPU kernels compute in an arithmetic (f64: WGSL has none), with the reason.
pub use arithmetic::check as check_arithmetic;
mod backend;
pub mod bench;
mod context;
mod contraction;
mod engine;
mod exact_reference;
mod layout;
mod parallel;
mod recorder;
mod recording;
mod relabel;
mod resident;
mod shaders;
#[cfg(test)]
mod tests;
mod timing;
mod transfer;
mod types;
mod variants;
mod vectorial;

pub use adapter::{AdapterReport, adapters, info_text, missing_runtime_dir};
pub use backend::select_backend;
pub use timing::{Timing, TimingMethod};

use crate::experiment::Backend;
use crate::{Device, Error};
use analysis::algorithms::{GpuKernel, Stage};
use analysis::{Algorithm, Op, Reference};
use context::Context;
use engine::Part;
use generators::fixed::Scale;
use generators::{Arithmetic, Tree};
use layout::Forest;
use recording::Request;
use resident::{Buffers, Made, Resident, TreeKey};
use shaders::Sizes;
use std::sync::Mutex;
use std::time::Instant;
use variants::{Read, Variant};

/// Uploaded trees (or forests) kept at once.
const CACHE_TREES: usize = 2;

/// Settings that make a device look smaller than it is, to exercise dispatch folding, limit
/// errors and every kernel path on small trees (tests). `None`: the device's own.
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuOptions {
    /// Fold dispatches above this many workgroups per dimension.
    pub max_workgroups_per_dimension: Option<u32>,
    /// Treat storage buffers above this size (bytes) as over the limit.
    pub max_storage_buffer_binding_size: Option<u64>,
    /// Vertices a narrow-level window holds (levels wider than this get dispatches of their
    /// own); at least 3.
    pub narrow_capacity: Option<u32>,
    /// Out-degree from which a vertex of a wide level is gathered by a whole workgroup.
    pub gather_min_degree: Option<u32>,
    /// Children such a workgroup gathers per dispatch.
    pub gather_chunk: Option<u32>,
    /// Loop iterations per invocation and dispatch in narrow-level runs.
    pub loop_budget: Option<u64>,
    /// Compute the exact reference on the GPU ([`Backend::exact_reference`]).
    pub exact_reference: bool,
}

struct State {
    residents: Vec<Resident>,
    staging: transfer::Staging,
    /// Trees or forests uploaded so far (each a [`Resident`] made).
    uploads: usize,
}

/// The GPU backend: one adapter, its device, every pipeline, and the uploaded trees.
pub struct Gpu {
    ctx: Context,
    info: wgpu::AdapterInfo,
    state: Mutex<State>,
    /// Whether the exact reference comes from the GPU's exact scan.
    exact_reference: bool,
}

impl Gpu {
    /// Picks an adapter (WGPU_BACKEND, TREEFIX_ADAPTER), requests its own limits and builds
    /// every pipeline.
    pub fn new() -> Result<Gpu, Error> {
        Gpu::with_options(GpuOptions::default())
    }

    /// [`Gpu::new`] with limits and sizes lowered by `options`.
    pub fn with_options(options: GpuOptions) -> Result<Gpu, Error> {
        let adapter = adapter::choose()?;
        let info = adapter.get_info();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let features = if timestamps {
            wgpu::Features::TIMESTAMP_QUERY
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("treefix"),
            required_features: features,
            required_limits: adapter.limits(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
        }))
        .map_err(|e| Error::Gpu(format!("{}: {e}", adapter::describe_info(&info))))?;
        let mut limits = device.limits();
        if let Some(d) = options.max_workgroups_per_dimension {
            limits.max_compute_workgroups_per_dimension =
                d.clamp(1, limits.max_compute_workgroups_per_dimension);
        }
        if let Some(b) = options.max_storage_buffer_binding_size {
            limits.max_storage_buffer_binding_size = b.min(limits.max_storage_buffer_binding_size);
        }
        let mut sizes = Sizes::for_device(&limits, info.device_type == wgpu::DeviceType::Cpu);
        if let Some(c) = options.narrow_capacity {
            sizes.narrow_cap = c.clamp(3, sizes.narrow_cap);
        }
        if let Some(d) = options.gather_min_degree {
            sizes.gather_min_degree = d.max(1);
        }
        if let Some(c) = options.gather_chunk {
            sizes.gather_chunk = c.max(1);
        }
        if let Some(b) = options.loop_budget {
            sizes.loop_budget = b;
        }
        Ok(Gpu {
            ctx: Context::new(device, queue, limits, sizes, timestamps),
            info,
            state: Mutex::new(State {
                residents: Vec::new(),
                staging: transfer::Staging::default(),
                uploads: 0,
            }),
            exact_reference: options.exact_reference,
        })
    }

    /// How [`Timing::compute_s`] is measured on this adapter.
    pub fn timing_method(&self) -> TimingMethod {
        if self.ctx.has_timestamps() {
            TimingMethod::Timestamps
        } else {
            TimingMethod::WallClock
        }
    }

    /// The largest buffer this device binds, in bytes.
    pub fn max_binding(&self) -> u64 {
        let l = &self.ctx.limits;
        l.max_storage_buffer_binding_size.min(l.max_buffer_size)
    }

    /// The largest tree whose largest buffer, of `words_per_vertex` words per vertex (a
    /// kernel's [`analysis::algorithms::GpuKernel::words_per_vertex`]), fits the limits.
    pub fn max_vertices(&self, words_per_vertex: u64) -> u64 {
        analysis::algorithms::max_vertices(self.max_binding(), words_per_vertex)
    }

    /// The stages dispatched since the last call (each once, sorted): a kernel's must be
    /// those of its recipe, [`analysis::algorithms::GpuKernel::stages`].
    pub fn stages_run(&self) -> Vec<Stage> {
        self.ctx.engine.take_run()
    }

    /// How many trees or forests this device has uploaded (their structure's buffers made):
    /// what a caller that means to reuse an upload can check.
    pub fn uploads(&self) -> usize {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).uploads
    }

    /// The kernel sizes in use (for `accuracy info`).
    pub(crate) fn sizes_text(&self) -> String {
        let s = &self.ctx.sizes;
        let budget = if s.loop_budget == u64::MAX {
            "none".to_string()
        } else {
            s.loop_budget.to_string()
        };
        format!(
            "workgroup {}, scan tile {} x {}, narrow levels up to {} vertices in windows of {}, workgroup gathers from degree {} in chunks of {}, loop budget {budget}",
            s.wg,
            s.wg,
            s.items,
            s.narrow_level.min(s.narrow_cap - 2),
            s.narrow_cap - 2,
            s.gather_min_degree,
            s.gather_chunk
        )
    }

    /// `op` by `algo` (parallel or vectorial) on the GPU, with the time of each phase (each
    /// phase waited for before the next starts).
    pub fn compute_timed(
        &self,
        tree: &Tree,
        w: &[f32],
        algo: Algorithm,
        op: Op,
    ) -> Result<(Vec<f32>, Timing), Error> {
        let (mut values, timing) = self.run(&[(tree, w)], algo, (op, Arithmetic::F32), true)?;
        Ok((values.pop().unwrap(), timing))
    }

    /// How `kernel`'s buffers must be made for weights `parts`: at their scale for a
    /// fixed-point word, and with the unrounded read where the exact reference comes from the
    /// GPU and from these buffers (it then scans the same upload).
    fn made_for(
        &self,
        algo: Algorithm,
        kernel: &GpuKernel,
        parts: &[&[f32]],
    ) -> Result<Made, Error> {
        let row = Variant::of(kernel.layout).and_then(|v| v.row());
        let scale = match row.is_some_and(|r| r.fixed_point) {
            true => Some(Scale::for_parts(parts).ok_or_else(|| {
                Error::Usage(format!(
                    "{algo}: a weight is not finite (no fixed point holds it)"
                ))
            })?),
            false => None,
        };
        let buffers = Buffers::from(kernel.layout);
        let reference = variants::exact_reference_kernel();
        let unrounded =
            self.exact_reference && reference.is_some_and(|k| Buffers::from(k.layout) == buffers);
        Ok(Made { scale, unrounded })
    }

    /// Uploads (or finds) the forest of `jobs`, runs `op` by `algo` on all of them in one
    /// go, and returns each job's results. `phases`: wait after each phase (for timing).
    fn run(
        &self,
        jobs: &[(&Tree, &[f32])],
        algo: Algorithm,
        (op, arith): (Op, Arithmetic),
        phases: bool,
    ) -> Result<(Vec<Vec<f32>>, Timing), Error> {
        arithmetic::check(arith)?;
        crate::experiment::refuse_outside(algo, arith)?;
        for (tree, w) in jobs {
            assert_eq!(tree.len(), w.len(), "one weight per vertex");
        }
        let Some(kernel) = algo.gpu() else {
            return Err(Error::Usage(format!("{algo} has no GPU kernel")));
        };
        let ctx = &self.ctx;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let State {
            residents,
            staging,
            uploads,
        } = &mut *state;
        let trees: Vec<&Tree> = jobs.iter().map(|(t, _)| *t).collect();
        let parts: Vec<&[f32]> = jobs.iter().map(|(_, w)| *w).collect();

        let t0 = Instant::now();
        let made = self.made_for(algo, kernel, &parts)?;
        let index = Self::resident_index(ctx, residents, uploads, &trees)?;
        let res = &mut residents[index];
        let (w, out) = (res.w.clone(), res.out.clone());
        let forest = Forest::new(trees);
        let n = forest.len() as u64;
        let up = res.uploaded(ctx, &forest, kernel.layout, made)?;
        let req = Request {
            op,
            read: Read::Rounded,
            arith,
        };
        let run = up.prepare(ctx, kernel.recipe, req)?;
        let run = up.run(run);
        let tree_upload_s = t0.elapsed().as_secs_f64();

        // Weights up.
        let t1 = Instant::now();
        let mut rec = ctx.recorder();
        rec.encoder
            .copy_buffer_to_buffer(staging.write(ctx, &parts)?, 0, &w, 0, 4 * n);
        ctx.encode(run, Part::Input, &mut rec);
        if phases {
            rec.submit();
            staging.remap();
            ctx.wait()?;
            rec = ctx.recorder();
        }
        let upload_s = t1.elapsed().as_secs_f64();

        // Kernels.
        let t2 = Instant::now();
        ctx.encode(run, Part::Compute, &mut rec);
        let slots = run.timestamp_slots();
        ctx.resolve_timestamps(&mut rec.encoder, slots);
        if phases {
            rec.submit();
            ctx.wait()?;
            rec = ctx.recorder();
        }
        let compute_wall_s = t2.elapsed().as_secs_f64();

        // Results down.
        let t3 = Instant::now();
        ctx.encode(run, Part::Output, &mut rec);
        let down = staging.down(ctx, 4 * n);
        rec.encoder.copy_buffer_to_buffer(&out, 0, down, 0, 4 * n);
        rec.submit();
        if !phases {
            staging.remap();
        }
        let lens: Vec<usize> = jobs.iter().map(|(t, _)| t.len()).collect();
        let values = staging.read(ctx, &lens)?;
        let download_s = t3.elapsed().as_secs_f64();

        let ticks = ctx.read_timestamps(slots)?;
        let (compute_s, stages) = timing::kernel_times(run.phases(), ticks, compute_wall_s);
        let timing = Timing {
            tree_upload_s,
            upload_s,
            compute_s,
            compute_wall_s,
            download_s,
            method: self.timing_method(),
            stages,
        };
        Ok((values, timing))
    }

    /// The cached upload of `trees`, made (counted in `uploads`, and the oldest dropped) if
    /// absent.
    fn resident_index(
        ctx: &Context,
        residents: &mut Vec<Resident>,
        uploads: &mut usize,
        trees: &[&Tree],
    ) -> Result<usize, Error> {
        if let Some(i) = residents.iter().position(|r| r.matches(trees)) {
            return Ok(i);
        }
        if residents.len() >= CACHE_TREES {
            residents.remove(0);
        }
        *uploads += 1;
        residents.push(Self::resident(ctx, trees)?);
        Ok(residents.len() - 1)
    }

    fn resident(ctx: &Context, trees: &[&Tree]) -> Result<Resident, Error> {
        let forest = Forest::new(trees.to_vec());
        let n = forest.len();
        use wgpu::BufferUsages as U;
        Ok(Resident {
            keys: trees.iter().map(|t| TreeKey::of(t)).collect(),
            w: ctx.buffer("weights", n, n, U::COPY_DST | U::COPY_SRC)?,
            out: ctx.buffer("results", n, n, U::COPY_SRC)?,
            uploaded: Vec::new(),
        })
    }

    /// Jobs in forests whose largest buffer fits the limits, each tree taking its kernel's
    /// words per vertex (the Euler-tour vector tile-aligned, so that no tile crosses trees); a
    /// job too large alone is a forest of its own (and fails with the limit error).
    fn batches<'a, 'b>(
        &self,
        jobs: &'a [(&'b Tree, &'b [f32])],
        words_per_vertex: fn(&[f32]) -> u64,
    ) -> Vec<&'a [(&'b Tree, &'b [f32])]> {
        let tile = analysis::scan_plan::TILE as u64;
        let limit = self.max_binding() / 4;
        let mut out = Vec::new();
        let (mut start, mut words) = (0, 0u64);
        for (i, (tree, w)) in jobs.iter().enumerate() {
            let need = (words_per_vertex(w) * tree.len() as u64).div_ceil(tile) * tile + 1;
            if i > start && words + need > limit {
                out.push(&jobs[start..i]);
                start = i;
                words = 0;
            }
            words += need;
        }
        if start < jobs.len() {
            out.push(&jobs[start..]);
        }
        out
    }
}

impl Backend for Gpu {
    fn device(&self) -> Device {
        Device::Gpu
    }
    fn describe(&self) -> String {
        adapter::describe_info(&self.info)
    }

    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error> {
        self.compute_in(tree, w, algo, (op, Arithmetic::F32))
    }

    /// The kernel compiled for `arith` (`arithmetic`): f16 and bf16 as f32 words, each
    /// addition rounded to the accumulation format, each result to the storage format.
    fn compute_in(
        &self,
        tree: &Tree,
        w: &[f32],
        algo: Algorithm,
        at: (Op, Arithmetic),
    ) -> Result<Vec<f32>, Error> {
        let (mut values, _) = self.run(&[(tree, w)], algo, at, false)?;
        Ok(values.pop().unwrap())
    }

    fn exact_reference(&self, tree: &Tree, w: &[f32], op: Op) -> Result<Option<Reference>, Error> {
        if !self.exact_reference {
            return Ok(None);
        }
        self.exact_reference_of(tree, w, op)
    }

    /// The forests of [`Backend::compute_many`] with the kernel whose unrounded read gives
    /// the exact reference, scanned whole ([`Gpu::exact_references_of`]): a sweep's batch is
    /// not uploaded again.
    fn exact_references(
        &self,
        jobs: &[(&Tree, &[f32])],
        op: Op,
    ) -> Result<Vec<Option<Reference>>, Error> {
        if !self.exact_reference {
            return Ok(jobs.iter().map(|_| None).collect());
        }
        self.exact_references_of(jobs, op)
    }

    /// The trees as forests, one call each: `parallel` runs level d of every tree in the same
    /// dispatch; `vectorial` scans every tree's Euler-tour segment (tile-aligned, so the scan
    /// plan's prefixes never cross trees) in the same dispatches. Results are those of one
    /// tree at a time, bit for bit.
    fn compute_many(
        &self,
        jobs: &[(&Tree, &[f32])],
        algo: Algorithm,
        op: Op,
    ) -> Result<Vec<Vec<f32>>, Error> {
        let mut out = Vec::with_capacity(jobs.len());
        let words_per_vertex: fn(&[f32]) -> u64 = algo.gpu().map_or(|_| 2, |k| k.words_per_vertex);
        for batch in self.batches(jobs, words_per_vertex) {
            out.extend(self.run(batch, algo, (op, Arithmetic::F32), false)?.0);
        }
        Ok(out)
    }
}
