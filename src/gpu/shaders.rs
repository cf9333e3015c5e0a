//! The shader registry: one WGSL file per stage (`shaders/`), each compiled with the generated
//! structs of [`super::types`] and `common.wgsl` in front, its bind group layout declared here,
//! and its pipelines built once per device with the sizes of [`Sizes`] as pipeline-overridable
//! constants.

use super::types::WGSL_STRUCTS;
use analysis::algorithms::{ScanWord, Stage};
use analysis::scan_plan;
use generators::fixed::MAX_GPU_WORDS;
use std::borrow::Cow;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

/// How a kernel binds one buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Uniform,
    /// A uniform read at a dynamic offset (one entry per dispatch).
    UniformDynamic,
    Read,
    ReadWrite,
}

/// One `@group(0) @binding(i) var<…> name: …;` declaration of a stage file: the host binds
/// buffers by the WGSL variable's name, and the binding number and access come from the
/// declaration, so neither is written twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub name: &'static str,
    pub access: Access,
}

/// One WGSL file: its entry points share one bind group layout, read from its
/// `@group(0) @binding(i) var<…>` declarations ([`StageFile::slots`]).
struct StageFile {
    name: &'static str,
    source: &'static str,
    /// Whether its uniform (binding 0) is read at a dynamic offset, one entry per dispatch:
    /// the host's choice, which WGSL does not spell.
    dynamic: bool,
}

impl StageFile {
    /// Each binding's variable name and access, in binding order, from the file's
    /// declarations: `uniform`, `storage, read` or `storage, read_write`.
    fn slots(&self) -> Vec<Slot> {
        let mut slots = Vec::new();
        for line in self.source.lines() {
            let Some(rest) = line.trim().strip_prefix("@group(0) @binding(") else {
                continue;
            };
            let (index, decl) = rest.split_once(')').expect("@binding(i)");
            let index: usize = index.parse().expect("a binding number");
            assert_eq!(
                index,
                slots.len(),
                "{}: bindings 0, 1, … in order",
                self.name
            );
            let access = if decl.contains("var<uniform>") {
                if self.dynamic {
                    UniformDynamic
                } else {
                    Uniform
                }
            } else if decl.contains("var<storage, read_write>") {
                ReadWrite
            } else if decl.contains("var<storage, read>") {
                Read
            } else {
                panic!("{}: binding {index}: {decl}", self.name)
            };
            let name = decl
                .split_once('>')
                .and_then(|(_, rest)| rest.split_once(':'))
                .map(|(name, _)| name.trim())
                .filter(|name| !name.is_empty())
                .unwrap_or_else(|| panic!("{}: binding {index}: no variable name", self.name));
            slots.push(Slot { name, access });
        }
        slots
    }
}

use Access::*;

const COMMON: &str = include_str!("../../shaders/common.wgsl");

/// What the scan shaders sum: one prelude per [`ScanWord`], defining `Sum` and its operations.
const SUM_F32: &str = include_str!("../../shaders/sum_f32.wgsl");
const SUM_FLOAT_FLOAT: &str = include_str!("../../shaders/sum_float_float.wgsl");
const SUM_EXACT: &str = include_str!("../../shaders/sum_exact.wgsl");

/// The prelude in front of the scan stage files for `word` (`limbs`: the exact word's L).
fn prelude(word: ScanWord, limbs: usize) -> Cow<'static, str> {
    match word {
        ScanWord::F32 => Cow::Borrowed(SUM_F32),
        ScanWord::FloatFloat => Cow::Borrowed(SUM_FLOAT_FLOAT),
        ScanWord::Exact => Cow::Owned(format!(
            "const LIMBS: u32 = {limbs}u;\nconst THREAD_ITEMS: u32 = {}u;\n{SUM_EXACT}",
            scan_plan::ITEMS_PER_THREAD
        )),
    }
}

