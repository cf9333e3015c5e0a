//! The engine: it owns every pipeline, built on first use from its key (stage, entry point,
//! variant, arithmetic, whether its uniform is read per dispatch), makes an uploaded forest's buffers
//! from their plan, and prepares a [`Recording`] on them (pipelines and bind groups resolved
//! once) into a [`Prepared`] run that a call encodes: the passes before the kernels, the timed
//! kernel phases, the passes after. It names no algorithm and no layout.

use super::recorder::Recorder;
use super::recording::{Binding, Command, Dispatch, Pass, Recording};
use super::shaders::{Access, Sizes, Slot, module_source, reflect};
use super::types::LevelDispatch;
use super::variants::Variant;
use crate::Error;
use analysis::algorithms::Stage;
use generators::Arithmetic;
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// Bytes a per-dispatch uniform binding covers: every per-dispatch struct is this size.
const DYNAMIC_SIZE: u64 = size_of::<LevelDispatch>() as u64;

/// Dispatches recorded per command buffer (a chain-like tree on a device without narrow
/// windows could otherwise record millions into one).
pub(crate) const DISPATCHES_PER_COMMAND_BUFFER: usize = 16384;

/// What a pipeline is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PipelineKey {
    pub stage: Stage,
    pub entry: &'static str,
    pub variant: Option<Variant>,
    pub arith: Arithmetic,
    /// Whether binding 0, its uniform, is read at a dynamic offset (one entry per dispatch).
    pub dynamic: bool,
}

impl PipelineKey {
    fn of(d: &Dispatch) -> PipelineKey {
        PipelineKey {
            stage: d.stage,
            entry: d.entry,
            variant: d.variant,
            arith: d.arith,
            dynamic: d.uniform_entry.is_some(),
        }
    }
}

/// A compute pipeline and the layout of its bind group 0.
pub(crate) struct Kernel {
    key: PipelineKey,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    slots: Vec<Slot>,
}

impl Kernel {
    /// A bind group over the buffers `binding` names: each binding the stage declares gets the
    /// buffer of its variable's name.
    fn bind(
        &self,
        device: &wgpu::Device,
        buffers: &[wgpu::Buffer],
        binding: &Binding,
    ) -> Result<wgpu::BindGroup, Error> {
        let mut entries = Vec::with_capacity(self.slots.len());
        for (i, slot) in self.slots.iter().enumerate() {
            let Some(&(_, id)) = binding.iter().find(|(name, _)| *name == slot.name) else {
                return Err(Error::Gpu(format!(
                    "{}: the layout gives no buffer for `{}`",
                    self.key.stage, slot.name
                )));
            };
            let buffer = &buffers[id.0 as usize];
            entries.push(wgpu::BindGroupEntry {
                binding: i as u32,
                resource: if slot.access == Access::Uniform && self.key.dynamic {
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset: 0,
                        size: wgpu::BufferSize::new(DYNAMIC_SIZE),
                    })
                } else {
                    buffer.as_entire_binding()
                },
            });
        }
        Ok(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(self.key.stage.name()),
            layout: &self.layout,
            entries: &entries,
        }))
    }
}

/// Every pipeline of a device, and the stages run since they were last asked for.
pub(crate) struct Engine {
    device: wgpu::Device,
    sizes: Sizes,
    /// The device's workgroups per dimension (dispatches above fold into 2D).
    max_groups: u32,
    /// Bytes between per-dispatch entries of a uniform buffer.
    pub stride: u64,
    pipelines: Mutex<HashMap<PipelineKey, Arc<Kernel>>>,
    run: Mutex<BTreeSet<Stage>>,
}

impl Engine {
    pub fn new(device: wgpu::Device, sizes: Sizes, limits: &wgpu::Limits) -> Engine {
        Engine {
            device,
            sizes,
            max_groups: limits.max_compute_workgroups_per_dimension,
            stride: (limits.min_uniform_buffer_offset_alignment as u64).max(16),
            pipelines: Mutex::new(HashMap::new()),
            run: Mutex::new(BTreeSet::new()),
        }
    }

