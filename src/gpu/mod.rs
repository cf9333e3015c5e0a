//! GPU twins of the parallel and vectorial kernels (WGSL through wgpu), bit for bit equal to
//! the CPU twins in [`crate::kernels`].
//!
//! One [`Gpu`] holds the device, every compute pipeline (built once) and a small cache of
//! uploaded trees: a tree's structure (Euler tour, CSR children, levels) and its work buffers
//! are uploaded on first use and reused by every later call on the same tree (keyed by its full
//! structure), so a sweep's four (algorithm, op) calls on one tree upload it once. Each
//! call uploads the weights, runs the kernel and reads the results back, timing the three
//! phases separately ([`Timing`]).
//!
//! GPU access is serialized by a mutex: the sweep's rayon threads share one `Gpu` safely.
//!
//! Shaders (one file per stage, `shaders/`): `vectorial_write`, `scan_tile`, `scan_add`,
//! `vectorial_read` (vectorial), `frontier_scan`, `frontier_expand` (parallel rootfix),
//! `leaffix_gather` (parallel leaffix).

pub mod bench;
mod parallel;
mod vectorial;

use crate::Error;
use crate::experiment::{Backend, Cpu};
use analysis::{Algorithm, Op};
use generators::Tree;
use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Instant;
use wgpu::util::DeviceExt;

/// Threads per workgroup of every shader.
pub(crate) const WG: u32 = 256;
/// Trees kept uploaded at once (a sweep evaluates one tree at a time per thread).
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
pub fn select_backend(choice: BackendChoice) -> Result<Box<dyn Backend>, Error> {
    match choice {
        BackendChoice::Cpu => Ok(Box::new(Cpu)),
        BackendChoice::Gpu => Ok(Box::new(Gpu::new()?)),
        BackendChoice::Auto => match Gpu::new() {
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
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Uploading the tree's structure and creating its buffers (0 when it was cached).
    pub tree_upload_s: f64,
    /// Uploading the weights (write + wait).
    pub upload_s: f64,
    /// The kernels alone, measured by `method`.
    pub compute_s: f64,
    /// Recording, submitting and waiting for the kernels (wall clock).
    pub compute_wall_s: f64,
    /// Copying the results back and mapping them (wall clock).
    pub download_s: f64,
    pub method: TimingMethod,
}

impl Timing {
    /// Weights up, kernels, results down (the tree already resident).
    pub fn with_transfers_s(&self) -> f64 {
        self.upload_s + self.compute_wall_s + self.download_s
    }
}

/// One adapter as `accuracy info` lists it.
#[derive(Debug, Clone)]
pub struct AdapterReport {
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pub timestamps: bool,
    pub compute: bool,
}

impl AdapterReport {
    fn of(adapter: &wgpu::Adapter) -> AdapterReport {
        AdapterReport {
            info: adapter.get_info(),
            limits: adapter.limits(),
            timestamps: adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY),
            compute: adapter
                .get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS),
        }
    }
}

/// `gpu: <adapter name> (<backend>, <driver>)`.
fn describe_info(info: &wgpu::AdapterInfo) -> String {
    format!("gpu: {}", adapter_label(info))
}

/// `<adapter name> (<backend>, <driver>)`.
fn adapter_label(info: &wgpu::AdapterInfo) -> String {
    let driver = match (info.driver.is_empty(), info.driver_info.is_empty()) {
        (false, false) => format!("{} {}", info.driver, info.driver_info),
        (false, true) => info.driver.clone(),
        (true, false) => info.driver_info.clone(),
        (true, true) => "unknown driver".into(),
    };
    format!("{} ({:?}, {driver})", info.name, info.backend)
}

fn instance() -> (wgpu::Instance, wgpu::Backends) {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    // wgpu re-validates the arguments of every indirect dispatch with an extra compute pass.
    // Ours are computed by `fold` in frontier_scan.wgsl, within the limit by construction, and
    // the check doubles the per-level cost of the BFS on lavapipe. Off except on Windows, where
    // D3D12 needs it for `num_workgroups`; WGPU_VALIDATION_INDIRECT_CALL=1 turns it back on.
    if !cfg!(windows) {
        desc.flags
            .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    }
    // Honours WGPU_BACKEND (e.g. `vulkan`, `metal`, `dx12`, `gl`) and wgpu's WGPU_* flags.
    let desc = desc.with_env();
    let backends = desc.backends;
    (wgpu::Instance::new(desc), backends)
}