/// The one table from stage ids to their WGSL: every pipeline is built from a [`Stage`].
fn stage_file(stage: Stage) -> StageFile {
    let (source, dynamic) = match stage {
        Stage::RootfixLevel => (include_str!("../../shaders/rootfix_level.wgsl"), true),
        Stage::RootfixNarrow => (include_str!("../../shaders/rootfix_narrow.wgsl"), true),
        Stage::LeaffixLevel => (include_str!("../../shaders/leaffix_level.wgsl"), true),
        Stage::LeaffixNarrow => (include_str!("../../shaders/leaffix_narrow.wgsl"), true),
        Stage::ScanTile => (
            concat!(
                include_str!("../../shaders/scan_tile.wgsl"),
                include_str!("../../shaders/scan_tile_entries.wgsl")
            ),
            false,
        ),
        Stage::ScanTileExact => (
            concat!(
                include_str!("../../shaders/scan_tile_exact.wgsl"),
                include_str!("../../shaders/scan_tile_entries.wgsl")
            ),
            false,
        ),
        Stage::ScanAdd => (include_str!("../../shaders/scan_add.wgsl"), false),
        Stage::ScanChain => (include_str!("../../shaders/scan_chain.wgsl"), false),
        Stage::VectorialRead => (include_str!("../../shaders/vectorial_read.wgsl"), false),
        Stage::AdditionLevel => (include_str!("../../shaders/addition_level.wgsl"), true),
        Stage::Permute => (include_str!("../../shaders/permute.wgsl"), false),
        Stage::Copy => (include_str!("../../shaders/copy.wgsl"), false),
    };
    StageFile {
        name: stage.name(),
        source,
        dynamic,
    }
}

/// Workgroup, tile and capacity sizes, passed to the shaders as pipeline-overridable
/// constants (the scan's from `analysis::scan_plan`, the others from the device's limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sizes {
    /// Invocations per workgroup of every kernel (the scan plan's WORKGROUP_SIZE).
    pub wg: u32,
    /// Items per invocation of the scan plan.
    pub items: u32,
    /// Elements per scan tile (wg × items).
    pub tile: u32,
    /// Vertices a narrow-level window holds in workgroup memory (4 arrays of this many words).
    pub narrow_cap: u32,
    /// Widest level walked by the narrow-level kernel (one workgroup); wider ones get a
    /// dispatch of their own.
    pub narrow_level: u32,
    /// Out-degree from which a vertex of a wide level is gathered by a whole workgroup.
    pub gather_min_degree: u32,
    /// Children one workgroup gathers per dispatch (more continue in the next dispatch).
    pub gather_chunk: u32,
    /// Loop iterations one invocation may run in a dispatch (u64::MAX: no limit). Mesa's
    /// llvmpipe silently ends an invocation after 65 535 loop iterations in all; the host
    /// splits narrow-level runs to stay below this.
    pub loop_budget: u64,
}

impl Sizes {
    /// The sizes for a device with `limits`; `cpu` marks a software adapter (llvmpipe).
    pub fn for_device(limits: &wgpu::Limits, cpu: bool) -> Sizes {
        let wg = scan_plan::WORKGROUP_SIZE as u32;
        // Four arrays of narrow_cap words, a multiple of the workgroup size, at most 4096.
        let words = limits.max_compute_workgroup_storage_size / 16;
        let narrow_cap = (words / wg * wg).clamp(wg, 4096);
        Sizes {
            wg,
            items: scan_plan::ITEMS_PER_THREAD as u32,
            tile: scan_plan::TILE as u32,
            narrow_cap,
            narrow_level: wg,
            gather_min_degree: wg,
            // A chunk costs invocation 0 about chunk / 16 loop iterations on llvmpipe; a real
            // GPU adds 2^24 children in a few tens of ms, below any watchdog.
            gather_chunk: if cpu { 1 << 16 } else { 1 << 24 },
            loop_budget: if cpu { 60_000 } else { u64::MAX },
        }
    }

