//! GPU twins of the parallel, vectorial and contraction kernels (WGSL through wgpu), bit for
//! bit equal to the CPU twins in [`analysis::algorithms`].
//!
//! Layout of this module:
//! - `adapter`: which adapter, and `accuracy info`;
//! - `context`: device, queue, limits, pipelines, timestamps, checked buffers;
//! - `shaders`: the registry of WGSL stages (`shaders/`), built once per device with the
//!   sizes of `analysis::scan_plan` as pipeline-overridable constants;
//! - `types`: the structs shared with the shaders (Rust definitions, generated WGSL);
//! - `layout`: the host-side relabelings (breadth-first, preorder) and dispatch plans;
//! - `parallel`, `vectorial`, `contraction`: each kernel's host code; `relabel`: weights into
//!   a kernel's labels and results back, on the way in and out;
//! - `transfer`: weights up, results down through reused staging buffers;
//! - `bench`: `accuracy bench`.
//!
//! One [`Gpu`] holds the device and a small cache of uploaded trees (or forests of trees from
//! [`Backend::compute_many`]), keyed by their full structure: a sweep's calls on one tree
//! upload it once. GPU access is serialized by a mutex: the sweep's rayon threads share one
//! `Gpu` safely.

mod adapter;
pub mod bench;
mod context;
mod contraction;
mod layout;
mod parallel;
mod relabel;
mod shaders;
mod transfer;
mod types;
mod vectorial;

pub use adapter::{AdapterReport, adapters, info_text};

use crate::Error;
use crate::experiment::{Backend, Cpu};
use analysis::algorithms::{GpuLayout, ScanWord};
use analysis::scan_plan::Plan;
use analysis::{Algorithm, Op, Reference};
use context::{Context, Recorder};
use contraction::ContractionTree;
use generators::Tree;
use generators::fixed::Scale;
use layout::Forest;
use parallel::ParallelTree;
use shaders::{Precision, Sizes};
use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Instant;
use vectorial::VectorialTree;

/// Uploaded trees (or forests) kept at once.
const CACHE_TREES: usize = 2;

/// Which backend `sweep` and `run` use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    /// The GPU when an adapter exists, else the CPU twins.
    Auto,
    /// The GPU; no adapter is an error.
    Gpu,
    /// The CPU twins.
    Cpu,
}

impl FromStr for BackendChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Self::Auto),
            "gpu" => Ok(Self::Gpu),
            "cpu" => Ok(Self::Cpu),
            _ => Err(format!("unknown backend '{s}' (expected auto, gpu or cpu)")),
        }
    }
}

impl fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Auto => "auto",
            Self::Gpu => "gpu",
            Self::Cpu => "cpu",
        })
    }
}

/// The backend for `choice`. `Auto` without an adapter says so on stderr and returns the CPU
/// twins; `Gpu` without one is an error.
/// `exact_on_gpu`: the GPU computes the exact reference too ([`Gpu::exact_reference_of`]).
pub fn select_backend(
    choice: BackendChoice,
    exact_on_gpu: bool,
) -> Result<Box<dyn Backend>, Error> {
    let gpu = || {
        Gpu::with_options(GpuOptions {
            exact_reference: exact_on_gpu,
            ..GpuOptions::default()
        })
    };
    match choice {
        BackendChoice::Cpu => Ok(Box::new(Cpu)),
        BackendChoice::Gpu => Ok(Box::new(gpu()?)),
        BackendChoice::Auto => match gpu() {
            Ok(gpu) => Ok(Box::new(gpu)),
            Err(e) => {
                eprintln!("backend auto: no usable GPU adapter ({e}); using the CPU twins");
                Ok(Box::new(Cpu))
            }
        },
    }
}

/// How [`Timing::compute_s`] was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimingMethod {
    /// GPU timestamp queries around all compute passes of the call.
    Timestamps,
    /// Wall clock from the first submit to the device going idle (no timestamp support).
    WallClock,
}

impl fmt::Display for TimingMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Timestamps => "GPU timestamp queries",
            Self::WallClock => "wall clock around submit + wait",
        })
    }
}