    /// The pipeline of `key`, built the first time.
    pub fn kernel(&self, key: PipelineKey) -> Result<Arc<Kernel>, Error> {
        let mut pipelines = self.pipelines.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = pipelines.get(&key) {
            return Ok(k.clone());
        }
        let kernel = Arc::new(self.build(key)?);
        pipelines.insert(key, kernel.clone());
        Ok(kernel)
    }

    fn build(&self, key: PipelineKey) -> Result<Kernel, Error> {
        let stage = key.stage;
        let mut prelude = super::arithmetic::prelude(key.arith);
        if let Some(v) = key.variant {
            let sum = v
                .prelude()
                .ok_or_else(|| Error::Gpu(format!("{stage}: no variant {v:?}")))?;
            prelude.push_str(&sum);
        }
        let fail = |e: String| Error::Gpu(format!("{stage}: {e}"));
        let source = module_source(stage, &prelude).map_err(fail)?;
        let found = reflect(&source).map_err(fail)?;
        if !found.entries.iter().any(|e| e == key.entry) {
            return Err(fail(format!("no entry point `{}`", key.entry)));
        }
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(stage.name()),
                source: wgpu::ShaderSource::Wgsl(Cow::Owned(source)),
            });
        let entries: Vec<wgpu::BindGroupLayoutEntry> = found
            .slots
            .iter()
            .enumerate()
            .map(|(i, slot)| wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match slot.access {
                        Access::Uniform => wgpu::BufferBindingType::Uniform,
                        Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
                        Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                    },
                    has_dynamic_offset: slot.access == Access::Uniform && key.dynamic,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let layout = self
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(stage.name()),
                entries: &entries,
            });
        let pipeline_layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(stage.name()),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
        // Only the overrides the module declares (naga rejects unknown ones).
        let constants: Vec<(&str, f64)> = self
            .sizes
            .constants()
            .into_iter()
            .filter(|(name, _)| found.overrides.iter().any(|o| o == name))
            .collect();
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(key.entry),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(key.entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    ..Default::default()
                },
                cache: None,
            });
        Ok(Kernel {
            key,
            pipeline,
            layout,
            slots: found.slots,
        })
    }

    /// The stages dispatched since the last call, sorted.
    pub fn take_run(&self) -> Vec<Stage> {
        let mut run = self.run.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *run).into_iter().collect()
    }

    fn note_run(&self, stages: &[Stage]) {
        let mut run = self.run.lock().unwrap_or_else(|e| e.into_inner());
        run.extend(stages.iter().copied());
    }

    /// `groups` workgroups as (x, y), x within the device's limit per dimension (the shaders
    /// rebuild the linear index with `group_index`).
    pub fn fold(&self, groups: u32) -> (u32, u32) {
        fold(groups, self.max_groups)
    }

    /// `rec` on `buffers` (the forest's, by their plan's ids), ready to encode.
    pub fn prepare(&self, rec: &Recording, buffers: &[wgpu::Buffer]) -> Result<Prepared, Error> {
        let mut p = Preparing {
            engine: self,
            buffers,
            rec,
            kernels: Vec::new(),
            keys: HashMap::new(),
            binds: Vec::new(),
            bound: HashMap::new(),
        };
        let input = p.commands(&rec.input)?;
        let compute = Section {
            stages: stages_of(rec.compute.iter()),
            commands: rec
                .compute
                .iter()
                .map(|pass| Ok(Encoded::Pass(p.pass(pass)?)))
                .collect::<Result<_, Error>>()?,
        };
        let output = p.commands(&rec.output)?;
        Ok(Prepared {
            phases: rec.phases(),
            kernels: p.kernels,
            binds: p.binds,
            input,
            compute,
            output,
        })
    }
}