    fn constants(&self) -> [(&'static str, f64); 6] {
        [
            ("WG", self.wg as f64),
            ("ITEMS", self.items as f64),
            ("TILE", self.tile as f64),
            ("NARROW_CAP", self.narrow_cap as f64),
            ("GATHER_MIN_DEGREE", self.gather_min_degree as f64),
            ("GATHER_STAGE", (2 * self.wg) as f64),
        ]
    }
}

/// A compute pipeline and the layout of its bind group 0.
pub(crate) struct Kernel {
    pipeline: wgpu::ComputePipeline,
    stage: Stage,
    /// The stage file's name, for the messages of [`Kernel::bind`].
    file: &'static str,
    /// The stages set in a pass since the last [`Kernels::take_run`] (a bit per [`Stage`]),
    /// shared by every kernel of a device.
    run: Arc<AtomicU32>,
    layout: wgpu::BindGroupLayout,
    slots: Vec<Slot>,
    /// Bytes a dynamic-offset uniform binding covers (its struct's size).
    dynamic_size: u64,
}

impl Kernel {
    /// Sets this stage's pipeline in `pass`, and notes that the stage ran.
    pub fn set(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.run.fetch_or(1 << self.stage as u32, Ordering::Relaxed);
        pass.set_pipeline(&self.pipeline);
    }

    /// A bind group over `buffers`, each named by the WGSL variable it binds: every
    /// declared binding gets exactly one buffer, at the number its declaration gives.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        buffers: &[(&str, &wgpu::Buffer)],
    ) -> wgpu::BindGroup {
        for (name, _) in buffers {
            assert!(
                self.slots.iter().any(|slot| slot.name == *name),
                "{}.wgsl declares no binding `{name}`",
                self.file
            );
        }
        let entries: Vec<wgpu::BindGroupEntry> = self
            .slots
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let mut named = buffers.iter().filter(|(name, _)| *name == slot.name);
                let (Some((_, buffer)), None) = (named.next(), named.next()) else {
                    panic!("{}.wgsl: one buffer for `{}`", self.file, slot.name)
                };
                wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: if slot.access == UniformDynamic {
                        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer,
                            offset: 0,
                            size: wgpu::BufferSize::new(self.dynamic_size),
                        })
                    } else {
                        buffer.as_entire_binding()
                    },
                }
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(self.file),
            layout: &self.layout,
            entries: &entries,
        })
    }
}

/// The vectorial kernels of one scan word (and, for the exact word, one limb count).
pub(crate) struct ScanKernels {
    /// Scan levels ≥ 1.
    pub scan_tile: Kernel,
    /// Scan level 0 built from the Euler tour: [rootfix, leaffix].
    pub scan_tour: [Kernel; 2],
    pub scan_add: Kernel,
    /// [rootfix, leaffix].
    pub read: [Kernel; 2],
    /// The exact scan's unrounded read (the GPU exact reference): [rootfix, leaffix].
    pub read_limbs: Option<[Kernel; 2]>,
}

/// Every pipeline, built once per device (the exact scan's on first use of a limb count).
pub(crate) struct Kernels {
    pub rootfix_level: Kernel,
    pub rootfix_narrow: Kernel,
    pub leaffix_level: Kernel,
    pub leaffix_narrow: Kernel,
    /// [f32, float-float].
    scan: [ScanKernels; 2],
    /// The exact scan's, by limb count − 1, built on first use.
    exact: [OnceLock<ScanKernels>; MAX_GPU_WORDS],
    builder: Builder,
    /// The chained plan's stage 2 (level 1 scanned left to right per segment), f32.
    pub scan_chain: Kernel,
    /// One level of a traced addition program (contraction).
    pub addition_level: Kernel,
    /// Weights into a kernel's labels, results back.
    pub gather: Kernel,
    pub scatter: Kernel,
    pub copy: Kernel,
}

/// What building a pipeline from a [`Stage`] needs: the sizes, and the device's record of
/// the stages run.
struct Builder {
    sizes: Sizes,
    run: Arc<AtomicU32>,
}

impl Builder {
    /// The pipeline of `entry` in `stage`'s file, `prelude` in front.
    fn build(&self, device: &wgpu::Device, stage: Stage, prelude: &str, entry: &str) -> Kernel {
        build(device, &self.sizes, stage, prelude, entry, self.run.clone())
    }
}