/// The adapter-name filter: `TREEFIX_ADAPTER`, else wgpu's own `WGPU_ADAPTER_NAME`.
fn adapter_filter() -> Option<String> {
    ["TREEFIX_ADAPTER", "WGPU_ADAPTER_NAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|s| !s.is_empty()))
}

/// Every adapter wgpu sees (after WGPU_BACKEND), with the limits that matter here.
pub fn adapters() -> Vec<AdapterReport> {
    let (instance, backends) = instance();
    pollster::block_on(instance.enumerate_adapters(backends))
        .iter()
        .map(AdapterReport::of)
        .collect()
}

/// The `accuracy info` text about GPU adapters.
pub fn info_text() -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let filter = adapter_filter();
    let _ = writeln!(
        s,
        "GPU adapters (WGPU_BACKEND={}, TREEFIX_ADAPTER={}):",
        std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "<all>".into()),
        filter.as_deref().unwrap_or("<any>")
    );
    let list = adapters();
    if list.is_empty() {
        let _ = writeln!(
            s,
            "  none (on a machine without a GPU: apt-get install mesa-vulkan-drivers for lavapipe)"
        );
    }
    for a in &list {
        let l = &a.limits;
        let _ = writeln!(s, "  {}", adapter_label(&a.info));
        let _ = writeln!(
            s,
            "    type {:?}, compute shaders {}, timestamp queries {}",
            a.info.device_type,
            yes(a.compute),
            yes(a.timestamps)
        );
        let _ = writeln!(
            s,
            "    max_buffer_size {} B, max_storage_buffer_binding_size {} B",
            l.max_buffer_size, l.max_storage_buffer_binding_size
        );
        let _ = writeln!(
            s,
            "    max_compute_workgroups_per_dimension {}, max_compute_invocations_per_workgroup {}, max_storage_buffers_per_shader_stage {}",
            l.max_compute_workgroups_per_dimension,
            l.max_compute_invocations_per_workgroup,
            l.max_storage_buffers_per_shader_stage
        );
    }
    match Gpu::new() {
        Ok(gpu) => {
            let _ = writeln!(s, "selected: {}", gpu.describe());
            let _ = writeln!(
                s,
                "largest tree: {} vertices (2n-word Euler tour and CSR buffers within max_storage_buffer_binding_size)",
                gpu.max_vertices()
            );
        }
        Err(e) => {
            let _ = writeln!(s, "selected: none ({e})");
        }
    }
    s
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// Rank for the default choice: discrete before integrated before virtual before CPU, and the
/// native APIs before GL.
fn rank(info: &wgpu::AdapterInfo) -> (u8, u8) {
    let ty = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let api = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        _ => 1,
    };
    (ty, api)
}

/// Every compute pipeline, built once per device.
pub(crate) struct Pipelines {
    pub write_rootfix: wgpu::ComputePipeline,
    pub write_leaffix: wgpu::ComputePipeline,
    pub scan_tile: wgpu::ComputePipeline,
    pub scan_add: wgpu::ComputePipeline,
    pub read_rootfix: wgpu::ComputePipeline,
    pub read_leaffix: wgpu::ComputePipeline,
    pub frontier_degrees: wgpu::ComputePipeline,
    pub frontier_blocks: wgpu::ComputePipeline,
    pub frontier_add: wgpu::ComputePipeline,
    pub frontier_expand: wgpu::ComputePipeline,
    pub gather: wgpu::ComputePipeline,
    pub gather_layout: wgpu::BindGroupLayout,
}