/// The stages of some passes, each once.
fn stages_of<'a>(passes: impl Iterator<Item = &'a Pass>) -> Vec<Stage> {
    let stages: BTreeSet<Stage> = passes
        .flat_map(|p| &p.dispatches)
        .map(|d| d.stage)
        .collect();
    stages.into_iter().collect()
}

/// [`Engine::prepare`]'s state: pipelines and bind groups, each made once.
struct Preparing<'a> {
    engine: &'a Engine,
    buffers: &'a [wgpu::Buffer],
    rec: &'a Recording,
    kernels: Vec<Arc<Kernel>>,
    keys: HashMap<PipelineKey, u32>,
    binds: Vec<wgpu::BindGroup>,
    bound: HashMap<(u32, u32), u32>,
}

impl Preparing<'_> {
    fn commands(&mut self, commands: &[Command]) -> Result<Section, Error> {
        let passes = commands.iter().filter_map(|c| match c {
            Command::Pass(p) => Some(p),
            Command::Copy { .. } => None,
        });
        let stages = stages_of(passes);
        let buffer = |id: super::recording::BufId| self.buffers[id.0 as usize].clone();
        let mut out = Vec::with_capacity(commands.len());
        for c in commands {
            out.push(match c {
                &Command::Copy {
                    src,
                    dst,
                    offset,
                    bytes,
                } => Encoded::Copy {
                    src: buffer(src),
                    dst: buffer(dst),
                    offset,
                    bytes,
                },
                Command::Pass(pass) => Encoded::Pass(self.pass(pass)?),
            });
        }
        Ok(Section {
            stages,
            commands: out,
        })
    }

    fn pass(&mut self, pass: &Pass) -> Result<EncodedPass, Error> {
        let mut launches = Vec::with_capacity(pass.dispatches.len());
        for d in &pass.dispatches {
            let key = PipelineKey::of(d);
            let kernel = match self.keys.get(&key) {
                Some(&k) => k,
                None => {
                    let k = self.kernels.len() as u32;
                    self.kernels.push(self.engine.kernel(key)?);
                    self.keys.insert(key, k);
                    k
                }
            };
            let bind = match self.bound.get(&(kernel, d.buffers)) {
                Some(&b) => b,
                None => {
                    let binding = &self.rec.bindings[d.buffers as usize];
                    let group = self.kernels[kernel as usize].bind(
                        &self.engine.device,
                        self.buffers,
                        binding,
                    )?;
                    self.binds.push(group);
                    let b = self.binds.len() as u32 - 1;
                    self.bound.insert((kernel, d.buffers), b);
                    b
                }
            };
            launches.push(Launch {
                kernel,
                bind,
                groups: self.engine.fold(d.groups),
                offset: d
                    .uniform_entry
                    .map(|e| (e as u64 * self.engine.stride) as u32),
            });
        }
        Ok(EncodedPass {
            phase: pass.phase,
            launches,
        })
    }
}

/// One dispatch, resolved.
struct Launch {
    kernel: u32,
    bind: u32,
    groups: (u32, u32),
    offset: Option<u32>,
}

struct EncodedPass {
    phase: Option<&'static str>,
    launches: Vec<Launch>,
}

enum Encoded {
    Copy {
        src: wgpu::Buffer,
        dst: wgpu::Buffer,
        offset: u64,
        bytes: u64,
    },
    Pass(EncodedPass),
}

/// One part of a run and the stages it dispatches.
struct Section {
    stages: Vec<Stage>,
    commands: Vec<Encoded>,
}

/// The parts of a run, encoded one after the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Before the kernels: the weights into the layout's places.
    Input,
    /// The kernels, one pass per timed phase.
    Compute,
    /// After the kernels: the results back.
    Output,
}

