//! A kernel's run as data: the buffers of an uploaded forest, described on the host
//! ([`BufferPlan`]), and the [`Recording`] of one op, the list of its dispatches (stage, entry
//! point, variant, workgroups, buffers) and copies, built from the kernel's recipe by
//! expanding each step over the forest's layout ([`Layout::expand`]). Nothing here needs a
//! device: the engine (`engine.rs`) makes the buffers and runs a recording, and the unit
//! tests compare recordings with their recipes on the CPU.

use super::variants::{Read, Variant};
use crate::Error;
use analysis::Op;
use analysis::algorithms::{Over, Stage, Step};
use generators::Arithmetic;
use std::collections::HashMap;

/// A buffer of an uploaded forest: its index in the forest's [`BufferPlan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct BufId(pub u32);

/// The forest's weights in the tree's labels (every plan's first buffer).
pub(crate) const WEIGHTS: BufId = BufId(0);
/// The forest's results in the tree's labels (every plan's second buffer).
pub(crate) const RESULTS: BufId = BufId(1);

/// What a buffer holds when it is made.
pub(crate) enum Contents {
    /// `words` zeroed 32-bit words (at least one), with these usages besides storage.
    Zeroed {
        words: usize,
        usage: wgpu::BufferUsages,
    },
    /// A storage buffer holding these values.
    Data(Box<dyn Words>),
    /// A uniform buffer holding one struct.
    Uniform(Box<dyn Words>),
    /// A uniform buffer of one struct per dispatch, each read at its own dynamic offset.
    PerDispatch(Box<dyn Words>, usize),
    /// The forest's own weights or results buffer ([`WEIGHTS`], [`RESULTS`]).
    Forest,
}

/// Values a buffer is made from, as bytes.
pub(crate) trait Words: Send {
    fn bytes(&self) -> &[u8];
}

impl<T: bytemuck::Pod + Send> Words for Vec<T> {
    fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self)
    }
}

/// One buffer to make: a label (the limit errors name it) and its contents.
pub(crate) struct BufferSpec {
    pub label: String,
    pub contents: Contents,
}

/// The buffers of an uploaded forest, by [`BufId`], before any exists.
pub(crate) struct BufferPlan {
    pub specs: Vec<BufferSpec>,
}

impl BufferPlan {
    /// A plan holding the forest's weights and results ([`WEIGHTS`], [`RESULTS`]).
    pub fn new() -> BufferPlan {
        let forest = |label: &str| BufferSpec {
            label: label.into(),
            contents: Contents::Forest,
        };
        BufferPlan {
            specs: vec![forest("weights"), forest("results")],
        }
    }

    fn add(&mut self, label: &str, contents: Contents) -> BufId {
        self.specs.push(BufferSpec {
            label: label.into(),
            contents,
        });
        BufId(self.specs.len() as u32 - 1)
    }

    /// `words` zeroed 32-bit words, used as storage and as `usage`.
    pub fn zeroed(&mut self, label: &str, words: usize, usage: wgpu::BufferUsages) -> BufId {
        self.add(label, Contents::Zeroed { words, usage })
    }

    /// A storage buffer holding `data` (one zeroed element when empty: no binding is empty).
    pub fn data<T: bytemuck::Pod + Send>(&mut self, label: &str, mut data: Vec<T>) -> BufId {
        if data.is_empty() {
            data.push(T::zeroed());
        }
        self.add(label, Contents::Data(Box::new(data)))
    }

    /// A uniform buffer holding `value`.
    pub fn uniform<T: bytemuck::Pod + Send>(&mut self, label: &str, value: T) -> BufId {
        self.add(label, Contents::Uniform(Box::new(vec![value])))
    }

    /// A uniform buffer of one `T` per dispatch (at least one entry).
    pub fn per_dispatch<T: bytemuck::Pod + Send>(
        &mut self,
        label: &str,
        mut values: Vec<T>,
    ) -> BufId {
        if values.is_empty() {
            values.push(T::zeroed());
        }
        self.add(
            label,
            Contents::PerDispatch(Box::new(values), size_of::<T>()),
        )
    }
}