impl Pipelines {
    fn new(device: &wgpu::Device, max_dim: u32) -> Pipelines {
        let module = |desc| device.create_shader_module(desc);
        let write = module(wgpu::include_wgsl!("../../shaders/vectorial_write.wgsl"));
        let scan_tile = module(wgpu::include_wgsl!("../../shaders/scan_tile.wgsl"));
        let scan_add = module(wgpu::include_wgsl!("../../shaders/scan_add.wgsl"));
        let read = module(wgpu::include_wgsl!("../../shaders/vectorial_read.wgsl"));
        let fscan = module(wgpu::include_wgsl!("../../shaders/frontier_scan.wgsl"));
        let expand = module(wgpu::include_wgsl!("../../shaders/frontier_expand.wgsl"));
        let gather = module(wgpu::include_wgsl!("../../shaders/leaffix_gather.wgsl"));
        let constants = [("MAX_DIM", max_dim as f64)];
        let auto = |module: &wgpu::ShaderModule, entry: &str, constants: &[(&str, f64)]| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: None,
                module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    ..Default::default()
                },
                cache: None,
            })
        };
        // The gather reads its level through a dynamic uniform offset: explicit layout.
        let uniform = |binding, dynamic| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: dynamic,
                min_binding_size: None,
            },
            count: None,
        };
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let gather_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("leaffix_gather"),
            entries: &[
                uniform(0, false),
                uniform(1, true),
                storage(2, true),
                storage(3, true),
                storage(4, true),
                storage(5, false),
            ],
        });
        let gather_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("leaffix_gather"),
                bind_group_layouts: &[Some(&gather_layout)],
                immediate_size: 0,
            });
        Pipelines {
            write_rootfix: auto(&write, "write_rootfix", &[]),
            write_leaffix: auto(&write, "write_leaffix", &[]),
            scan_tile: auto(&scan_tile, "scan_tile", &[]),
            scan_add: auto(&scan_add, "scan_add", &[]),
            read_rootfix: auto(&read, "read_rootfix", &[]),
            read_leaffix: auto(&read, "read_leaffix", &[]),
            frontier_degrees: auto(&fscan, "scan_degrees", &constants),
            frontier_blocks: auto(&fscan, "scan_blocks", &constants),
            frontier_add: auto(&fscan, "scan_add", &constants),
            frontier_expand: auto(&expand, "expand", &[]),
            gather: device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("gather"),
                layout: Some(&gather_pipeline_layout),
                module: &gather,
                entry_point: Some("gather"),
                compilation_options: Default::default(),
                cache: None,
            }),
            gather_layout,
        }
    }
}

/// Settings that make a device look smaller than it is, to exercise 2D dispatch folding and
/// the limit errors on small trees (tests).
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuOptions {
    /// Fold dispatches above this many workgroups per dimension (default: the device limit).
    pub max_workgroups_per_dimension: Option<u32>,
    /// Treat storage buffers above this size (bytes) as over the limit (default: the device's
    /// max_storage_buffer_binding_size and max_buffer_size).
    pub max_storage_buffer_binding_size: Option<u64>,
}

/// Device, queue, pipelines and limits: what every kernel's host code needs.
pub(crate) struct Context {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// The device's limits, lowered by [`GpuOptions`].
    pub limits: wgpu::Limits,
    pub pipelines: Pipelines,
    /// Timestamp queries (query set of 2, resolve and read buffers), when supported.
    timestamps: Option<Timestamps>,
}

struct Timestamps {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    period_ns: f32,
}

impl Context {
    /// Dispatch size for `groups` workgroups, folded into 2D above the per-dimension limit
    /// (the shaders rebuild the linear index from `num_workgroups`).
    pub fn fold(&self, groups: u32) -> (u32, u32) {
        fold(groups, self.limits.max_compute_workgroups_per_dimension)
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

    /// A storage buffer holding `data` (a single zero when empty).
    pub fn buffer_init(
        &self,
        what: &str,
        data: &[u32],
        n: usize,
        usage: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer, Error> {
        let data: &[u32] = if data.is_empty() { &[0] } else { data };
        self.check(what, 4 * data.len() as u64, n)?;
        Ok(self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(what),
                contents: bytemuck::cast_slice(data),
                usage: usage | wgpu::BufferUsages::STORAGE,
            }))
    }