impl Kernels {
    pub fn new(device: &wgpu::Device, sizes: &Sizes) -> Kernels {
        let builder = Builder {
            sizes: *sizes,
            run: Arc::new(AtomicU32::new(0)),
        };
        let build = |stage: Stage, entry: &str| builder.build(device, stage, "", entry);
        Kernels {
            rootfix_level: build(Stage::RootfixLevel, "rootfix_level"),
            rootfix_narrow: build(Stage::RootfixNarrow, "rootfix_narrow"),
            leaffix_level: build(Stage::LeaffixLevel, "leaffix_level"),
            leaffix_narrow: build(Stage::LeaffixNarrow, "leaffix_narrow"),
            scan: [ScanWord::F32, ScanWord::FloatFloat]
                .map(|word| ScanKernels::new(device, &builder, word, 0)),
            exact: std::array::from_fn(|_| OnceLock::new()),
            scan_chain: build(Stage::ScanChain, "scan_chain"),
            addition_level: build(Stage::AdditionLevel, "addition_level"),
            gather: build(Stage::Permute, "gather"),
            scatter: build(Stage::Permute, "scatter"),
            copy: build(Stage::Copy, "copy"),
            builder,
        }
    }

    /// The vectorial kernels of `word` (`limbs`: the exact word's L, whose kernels are built
    /// here the first time it is asked for).
    pub fn scan(&self, device: &wgpu::Device, word: ScanWord, limbs: usize) -> &ScanKernels {
        match word {
            ScanWord::F32 => &self.scan[0],
            ScanWord::FloatFloat => &self.scan[1],
            ScanWord::Exact => self.exact[limbs - 1].get_or_init(|| {
                // The unit is a uniform: one set of pipelines serves every scale of L limbs.
                ScanKernels::new(device, &self.builder, word, limbs)
            }),
        }
    }

    /// The stages set in a pass since the last call, in [`Stage::ALL`]'s order.
    pub fn take_run(&self) -> Vec<Stage> {
        let bits = self.builder.run.swap(0, Ordering::Relaxed);
        Stage::ALL
            .into_iter()
            .filter(|&s| bits & (1 << s as u32) != 0)
            .collect()
    }
}

impl ScanKernels {
    fn new(device: &wgpu::Device, builder: &Builder, word: ScanWord, limbs: usize) -> ScanKernels {
        let prelude = prelude(word, limbs);
        let build = |stage: Stage, entry: &str| builder.build(device, stage, &prelude, entry);
        // The read writes its Sum rounded to f32 (every algorithm's result) or, for the GPU
        // exact reference, as it is (vectorial_read.wgsl's `ReadOut`, `finish_read`).
        let read = |rounded: bool, entry: &str| {
            let out = match rounded {
                true => {
                    "alias ReadOut = f32;\nfn finish_read(s: Sum) -> f32 { return sum_round(s); }"
                }
                false => "alias ReadOut = Sum;\nfn finish_read(s: Sum) -> Sum { return s; }",
            };
            let prelude = format!("{prelude}\n{out}");
            builder.build(device, Stage::VectorialRead, &prelude, entry)
        };
        let tile = word.tile_stage();
        ScanKernels {
            scan_tile: build(tile, "scan_tile"),
            scan_tour: [
                build(tile, "scan_tour_rootfix"),
                build(tile, "scan_tour_leaffix"),
            ],
            scan_add: build(Stage::ScanAdd, "scan_add"),
            read: [read(true, "read_rootfix"), read(true, "read_leaffix")],
            read_limbs: (word == ScanWord::Exact)
                .then(|| [read(false, "read_rootfix"), read(false, "read_leaffix")]),
        }
    }
}