/// Buffers a dispatch may bind, by the WGSL variable names a layout gives them: its stage binds
/// those its file declares.
pub(crate) type Binding = Vec<(&'static str, BufId)>;

/// One dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dispatch {
    pub stage: Stage,
    pub entry: &'static str,
    /// The variant a scan stage is compiled for (`None`: no prelude).
    pub variant: Option<Variant>,
    /// The arithmetic every stage is compiled for (`super::arithmetic`).
    pub arith: Arithmetic,
    /// Workgroups (the engine folds them into 2D above the device's limit per dimension).
    pub groups: u32,
    /// Its buffers: an index into [`Recording::bindings`].
    pub buffers: u32,
    /// The entry of its per-dispatch uniform it reads (bound at a dynamic offset), if any.
    pub uniform_entry: Option<u32>,
}

/// One compute pass.
#[derive(Debug, Default)]
pub(crate) struct Pass {
    /// The timed phase it is (`None` for the passes before and after the kernels).
    pub phase: Option<&'static str>,
    pub dispatches: Vec<Dispatch>,
}

/// One command.
#[derive(Debug)]
pub(crate) enum Command {
    /// `bytes` from the start of `src` into `dst` at `offset`.
    Copy {
        src: BufId,
        dst: BufId,
        offset: u64,
        bytes: u64,
    },
    Pass(Pass),
}

/// One op of a kernel on an uploaded forest, as data.
#[derive(Debug, Default)]
pub(crate) struct Recording {
    pub bindings: Vec<Binding>,
    /// Before the kernels: the weights into the layout's places.
    pub input: Vec<Command>,
    /// The kernels: one pass per timed phase, in order.
    pub compute: Vec<Pass>,
    /// After the kernels: the results back into the tree's labels.
    pub output: Vec<Command>,
}

impl Recording {
    /// The timed phases, in order: GPU timestamp slot 0 is written at the start of the first,
    /// slot k at the end of the k-th.
    pub fn phases(&self) -> Vec<&'static str> {
        self.compute.iter().filter_map(|p| p.phase).collect()
    }

    /// Every dispatch, in order.
    #[cfg(test)]
    pub fn dispatches(&self) -> impl Iterator<Item = &Dispatch> {
        fn passes(c: &Command) -> Option<&Pass> {
            match c {
                Command::Pass(p) => Some(p),
                Command::Copy { .. } => None,
            }
        }
        let input = self.input.iter().filter_map(passes);
        let output = self.output.iter().filter_map(passes);
        input
            .chain(&self.compute)
            .chain(output)
            .flat_map(|p| &p.dispatches)
    }

    /// The stages it dispatches, each once, sorted.
    #[cfg(test)]
    pub fn stages(&self) -> Vec<Stage> {
        let mut stages: Vec<Stage> = self.dispatches().map(|d| d.stage).collect();
        stages.sort();
        stages.dedup();
        stages
    }
}

/// What a recording is made for: an op, how the read leaves its sums, and the arithmetic the
/// kernels add and store in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Request {
    pub op: Op,
    pub read: Read,
    pub arith: Arithmetic,
}

impl Request {
    /// `op` read as `read`, in f32.
    pub fn f32(op: Op, read: Read) -> Request {
        Request {
            op,
            read,
            arith: Arithmetic::F32,
        }
    }
}

/// One step's stage and entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Run {
    pub stage: Stage,
    pub entry: &'static str,
}

/// An uploaded forest's layout: what each part of a recipe covers on it.
pub(crate) trait Layout: Send {
    /// Adds the dispatches of `run` over `over` (one step of a recipe) to `b`; an error where
    /// this forest or device cannot run it.
    fn expand(&self, b: &mut Builder, run: Run, over: Over, req: Request) -> Result<(), Error>;

    /// Copies before the kernels that are no stage's.
    fn copies_in(&self) -> Vec<Command> {
        Vec::new()
    }

    /// The buffer an unrounded read writes (one sum per vertex, the layout's labels) and
    /// label → the forest's vertex, if the layout has one.
    fn read_words(&self) -> Option<(BufId, &[u32])> {
        None
    }
}