/// Where the time of one call went (seconds).
#[derive(Debug, Clone)]
pub struct Timing {
    /// Relabeling the tree's structure, uploading it and creating its buffers (0 when it was
    /// cached).
    pub tree_upload_s: f64,
    /// Weights into the staging buffer, copied to the device and into the kernel's labels
    /// (wall clock, waited for).
    pub upload_s: f64,
    /// The kernels alone, measured by `method`.
    pub compute_s: f64,
    /// Recording, submitting and waiting for the kernels (wall clock).
    pub compute_wall_s: f64,
    /// Results back to the tree's labels, copied to the staging buffer, mapped and copied out
    /// (wall clock).
    pub download_s: f64,
    pub method: TimingMethod,
    /// Per-stage kernel times (vectorial: write + scan, read), with GPU timestamps only.
    pub stages: Vec<(&'static str, f64)>,
}

impl Timing {
    /// Weights up, kernels, results down (the tree already resident).
    pub fn with_transfers_s(&self) -> f64 {
        self.upload_s + self.compute_wall_s + self.download_s
    }

    /// Weights up plus results down.
    pub fn transfer_s(&self) -> f64 {
        self.upload_s + self.download_s
    }
}

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

/// What identifies a tree's GPU buffers: its root and its children in child order (which fix
/// the levels and the Euler tour). Compared in full, so two trees never share buffers by a
/// hash collision.
#[derive(PartialEq, Eq)]
struct TreeKey {
    root: u32,
    child_start: Box<[u32]>,
    children: Box<[u32]>,
}

impl TreeKey {
    fn of(tree: &Tree) -> TreeKey {
        let (start, children) = tree.csr();
        TreeKey {
            root: tree.root(),
            child_start: start.into(),
            children: children.into(),
        }
    }

    fn matches(&self, tree: &Tree) -> bool {
        let (start, children) = tree.csr();
        self.root == tree.root() && *self.child_start == *start && *self.children == *children
    }
}

/// One uploaded forest (a single tree for [`Gpu::compute_timed`] and [`Backend::compute`]).
struct Resident {
    keys: Vec<TreeKey>,
    /// Weights and results in the original labels, trees end to end.
    w: wgpu::Buffer,
    out: wgpu::Buffer,
    parallel: Option<ParallelTree>,
    /// f32 scan buffers: vectorial and vectorial-chained.
    vectorial: Option<VectorialTree>,
    /// Float-float scan buffers: vectorial-compensated.
    compensated: Option<VectorialTree>,
    /// Fixed-point scan buffers at the scale of the last weights: vectorial-exact.
    exact: Option<VectorialTree>,
    contraction: Option<ContractionTree>,
}

/// What a call needs of an uploaded kernel: weights into its buffers, its dispatches, its
/// results back into the forest's result buffer.
trait Uploaded {
    fn record_in(&self, ctx: &Context, w: &wgpu::Buffer, encoder: &mut wgpu::CommandEncoder);
    /// Records `op` by `algo`; returns the timestamp slots written (the last one: the end).
    fn record(&self, ctx: &Context, layout: GpuLayout, op: Op, rec: &mut Recorder) -> u32;
    fn record_out(&self, ctx: &Context, op: Op, encoder: &mut wgpu::CommandEncoder);
}

impl Uploaded for ParallelTree {
    fn record_in(&self, ctx: &Context, _w: &wgpu::Buffer, encoder: &mut wgpu::CommandEncoder) {
        self.labels.record_in(ctx, encoder);
    }
    fn record(&self, ctx: &Context, _layout: GpuLayout, op: Op, rec: &mut Recorder) -> u32 {
        ParallelTree::record(self, ctx, op, rec);
        2
    }
    fn record_out(&self, ctx: &Context, _op: Op, encoder: &mut wgpu::CommandEncoder) {
        self.labels.record_out(ctx, encoder);
    }
}

impl Uploaded for VectorialTree {
    fn record_in(&self, ctx: &Context, _w: &wgpu::Buffer, encoder: &mut wgpu::CommandEncoder) {
        self.labels.record_in(ctx, encoder);
    }
    fn record(&self, ctx: &Context, layout: GpuLayout, op: Op, rec: &mut Recorder) -> u32 {
        let chained = matches!(
            layout,
            GpuLayout::Scan {
                plan: Plan::Chained,
                ..
            }
        );
        VectorialTree::record(self, ctx, op, chained, rec);
        vectorial::STAGES.len() as u32 + 1
    }
    fn record_out(&self, ctx: &Context, _op: Op, encoder: &mut wgpu::CommandEncoder) {
        self.labels.record_out(ctx, encoder);
    }
}

impl Uploaded for ContractionTree {
    fn record_in(&self, _ctx: &Context, w: &wgpu::Buffer, encoder: &mut wgpu::CommandEncoder) {
        ContractionTree::record_in(self, w, encoder);
    }
    fn record(&self, ctx: &Context, _layout: GpuLayout, op: Op, rec: &mut Recorder) -> u32 {
        ContractionTree::record(self, ctx, op, rec);
        2
    }
    fn record_out(&self, ctx: &Context, op: Op, encoder: &mut wgpu::CommandEncoder) {
        ContractionTree::record_out(self, ctx, op, encoder);
    }
}

impl Resident {
    /// The uploaded kernel of `layout` (`None` if not uploaded yet).
    fn uploaded(&self, layout: GpuLayout) -> Option<&dyn Uploaded> {
        match layout {
            GpuLayout::Levels => self.parallel.as_ref().map(|p| p as &dyn Uploaded),
            GpuLayout::Program => self.contraction.as_ref().map(|c| c as &dyn Uploaded),
            GpuLayout::Scan {
                word: ScanWord::F32,
                ..
            } => self.vectorial.as_ref().map(|v| v as &dyn Uploaded),
            GpuLayout::Scan {
                word: ScanWord::FloatFloat,
                ..
            } => self.compensated.as_ref().map(|v| v as &dyn Uploaded),
            GpuLayout::Scan {
                word: ScanWord::Exact,
                ..
            } => self.exact.as_ref().map(|v| v as &dyn Uploaded),
        }
    }
}

impl Resident {
    fn matches(&self, trees: &[&Tree]) -> bool {
        self.keys.len() == trees.len() && self.keys.iter().zip(trees).all(|(k, t)| k.matches(t))
    }
}

struct State {
    residents: Vec<Resident>,
    staging: transfer::Staging,
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

