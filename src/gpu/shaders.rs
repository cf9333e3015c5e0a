//! The shader registry: one WGSL file per stage (`shaders/`), each compiled with the generated
//! structs of [`super::types`] and `common.wgsl` in front, its bind group layout declared here,
//! and its pipelines built once per device with the sizes of [`Sizes`] as pipeline-overridable
//! constants.

use super::types::WGSL_STRUCTS;
use analysis::scan_plan;
use generators::fixed::{MAX_GPU_WORDS, Scale};
use std::borrow::Cow;
use std::sync::OnceLock;

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

/// What the scan shaders sum: one prelude per [`Precision`], defining `Sum` and its operations.
const SUM_F32: &str = include_str!("../../shaders/sum_f32.wgsl");
const SUM_FLOAT_FLOAT: &str = include_str!("../../shaders/sum_float_float.wgsl");
const SUM_EXACT: &str = include_str!("../../shaders/sum_exact.wgsl");

/// What the vectorial scan carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Precision {
    /// f32 partial sums (vectorial, vectorial-chained).
    Single,
    /// Float-float (hi, lo) partial sums (vectorial-compensated).
    FloatFloat,
    /// Fixed-point integers at a scale of the weights (vectorial-exact): its unit's exponent
    /// and its 32-bit words ([`Scale::gpu_words`]).
    Exact { unit: i32, words: usize },
}

impl Precision {
    /// The precisions whose pipelines are built with the device (the exact ones are built
    /// when a scale first needs them: one set per limb count).
    pub const EAGER: [Precision; 2] = [Precision::Single, Precision::FloatFloat];
    /// The exact scan of weights of this scale.
    pub fn exact(scale: Scale) -> Precision {
        Precision::Exact {
            unit: scale.unit(),
            words: scale.gpu_words(),
        }
    }
    /// 32-bit words per partial sum.
    pub fn words(self) -> usize {
        match self {
            Precision::Single => 1,
            Precision::FloatFloat => 2,
            Precision::Exact { words, .. } => words,
        }
    }
    /// The prelude in front of the scan stage files.
    fn prelude(self) -> Cow<'static, str> {
        match self {
            Precision::Single => Cow::Borrowed(SUM_F32),
            Precision::FloatFloat => Cow::Borrowed(SUM_FLOAT_FLOAT),
            Precision::Exact { words, .. } => Cow::Owned(format!(
                "const LIMBS: u32 = {}u;\nconst THREAD_ITEMS: u32 = {}u;\n{SUM_EXACT}",
                words,
                scan_plan::ITEMS_PER_THREAD
            )),
        }
    }
    /// The `unit` field of the scan uniforms: the fixed point's unit exponent, as i32 bits.
    pub fn unit_bits(self) -> u32 {
        match self {
            Precision::Exact { unit, .. } => unit as u32,
            _ => 0,
        }
    }
}

const ROOTFIX_LEVEL: StageFile = StageFile {
    name: "rootfix_level",
    source: include_str!("../../shaders/rootfix_level.wgsl"),
    dynamic: true,
};
const ROOTFIX_NARROW: StageFile = StageFile {
    name: "rootfix_narrow",
    source: include_str!("../../shaders/rootfix_narrow.wgsl"),
    dynamic: true,
};
const LEAFFIX_LEVEL: StageFile = StageFile {
    name: "leaffix_level",
    source: include_str!("../../shaders/leaffix_level.wgsl"),
    dynamic: true,
};
const LEAFFIX_NARROW: StageFile = StageFile {
    name: "leaffix_narrow",
    source: include_str!("../../shaders/leaffix_narrow.wgsl"),
    dynamic: true,
};
const SCAN_TILE: StageFile = StageFile {
    name: "scan_tile",
    source: concat!(
        include_str!("../../shaders/scan_tile.wgsl"),
        include_str!("../../shaders/scan_tile_entries.wgsl")
    ),
    dynamic: false,
};
const SCAN_TILE_EXACT: StageFile = StageFile {
    name: "scan_tile_exact",
    source: concat!(
        include_str!("../../shaders/scan_tile_exact.wgsl"),
        include_str!("../../shaders/scan_tile_entries.wgsl")
    ),
    dynamic: false,
};
const SCAN_ADD: StageFile = StageFile {
    name: "scan_add",
    source: include_str!("../../shaders/scan_add.wgsl"),
    dynamic: false,
};
const SCAN_CHAIN: StageFile = StageFile {
    name: "scan_chain",
    source: include_str!("../../shaders/scan_chain.wgsl"),
    dynamic: false,
};
const VECTORIAL_READ: StageFile = StageFile {
    name: "vectorial_read",
    source: include_str!("../../shaders/vectorial_read.wgsl"),
    dynamic: false,
};
const ADDITION_LEVEL: StageFile = StageFile {
    name: "addition_level",
    source: include_str!("../../shaders/addition_level.wgsl"),
    dynamic: true,
};
const PERMUTE: StageFile = StageFile {
    name: "permute",
    source: include_str!("../../shaders/permute.wgsl"),
    dynamic: false,
};
const COPY: StageFile = StageFile {
    name: "copy",
    source: include_str!("../../shaders/copy.wgsl"),
    dynamic: false,
};

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
    pub pipeline: wgpu::ComputePipeline,
    /// The stage file's name, for the messages of [`Kernel::bind`].
    file: &'static str,
    layout: wgpu::BindGroupLayout,
    slots: Vec<Slot>,
    /// Bytes a dynamic-offset uniform binding covers (its struct's size).
    dynamic_size: u64,
}