/// Where a step's dispatches go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Input,
    Compute,
    Output,
}

fn section(over: Over) -> Section {
    match over {
        Over::LabelsIn => Section::Input,
        Over::LabelsOut | Over::ResultSlots => Section::Output,
        _ => Section::Compute,
    }
}

/// Builds a [`Recording`]: bindings interned, the current phase's dispatches ordered.
pub(crate) struct Builder {
    rec: Recording,
    interned: HashMap<Binding, u32>,
    section: Section,
    /// The current phase's dispatches and their places in it.
    phase: Vec<(u32, Dispatch)>,
    /// Dispatches added to the current section's pass (input and output: one pass per step).
    pass: Vec<Dispatch>,
    /// The arithmetic of every dispatch.
    arith: Arithmetic,
}

impl Builder {
    fn new(arith: Arithmetic) -> Builder {
        Builder {
            rec: Recording::default(),
            interned: HashMap::new(),
            section: Section::Compute,
            phase: Vec::new(),
            pass: Vec::new(),
            arith,
        }
    }

    /// Whether the store rounds the kernels' sums (storage narrower than accumulation).
    pub fn stores_narrower(&self) -> bool {
        super::arithmetic::stores_narrower(self.arith)
    }

    /// The index of `binding` in the recording (the same for equal bindings).
    pub fn bind(&mut self, binding: Binding) -> u32 {
        let next = self.rec.bindings.len() as u32;
        *self.interned.entry(binding.clone()).or_insert_with(|| {
            self.rec.bindings.push(binding);
            next
        })
    }

    /// Adds a dispatch of `run`. `at`: its place in the layout's plan, which orders the
    /// dispatches of a phase that several steps share (the level plan's narrow runs and wide
    /// levels); `None`: after everything before it.
    pub fn dispatch(
        &mut self,
        run: Run,
        variant: Option<Variant>,
        groups: u32,
        buffers: u32,
        uniform_entry: Option<u32>,
        at: Option<u32>,
    ) {
        let d = Dispatch {
            stage: run.stage,
            entry: run.entry,
            variant,
            arith: self.arith,
            groups,
            buffers,
            uniform_entry,
        };
        match self.section {
            Section::Compute => {
                let after = self.phase.last().map_or(0, |&(k, _)| k);
                self.phase.push((at.unwrap_or(after), d));
            }
            _ => self.pass.push(d),
        }
    }

    fn start(&mut self, section: Section) {
        self.section = section;
    }

    /// Ends an input or output step: its dispatches form one untimed pass.
    fn end_step(&mut self) {
        let pass = Command::Pass(Pass {
            phase: None,
            dispatches: std::mem::take(&mut self.pass),
        });
        match self.section {
            Section::Input if !pass_empty(&pass) => self.rec.input.push(pass),
            Section::Output if !pass_empty(&pass) => self.rec.output.push(pass),
            _ => {}
        }
    }

    fn end_phase(&mut self, name: &'static str) {
        let mut phase = std::mem::take(&mut self.phase);
        phase.sort_by_key(|&(at, _)| at);
        self.rec.compute.push(Pass {
            phase: Some(name),
            dispatches: phase.into_iter().map(|(_, d)| d).collect(),
        });
    }
}

fn pass_empty(c: &Command) -> bool {
    matches!(c, Command::Pass(p) if p.dispatches.is_empty())
}

/// The recording of `recipe` for `req` on `layout`.
pub(crate) fn record(
    layout: &dyn Layout,
    recipe: &[Step],
    req: Request,
) -> Result<Recording, Error> {
    let mut b = Builder::new(req.arith);
    b.rec.input = layout.copies_in();
    for step in recipe {
        match *step {
            Step::Phase(name) => b.end_phase(name),
            Step::Run { stage, entry, over } => {
                let Some(entry) = entry.for_op(req.op) else {
                    continue;
                };
                let section = section(over);
                b.start(section);
                layout.expand(&mut b, Run { stage, entry }, over, req)?;
                if section != Section::Compute {
                    b.end_step();
                }
            }
        }
    }
    Ok(b.rec)
}