/// Timestamp writes for a pass: slot 0 at its beginning when `begin`, `end` at its end.
fn timestamps(
    queries: Option<&wgpu::QuerySet>,
    begin: bool,
    end: Option<u32>,
) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
    let query_set = queries?;
    (begin || end.is_some()).then_some(wgpu::ComputePassTimestampWrites {
        query_set,
        beginning_of_pass_write_index: begin.then_some(0),
        end_of_pass_write_index: end,
    })
}

/// A recording on an uploaded forest, ready to encode.
pub(crate) struct Prepared {
    phases: Vec<&'static str>,
    kernels: Vec<Arc<Kernel>>,
    binds: Vec<wgpu::BindGroup>,
    input: Section,
    compute: Section,
    output: Section,
}

impl Prepared {
    /// Its timed phases, in order.
    pub fn phases(&self) -> &[&'static str] {
        &self.phases
    }

    /// Timestamp slots it writes: 0 at the start of its first phase, k at the end of the k-th.
    pub fn timestamp_slots(&self) -> u32 {
        1 + self.phases.len() as u32
    }

    /// Encodes `part`, its passes' timestamps written into `queries` (if the adapter has
    /// them): slot 0 at the start of the first phase, slot k at the end of the k-th.
    pub fn encode(
        &self,
        engine: &Engine,
        part: Part,
        queries: Option<&wgpu::QuerySet>,
        rec: &mut Recorder,
    ) {
        let section = match part {
            Part::Input => &self.input,
            Part::Compute => &self.compute,
            Part::Output => &self.output,
        };
        engine.note_run(&section.stages);
        let mut timed = 0;
        for command in &section.commands {
            match command {
                Encoded::Copy {
                    src,
                    dst,
                    offset,
                    bytes,
                } => rec
                    .encoder
                    .copy_buffer_to_buffer(src, 0, dst, *offset, *bytes),
                Encoded::Pass(pass) => {
                    let slot = pass.phase.map(|_| {
                        timed += 1;
                        timed
                    });
                    self.encode_pass(pass, slot, queries, rec);
                }
            }
        }
    }

    /// One pass, split into command buffers of at most [`DISPATCHES_PER_COMMAND_BUFFER`]
    /// dispatches; `slot`: the timestamp slot of its end (and slot 0 at its start if it is the
    /// first phase).
    fn encode_pass(
        &self,
        pass: &EncodedPass,
        slot: Option<u32>,
        queries: Option<&wgpu::QuerySet>,
        rec: &mut Recorder,
    ) {
        let mut chunks: Vec<&[Launch]> = pass
            .launches
            .chunks(DISPATCHES_PER_COMMAND_BUFFER)
            .collect();
        if chunks.is_empty() {
            chunks.push(&[]);
        }
        let last = chunks.len() - 1;
        for (c, chunk) in chunks.into_iter().enumerate() {
            if c > 0 {
                rec.split();
            }
            let mut cpass = rec
                .encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(pass.phase.unwrap_or("relabel")),
                    timestamp_writes: timestamps(
                        queries,
                        c == 0 && slot == Some(1),
                        slot.filter(|_| c == last),
                    ),
                });
            let mut set = None;
            for l in chunk {
                if set != Some(l.kernel) {
                    cpass.set_pipeline(&self.kernels[l.kernel as usize].pipeline);
                    set = Some(l.kernel);
                }
                let offsets: &[u32] = match &l.offset {
                    Some(o) => std::slice::from_ref(o),
                    None => &[],
                };
                cpass.set_bind_group(0, &self.binds[l.bind as usize], offsets);
                cpass.dispatch_workgroups(l.groups.0, l.groups.1, 1);
            }
        }
    }
}

/// `groups` workgroups as (x, y), x ≤ `max_dim`.
pub(crate) fn fold(groups: u32, max_dim: u32) -> (u32, u32) {
    if groups <= max_dim {
        (groups, 1)
    } else {
        let y = groups.div_ceil(max_dim);
        (groups.div_ceil(y), y)
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
}