impl Kernel {
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

/// The vectorial kernels of one [`Precision`].
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

/// Every pipeline, built once per device.
pub(crate) struct Kernels {
    pub rootfix_level: Kernel,
    pub rootfix_narrow: Kernel,
    pub leaffix_level: Kernel,
    pub leaffix_narrow: Kernel,
    /// [`Precision::EAGER`]'s, in its order.
    scan: [ScanKernels; 2],
    /// The exact scan's, by limb count − 1, built on first use.
    exact: [OnceLock<ScanKernels>; MAX_GPU_WORDS],
    sizes: Sizes,
    /// The chained plan's stage 2 (level 1 scanned left to right per segment), f32.
    pub scan_chain: Kernel,
    /// One level of a traced addition program (contraction).
    pub addition_level: Kernel,
    /// Weights into a kernel's labels, results back.
    pub gather: Kernel,
    pub scatter: Kernel,
    pub copy: Kernel,
}

impl Kernels {
    pub fn new(device: &wgpu::Device, sizes: &Sizes) -> Kernels {
        let build = |file: &StageFile, entry: &str| build(device, sizes, file, "", entry);
        Kernels {
            rootfix_level: build(&ROOTFIX_LEVEL, "rootfix_level"),
            rootfix_narrow: build(&ROOTFIX_NARROW, "rootfix_narrow"),
            leaffix_level: build(&LEAFFIX_LEVEL, "leaffix_level"),
            leaffix_narrow: build(&LEAFFIX_NARROW, "leaffix_narrow"),
            scan: Precision::EAGER.map(|p| ScanKernels::new(device, sizes, p)),
            exact: std::array::from_fn(|_| OnceLock::new()),
            sizes: *sizes,
            scan_chain: build(&SCAN_CHAIN, "scan_chain"),
            addition_level: build(&ADDITION_LEVEL, "addition_level"),
            gather: build(&PERMUTE, "gather"),
            scatter: build(&PERMUTE, "scatter"),
            copy: build(&COPY, "copy"),
        }
    }

    /// The vectorial kernels of `precision` (an exact scale's built here the first time its
    /// limb count is asked for).
    pub fn scan(&self, device: &wgpu::Device, precision: Precision) -> &ScanKernels {
        match precision {
            Precision::Single => &self.scan[0],
            Precision::FloatFloat => &self.scan[1],
            Precision::Exact { words, .. } => self.exact[words - 1].get_or_init(|| {
                // The unit is a uniform: one set of pipelines serves every scale of L limbs.
                ScanKernels::new(device, &self.sizes, precision)
            }),
        }
    }
}

impl ScanKernels {
    fn new(device: &wgpu::Device, sizes: &Sizes, precision: Precision) -> ScanKernels {
        let prelude = precision.prelude();
        let build = |file: &StageFile, entry: &str| build(device, sizes, file, &prelude, entry);
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
            self::build(device, sizes, &VECTORIAL_READ, &prelude, entry)
        };
        // A tile of fixed-point sums does not fit workgroup memory: its tile scan keeps each
        // invocation's items in registers.
        let tile = match precision {
            Precision::Exact { .. } => &SCAN_TILE_EXACT,
            _ => &SCAN_TILE,
        };
        ScanKernels {
            scan_tile: build(tile, "scan_tile"),
            scan_tour: [
                build(tile, "scan_tour_rootfix"),
                build(tile, "scan_tour_leaffix"),
            ],
            scan_add: build(&SCAN_ADD, "scan_add"),
            read: [read(true, "read_rootfix"), read(true, "read_leaffix")],
            read_limbs: matches!(precision, Precision::Exact { .. })
                .then(|| [read(false, "read_rootfix"), read(false, "read_leaffix")]),
        }
    }
}

/// The pipeline of `entry` in `file`, compiled with the generated structs, `common.wgsl` and
/// `prelude` in front, the overrides it declares set from `sizes`.
fn build(
    device: &wgpu::Device,
    sizes: &Sizes,
    file: &StageFile,
    prelude: &str,
    entry: &str,
) -> Kernel {
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
        file: file.name,
        layout,
        slots,
        dynamic_size: dynamic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every stage file opens with a one-line purpose comment that names its CPU twin (or says
    /// it has none), and declares the overrides it is given.
    const FILES: [StageFile; 12] = [
        ROOTFIX_LEVEL,
        ROOTFIX_NARROW,
        LEAFFIX_LEVEL,
        LEAFFIX_NARROW,
        SCAN_TILE,
        SCAN_TILE_EXACT,
        SCAN_ADD,
        SCAN_CHAIN,
        VECTORIAL_READ,
        ADDITION_LEVEL,
        PERMUTE,
        COPY,
    ];

    /// Buffers are bound by variable name, so each file's names must be distinct, and
    /// binding 0 is the uniform a dynamic file reads at an offset.
    #[test]
    fn stage_files_declare_named_bindings() {
        for file in FILES {
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
        assert_eq!(SCAN_TILE.slots(), SCAN_TILE_EXACT.slots());
    }

    #[test]
    fn stage_files_name_their_twin() {
        for file in FILES {
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