/// The pipeline of `entry` in `stage`'s file, compiled with the generated structs,
/// `common.wgsl` and `prelude` in front, the overrides it declares set from `sizes`.
fn build(
    device: &wgpu::Device,
    sizes: &Sizes,
    stage: Stage,
    prelude: &str,
    entry: &str,
    run: Arc<AtomicU32>,
) -> Kernel {
    let file = &stage_file(stage);
    let dynamic = std::mem::size_of::<super::types::LevelDispatch>() as u64;
    let source = format!("{WGSL_STRUCTS}\n{COMMON}\n{prelude}\n{}", file.source);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(file.name),
        source: wgpu::ShaderSource::Wgsl(Cow::Owned(source)),
    });
    let slots = file.slots();
    let entries: Vec<wgpu::BindGroupLayoutEntry> = slots
        .iter()
        .enumerate()
        .map(|(i, slot)| wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match slot.access {
                    Uniform | UniformDynamic => wgpu::BufferBindingType::Uniform,
                    Read => wgpu::BufferBindingType::Storage { read_only: true },
                    ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: slot.access == UniformDynamic,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(file.name),
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(file.name),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    // Only the overrides this file declares (naga rejects unknown ones).
    let constants: Vec<(&str, f64)> = sizes
        .constants()
        .into_iter()
        .filter(|(name, _)| file.source.contains(&format!("override {name}:")))
        .collect();
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants: &constants,
            ..Default::default()
        },
        cache: None,
    });
    Kernel {
        pipeline,
        stage,
        file: file.name,
        run,
        layout,
        slots,
        dynamic_size: dynamic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every stage's file.
    fn files() -> Vec<StageFile> {
        Stage::ALL.into_iter().map(stage_file).collect()
    }

    /// Buffers are bound by variable name, so each file's names must be distinct, and
    /// binding 0 is the uniform a dynamic file reads at an offset.
    #[test]
    fn stage_files_declare_named_bindings() {
        for file in files() {
            let slots = file.slots();
            assert!(!slots.is_empty(), "{}", file.name);
            for (i, slot) in slots.iter().enumerate() {
                assert!(
                    slot.name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_'),
                    "{}: `{}`",
                    file.name,
                    slot.name
                );
                assert!(
                    slots[..i].iter().all(|other| other.name != slot.name),
                    "{}: `{}` twice",
                    file.name,
                    slot.name
                );
            }
            let uniforms: Vec<usize> = (0..slots.len())
                .filter(|&i| matches!(slots[i].access, Uniform | UniformDynamic))
                .collect();
            assert_eq!(uniforms, [0], "{}", file.name);
            assert_eq!(
                slots[0].access == UniformDynamic,
                file.dynamic,
                "{}",
                file.name
            );
        }
        // The exact scan's tile shader stands in for the float one: same buffers, same names.
        assert_eq!(
            stage_file(Stage::ScanTile).slots(),
            stage_file(Stage::ScanTileExact).slots()
        );
    }

    /// The registry's file names and the sources compiled in are the same files.
    #[test]
    fn stage_ids_name_the_compiled_files() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
        for stage in Stage::ALL {
            let on_disk = std::fs::read_to_string(dir.join(stage.file())).unwrap();
            assert!(stage_file(stage).source.starts_with(&on_disk), "{stage}");
        }
        for word in [ScanWord::F32, ScanWord::FloatFloat, ScanWord::Exact] {
            let on_disk = std::fs::read_to_string(dir.join(word.prelude_file())).unwrap();
            assert!(prelude(word, 4).ends_with(&on_disk), "{word:?}");
        }
    }

    /// Every stage file opens with a one-line purpose comment that names its CPU twin (or says
    /// it has none), and declares the overrides it is given.
    #[test]
    fn stage_files_name_their_twin() {
        for file in files() {
            let first = file.source.lines().next().unwrap();
            assert!(first.starts_with("// "), "{}", file.name);
            assert!(
                first.contains("CPU twin") || first.contains("no CPU twin"),
                "{}: {first}",
                file.name
            );
            assert!(file.source.contains("override WG: u32;"), "{}", file.name);
        }
        for prelude in [SUM_F32, SUM_FLOAT_FLOAT, SUM_EXACT] {
            let first = prelude.lines().next().unwrap();
            assert!(
                first.starts_with("// ") && first.contains("CPU twin"),
                "{first}"
            );
        }
    }
}