    /// The largest tree whose largest buffer (the vectorial 2n-word E) fits the limits.
    pub fn max_vertices(&self) -> u64 {
        let l = &self.ctx.limits;
        l.max_storage_buffer_binding_size.min(l.max_buffer_size) / 8
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
        let (mut values, timing) = self.run(&[(tree, w)], algo, op, true)?;
        Ok((values.pop().unwrap(), timing))
    }

    /// Uploads (or finds) the forest of `jobs`, runs `op` by `algo` on all of them in one
    /// go, and returns each job's results. `phases`: wait after each phase (for timing).
    fn run(
        &self,
        jobs: &[(&Tree, &[f32])],
        algo: Algorithm,
        op: Op,
        phases: bool,
    ) -> Result<(Vec<Vec<f32>>, Timing), Error> {
        for (tree, w) in jobs {
            assert_eq!(tree.len(), w.len(), "one weight per vertex");
        }
        let Some(kernel) = algo.gpu() else {
            return Err(Error::Usage(format!("{algo} has no GPU kernel")));
        };
        let layout = kernel.layout;
        if let GpuLayout::Scan {
            plan: Plan::Sequential,
            ..
        } = layout
        {
            return Err(Error::Usage(format!(
                "{algo}: no GPU kernel scans sequentially"
            )));
        }
        let ctx = &self.ctx;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let State { residents, staging } = &mut *state;
        let trees: Vec<&Tree> = jobs.iter().map(|(t, _)| *t).collect();

        let t0 = Instant::now();
        let index = Self::resident_index(ctx, residents, &trees)?;
        let res = &mut residents[index];
        let forest = Forest::new(trees);
        // The exact scan's buffers are sized by the weights' scale: made again for another.
        let exact = match layout {
            GpuLayout::Scan {
                word: ScanWord::Exact,
                ..
            } => {
                let parts: Vec<&[f32]> = jobs.iter().map(|(_, w)| *w).collect();
                let scale = Scale::for_parts(&parts).ok_or_else(|| {
                    Error::Usage(format!(
                        "{algo}: a weight is not finite (no fixed point holds it)"
                    ))
                })?;
                let precision = Precision::exact(scale);
                if res.exact.as_ref().map(|v| v.precision()) != Some(precision) {
                    res.exact = None;
                }
                Some(precision)
            }
            _ => None,
        };
        if res.uploaded(layout).is_none() {
            match layout {
                GpuLayout::Scan { word, .. } => {
                    let (slot, precision) = match word {
                        ScanWord::F32 => (&mut res.vectorial, Precision::Single),
                        ScanWord::FloatFloat => (&mut res.compensated, Precision::FloatFloat),
                        ScanWord::Exact => (&mut res.exact, exact.expect("scale found above")),
                    };
                    *slot = Some(VectorialTree::new(
                        ctx, &forest, &res.w, &res.out, precision, false,
                    )?);
                }
                GpuLayout::Levels => {
                    res.parallel = Some(ParallelTree::new(ctx, &forest, &res.w, &res.out)?);
                }
                GpuLayout::Program => {
                    res.contraction = Some(ContractionTree::new(ctx, &forest, &res.out)?);
                }
            }
        }
        if let GpuLayout::Scan {
            word: ScanWord::F32,
            plan: Plan::Chained,
        } = layout
        {
            res.vectorial.as_ref().unwrap().check_chained()?;
        }
        let n = forest.len() as u64;
        let tree_upload_s = t0.elapsed().as_secs_f64();

        // Weights up.
        let t1 = Instant::now();
        let parts: Vec<&[f32]> = jobs.iter().map(|(_, w)| *w).collect();
        let kernel = res.uploaded(layout).expect("uploaded above");
        let mut rec = Recorder::new(ctx);
        rec.encoder
            .copy_buffer_to_buffer(staging.write(ctx, &parts)?, 0, &res.w, 0, 4 * n);
        kernel.record_in(ctx, &res.w, &mut rec.encoder);
        if phases {
            rec.submit();
            staging.remap();
            ctx.wait()?;
            rec = Recorder::new(ctx);
        }
        let upload_s = t1.elapsed().as_secs_f64();

        // Kernels.
        let t2 = Instant::now();
        let slots = kernel.record(ctx, layout, op, &mut rec);
        ctx.resolve_timestamps(&mut rec.encoder, slots);
        if phases {
            rec.submit();
            ctx.wait()?;
            rec = Recorder::new(ctx);
        }
        let compute_wall_s = t2.elapsed().as_secs_f64();

        // Results down.
        let t3 = Instant::now();
        kernel.record_out(ctx, op, &mut rec.encoder);
        let down = staging.down(ctx, 4 * n);
        rec.encoder
            .copy_buffer_to_buffer(&res.out, 0, down, 0, 4 * n);
        rec.submit();
        if !phases {
            staging.remap();
        }
        let lens: Vec<usize> = jobs.iter().map(|(t, _)| t.len()).collect();
        let values = staging.read(ctx, &lens)?;
        let download_s = t3.elapsed().as_secs_f64();

        let ticks = ctx.read_timestamps(slots)?;
        let stages = match (&ticks, algo) {
            (Some(t), a) if a.is_vectorial() => {
                let mut before = 0.0;
                vectorial::STAGES
                    .iter()
                    .map(|&(name, slot)| {
                        let at = t[slot as usize - 1];
                        let d = at - before;
                        before = at;
                        (name, d)
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let timing = Timing {
            tree_upload_s,
            upload_s,
            compute_s: ticks
                .as_ref()
                .map_or(compute_wall_s, |t| t[slots as usize - 2]),
            compute_wall_s,
            download_s,
            method: self.timing_method(),
            stages,
        };
        Ok((values, timing))
    }

    /// The cached upload of `trees`, made (and the oldest dropped) if absent.
    fn resident_index(
        ctx: &Context,
        residents: &mut Vec<Resident>,
        trees: &[&Tree],
    ) -> Result<usize, Error> {
        if let Some(i) = residents.iter().position(|r| r.matches(trees)) {
            return Ok(i);
        }
        if residents.len() >= CACHE_TREES {
            residents.remove(0);
        }
        residents.push(Self::resident(ctx, trees)?);
        Ok(residents.len() - 1)
    }

    /// The exact reference of `op`: every vertex's exact rootfix or leaffix and its
    /// Σ|terms|, from vectorial-exact's scan left unrounded (its 32-bit words read back and
    /// made the CPU's fixed point here), the second over |w|. `None` where the weights hold a −0 (whose sign rules the
    /// CPU reference keeps) or a non-finite value.
    pub fn exact_reference_of(
        &self,
        tree: &Tree,
        w: &[f32],
        op: Op,
    ) -> Result<Option<Reference>, Error> {
        if w.iter().any(|x| x.to_bits() == 0x8000_0000) {
            return Ok(None);
        }
        let Some(scale) = Scale::for_weights(w) else {
            return Ok(None);
        };
        let abs: Vec<f32> = w.iter().map(|x| x.abs()).collect();
        let values = self.exact_words(tree, w, op, scale)?;
        let abs_sums = self.exact_words(tree, &abs, op, scale)?;
        Ok(Reference::exact_from_words(
            w,
            scale.unit(),
            scale.gpu_words(),
            &values,
            &abs_sums,
        ))
    }

    /// One unrounded exact scan of `w` (of scale `scale`) on `tree`: each vertex's words, in
    /// the tree's labels.
    fn exact_words(&self, tree: &Tree, w: &[f32], op: Op, scale: Scale) -> Result<Vec<u32>, Error> {
        assert_eq!(tree.len(), w.len(), "one weight per vertex");
        let ctx = &self.ctx;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let State { residents, staging } = &mut *state;
        let index = Self::resident_index(ctx, residents, &[tree])?;
        let res = &mut residents[index];
        let precision = Precision::exact(scale);
        let reusable = res
            .exact
            .as_ref()
            .is_some_and(|v| v.precision() == precision && v.has_unrounded_read());
        if !reusable {
            let forest = Forest::new(vec![tree]);
            res.exact = Some(VectorialTree::new(
                ctx, &forest, &res.w, &res.out, precision, true,
            )?);
        }
        let kernel = res.exact.as_ref().expect("made above");
        let n = tree.len();
        let mut rec = Recorder::new(ctx);
        rec.encoder
            .copy_buffer_to_buffer(staging.write(ctx, &[w])?, 0, &res.w, 0, 4 * n as u64);
        Uploaded::record_in(kernel, ctx, &res.w, &mut rec.encoder);
        kernel.record_scan(ctx, op, false, &mut rec);
        let (limbs, orig) = kernel
            .record_read_limbs(ctx, op, &mut rec)
            .expect("an exact scan has its unrounded read");
        let per_vertex = scale.gpu_words();
        let words = per_vertex * n;
        let down = staging.down(ctx, 4 * words as u64);
        rec.encoder
            .copy_buffer_to_buffer(limbs, 0, down, 0, 4 * words as u64);
        rec.submit();
        staging.remap();
        // The words travel as f32 bit patterns (a byte copy, never an f32 operation).
        let raw = staging.read(ctx, &[words])?.pop().expect("one vector");
        let mut out = vec![0u32; words];
        for (label, k) in raw.chunks_exact(per_vertex).enumerate() {
            let at = per_vertex * orig[label] as usize;
            for (o, x) in out[at..at + per_vertex].iter_mut().zip(k) {
                *o = x.to_bits();
            }
        }
        Ok(out)
    }

    fn resident(ctx: &Context, trees: &[&Tree]) -> Result<Resident, Error> {
        let forest = Forest::new(trees.to_vec());
        let n = forest.len();
        use wgpu::BufferUsages as U;
        Ok(Resident {
            keys: trees.iter().map(|t| TreeKey::of(t)).collect(),
            w: ctx.buffer("weights", n, n, U::COPY_DST | U::COPY_SRC)?,
            out: ctx.buffer("results", n, n, U::COPY_SRC)?,
            parallel: None,
            vectorial: None,
            compensated: None,
            exact: None,
            contraction: None,
        })
    }

    /// Jobs in forests whose largest buffer fits the limits: the Euler-tour vector (each
    /// tree's 2n positions, tile-aligned, of one f32 or two for float-float), or the
    /// contraction's slots (at most 1 + 4n words); a job too large alone is a forest of its
    /// own (and fails with the limit error).
    fn batches<'a, 'b>(
        &self,
        jobs: &'a [(&'b Tree, &'b [f32])],
        algo: Algorithm,
    ) -> Vec<&'a [(&'b Tree, &'b [f32])]> {
        let tile = analysis::scan_plan::TILE as u64;
        let limit = 2 * self.max_vertices();
        let words_per_vertex = algo.gpu().map_or(2, |k| k.words_per_vertex);
        let mut out = Vec::new();
        let (mut start, mut words) = (0, 0u64);
        for (i, (tree, _)) in jobs.iter().enumerate() {
            let need = (words_per_vertex * tree.len() as u64).div_ceil(tile) * tile + 1;
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
    fn describe(&self) -> String {
        adapter::describe_info(&self.info)
    }

    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error> {
        let (mut values, _) = self.run(&[(tree, w)], algo, op, false)?;
        Ok(values.pop().unwrap())
    }

    fn exact_reference(&self, tree: &Tree, w: &[f32], op: Op) -> Result<Option<Reference>, Error> {
        if !self.exact_reference {
            return Ok(None);
        }
        self.exact_reference_of(tree, w, op)
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
        for batch in self.batches(jobs, algo) {
            out.extend(self.run(batch, algo, op, false)?.0);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_choice_parses() {
        assert_eq!("auto".parse(), Ok(BackendChoice::Auto));
        assert_eq!("gpu".parse(), Ok(BackendChoice::Gpu));
        assert_eq!("cpu".parse(), Ok(BackendChoice::Cpu));
        assert!("cuda".parse::<BackendChoice>().is_err());
    }
}