    /// A small uniform buffer of 32-bit words (padded to 16 bytes).
    pub fn uniform(&self, what: &str, words: &[u32]) -> wgpu::Buffer {
        let mut data = words.to_vec();
        data.resize(data.len().div_ceil(4).max(1) * 4, 0);
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(what),
                contents: bytemuck::cast_slice(&data),
                usage: wgpu::BufferUsages::UNIFORM,
            })
    }

    /// A bind group for group 0 of an auto-layout `pipeline`.
    pub fn bind(
        &self,
        pipeline: &wgpu::ComputePipeline,
        entries: &[(u32, &wgpu::Buffer)],
    ) -> wgpu::BindGroup {
        let layout = pipeline.get_bind_group_layout(0);
        let entries: Vec<wgpu::BindGroupEntry> = entries
            .iter()
            .map(|&(binding, buffer)| wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &entries,
        })
    }

    /// Timestamp writes for a pass: `begin` for the first pass of a call, `end` for the last.
    pub fn pass_timestamps(
        &self,
        begin: bool,
        end: bool,
    ) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let t = self.timestamps.as_ref()?;
        (begin || end).then_some(wgpu::ComputePassTimestampWrites {
            query_set: &t.set,
            beginning_of_pass_write_index: begin.then_some(0),
            end_of_pass_write_index: end.then_some(1),
        })
    }

    /// Resolves the call's two timestamps (after its last pass).
    pub fn resolve_timestamps(&self, encoder: &mut wgpu::CommandEncoder) {
        if let Some(t) = &self.timestamps {
            encoder.resolve_query_set(&t.set, 0..2, &t.resolve, 0);
            encoder.copy_buffer_to_buffer(&t.resolve, 0, &t.read, 0, 16);
        }
    }

    /// Seconds between the resolved timestamps, if the adapter has them.
    fn read_timestamps(&self) -> Result<Option<f64>, Error> {
        let Some(t) = &self.timestamps else {
            return Ok(None);
        };
        let bytes = self.map_read(&t.read, 16)?;
        let ticks: &[u64] = bytemuck::cast_slice(&bytes);
        let dt = ticks[1].wrapping_sub(ticks[0]);
        Ok(Some(dt as f64 * t.period_ns as f64 * 1e-9))
    }

    pub fn wait(&self) -> Result<(), Error> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| Error::Gpu(format!("waiting for the device: {e}")))
    }

    /// Maps the first `bytes` of a MAP_READ buffer and copies them out.
    pub fn map_read(&self, buffer: &wgpu::Buffer, bytes: u64) -> Result<Vec<u8>, Error> {
        let slice = buffer.slice(..bytes);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        rx.recv()
            .map_err(|e| Error::Gpu(format!("mapping a buffer: {e}")))?
            .map_err(|e| Error::Gpu(format!("mapping a buffer: {e}")))?;
        let data = slice
            .get_mapped_range()
            .map_err(|e| Error::Gpu(format!("mapping a buffer: {e}")))?
            .to_vec();
        buffer.unmap();
        Ok(data)
    }
}

/// A storage buffer of `bytes` for a tree of `n` vertices must fit the binding and buffer limits.
fn check_limits(l: &wgpu::Limits, what: &str, bytes: u64, n: usize) -> Result<(), Error> {
    for (limit, value) in [
        (
            "max_storage_buffer_binding_size",
            l.max_storage_buffer_binding_size,
        ),
        ("max_buffer_size", l.max_buffer_size),
    ] {
        if bytes > value {
            return Err(Error::Gpu(format!(
                "a tree of {n} vertices needs a {what} buffer of {bytes} bytes, above the adapter's {limit} of {value} bytes; use --backend cpu or a smaller tree"
            )));
        }
    }
    Ok(())
}

/// Host twin of the shaders' `fold`: `groups` workgroups as (x, y), x ≤ `max_dim`.
pub(crate) fn fold(groups: u32, max_dim: u32) -> (u32, u32) {
    if groups <= max_dim {
        (groups, 1)
    } else {
        let y = groups.div_ceil(max_dim);
        (groups.div_ceil(y), y)
    }
}

/// Buffers shared by every kernel on one tree.
pub(crate) struct TreeBuffers {
    pub n: usize,
    pub root: u32,
    /// Weights (uploaded per call).
    pub w: wgpu::Buffer,
    /// Results (rootfix r or leaffix l).
    pub out: wgpu::Buffer,
    /// MAP_READ copy of `out` plus one word (the rootfix enqueue counter).
    pub staging: wgpu::Buffer,
    /// Uniform {n}.
    pub params: wgpu::Buffer,
    /// CSR: child_start (n + 1 words) then children (n − 1 words).
    pub csr: Option<wgpu::Buffer>,
    pub vectorial: Option<vectorial::VectorialTree>,
    pub rootfix: Option<parallel::RootfixTree>,
    pub leaffix: Option<parallel::LeaffixTree>,
}

impl TreeBuffers {
    fn new(ctx: &Context, tree: &Tree) -> Result<TreeBuffers, Error> {
        let n = tree.len();
        if 2 * n > u32::MAX as usize {
            return Err(Error::Gpu(format!(
                "a tree of {n} vertices has Euler-tour positions beyond 32 bits"
            )));
        }
        use wgpu::BufferUsages as U;
        let w = ctx.buffer("weights", n, n, U::COPY_DST | U::COPY_SRC)?;
        let out = ctx.buffer("results", n, n, U::COPY_SRC | U::COPY_DST)?;
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("staging"),
            size: 4 * (n as u64 + 1),
            usage: U::MAP_READ | U::COPY_DST,
            mapped_at_creation: false,
        });
        Ok(TreeBuffers {
            n,
            root: tree.root(),
            w,
            out,
            staging,
            params: ctx.uniform("params", &[n as u32]),
            csr: None,
            vectorial: None,
            rootfix: None,
            leaffix: None,
        })
    }

    pub fn csr(&mut self, ctx: &Context, tree: &Tree) -> Result<&wgpu::Buffer, Error> {
        if self.csr.is_none() {
            let (start, children) = tree.csr();
            let mut data = Vec::with_capacity(start.len() + children.len());
            data.extend_from_slice(start);
            data.extend_from_slice(children);
            self.csr = Some(ctx.buffer_init(
                "CSR children",
                &data,
                tree.len(),
                wgpu::BufferUsages::empty(),
            )?);
        }
        Ok(self.csr.as_ref().unwrap())
    }
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

struct State {
    trees: Vec<(TreeKey, TreeBuffers)>,
}

/// The GPU backend: one adapter, its device, every pipeline, and the uploaded trees.
pub struct Gpu {
    ctx: Context,
    info: wgpu::AdapterInfo,
    state: Mutex<State>,
}

impl Gpu {
    /// Picks an adapter (WGPU_BACKEND, TREEFIX_ADAPTER), requests its own limits and builds
    /// every pipeline.
    pub fn new() -> Result<Gpu, Error> {
        Gpu::with_options(GpuOptions::default())
    }

    /// [`Gpu::new`] with limits lowered by `options`.
    pub fn with_options(options: GpuOptions) -> Result<Gpu, Error> {
        let (instance, backends) = instance();
        let all = pollster::block_on(instance.enumerate_adapters(backends));
        if all.is_empty() {
            return Err(Error::Gpu(
                "no GPU adapter found (a machine without a GPU can use Mesa's lavapipe: apt-get install mesa-vulkan-drivers)".into(),
            ));
        }
        let names: Vec<String> = all.iter().map(|a| adapter_label(&a.get_info())).collect();
        let filter = adapter_filter();
        let mut candidates: Vec<wgpu::Adapter> = all
            .into_iter()
            .filter(|a| {
                filter
                    .as_ref()
                    .is_none_or(|f| a.get_info().name.to_lowercase().contains(&f.to_lowercase()))
            })
            .filter(|a| AdapterReport::of(a).compute)
            .collect();
        candidates.sort_by_key(|a| rank(&a.get_info()));
        let Some(adapter) = candidates.into_iter().next() else {
            return Err(Error::Gpu(format!(
                "no compute-capable adapter matches TREEFIX_ADAPTER={:?}; adapters: {}",
                filter.unwrap_or_default(),
                names.join("; ")
            )));
        };
        let info = adapter.get_info();
        let limits = adapter.limits();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let features = if timestamps {
            wgpu::Features::TIMESTAMP_QUERY
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("treefix"),
            required_features: features,
            required_limits: limits.clone(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
        }))
        .map_err(|e| Error::Gpu(format!("{}: {e}", describe_info(&info))))?;
        let mut limits = device.limits();
        if let Some(d) = options.max_workgroups_per_dimension {
            limits.max_compute_workgroups_per_dimension =
                d.clamp(1, limits.max_compute_workgroups_per_dimension);
        }
        if let Some(b) = options.max_storage_buffer_binding_size {
            let b = b.min(limits.max_storage_buffer_binding_size);
            limits.max_storage_buffer_binding_size = b;
        }
        let pipelines = Pipelines::new(&device, limits.max_compute_workgroups_per_dimension);
        let timestamps = timestamps.then(|| Timestamps {
            set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps resolve"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            read: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps read"),
                size: 16,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            period_ns: queue.get_timestamp_period(),
        });
        Ok(Gpu {
            ctx: Context {
                device,
                queue,
                limits,
                pipelines,
                timestamps,
            },
            info,
            state: Mutex::new(State { trees: Vec::new() }),
        })
    }

    /// How [`Timing::compute_s`] is measured on this adapter.
    pub fn timing_method(&self) -> TimingMethod {
        if self.ctx.timestamps.is_some() {
            TimingMethod::Timestamps
        } else {
            TimingMethod::WallClock
        }
    }

    /// The largest tree whose largest buffers fit the binding limit (vectorial: E of 2n words;
    /// parallel: CSR of 2n words).
    pub fn max_vertices(&self) -> u64 {
        let l = &self.ctx.limits;
        l.max_storage_buffer_binding_size.min(l.max_buffer_size) / 8
    }

    /// `op` by `algo` (parallel or vectorial) on the GPU, with the time of each phase.
    pub fn compute_timed(
        &self,
        tree: &Tree,
        w: &[f32],
        algo: Algorithm,
        op: Op,
    ) -> Result<(Vec<f32>, Timing), Error> {
        assert_eq!(tree.len(), w.len(), "one weight per vertex");
        if !algo.has_gpu_kernel() {
            return Err(Error::Usage(format!("{algo} has no GPU kernel")));
        }
        let ctx = &self.ctx;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let t0 = Instant::now();
        let index = match state.trees.iter().position(|(k, _)| k.matches(tree)) {
            Some(i) => i,
            None => {
                if state.trees.len() >= CACHE_TREES {
                    state.trees.remove(0);
                }
                state
                    .trees
                    .push((TreeKey::of(tree), TreeBuffers::new(ctx, tree)?));
                state.trees.len() - 1
            }
        };
        let buffers = &mut state.trees[index].1;
        match (algo, op) {
            (Algorithm::Vectorial, _) => vectorial::prepare(ctx, buffers, tree)?,
            (_, Op::Rootfix) => parallel::prepare_rootfix(ctx, buffers, tree)?,
            (_, Op::Leaffix) => parallel::prepare_leaffix(ctx, buffers, tree)?,
        }
        ctx.wait()?;
        let tree_upload_s = t0.elapsed().as_secs_f64();

        let t1 = Instant::now();
        ctx.queue
            .write_buffer(&buffers.w, 0, bytemuck::cast_slice(w));
        ctx.queue.submit([]);
        ctx.wait()?;
        let upload_s = t1.elapsed().as_secs_f64();

        let t2 = Instant::now();
        match (algo, op) {
            (Algorithm::Vectorial, _) => vectorial::run(ctx, buffers, op),
            (_, Op::Rootfix) => parallel::run_rootfix(ctx, buffers),
            (_, Op::Leaffix) => parallel::run_leaffix(ctx, buffers),
        }
        ctx.wait()?;
        let compute_wall_s = t2.elapsed().as_secs_f64();

        let t3 = Instant::now();
        let n = buffers.n as u64;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&buffers.out, 0, &buffers.staging, 0, 4 * n);
        let rootfix_bfs = algo == Algorithm::Parallel && op == Op::Rootfix;
        if rootfix_bfs {
            let counter = &buffers.rootfix.as_ref().unwrap().enqueued;
            encoder.copy_buffer_to_buffer(counter, 0, &buffers.staging, 4 * n, 4);
        }
        ctx.queue.submit([encoder.finish()]);
        let bytes = ctx.map_read(&buffers.staging, 4 * (n + 1))?;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let values: Vec<f32> = words[..n as usize]
            .iter()
            .map(|&b| f32::from_bits(b))
            .collect();
        let download_s = t3.elapsed().as_secs_f64();
        if rootfix_bfs && words[n as usize] as u64 != n - 1 {
            return Err(Error::Gpu(format!(
                "parallel rootfix enqueued {} vertices, expected {} (frontier queues out of step)",
                words[n as usize],
                n - 1
            )));
        }

        let gpu_time = ctx.read_timestamps()?;
        let timing = Timing {
            tree_upload_s,
            upload_s,
            compute_s: gpu_time.unwrap_or(compute_wall_s),
            compute_wall_s,
            download_s,
            method: self.timing_method(),
        };
        Ok((values, timing))
    }
}

impl Backend for Gpu {
    fn describe(&self) -> String {
        describe_info(&self.info)
    }
    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error> {
        self.compute_timed(tree, w, algo, op).map(|(v, _)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_covers_and_respects_the_limit() {
        for (groups, max) in [
            (0, 65535),
            (1, 65535),
            (65535, 65535),
            (65536, 65535),
            (1 << 23, 65535),
            (999_999, 1000),
        ] {
            let (x, y) = fold(groups, max);
            assert!(x <= max && y <= max, "{groups}");
            assert!(x as u64 * y as u64 >= groups as u64, "{groups}");
            assert!(
                (x as u64) * (y as u64 - 1) < groups as u64 || groups == 0,
                "{groups}"
            );
        }
    }

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

    #[test]
    fn backend_choice_parses() {
        assert_eq!("auto".parse(), Ok(BackendChoice::Auto));
        assert_eq!("gpu".parse(), Ok(BackendChoice::Gpu));
        assert_eq!("cpu".parse(), Ok(BackendChoice::Cpu));
        assert!("cuda".parse::<BackendChoice>().is_err());
    }
}
