//! The uploaded forests: what identifies a forest's trees, and its buffers in each kernel
//! layout, keyed by the registry's layout (every scan plan of one storage format and word runs
//! on the same buffers), with the recordings prepared on them.

use super::context::Context;
use super::contraction::ProgramForest;
use super::engine::Prepared;
use super::layout::Forest;
use super::parallel::LevelForest;
use super::recording::{BufId, BufferPlan, Layout, Request, record};
use super::shaders::Sizes;
use super::variants::Variant;
use super::vectorial::ScanForest;
use crate::Error;
use analysis::algorithms::{GpuLayout, ScanWord, Step, Storage};
use generators::Tree;
use generators::fixed::Scale;

/// What identifies a tree's GPU buffers: its root and its children in child order (which fix
/// the levels and the Euler tour). Compared in full, so two trees never share buffers by a
/// hash collision.
#[derive(PartialEq, Eq)]
pub(super) struct TreeKey {
    root: u32,
    child_start: Box<[u32]>,
    children: Box<[u32]>,
}

impl TreeKey {
    pub(super) fn of(tree: &Tree) -> TreeKey {
        let (start, children) = tree.csr();
        TreeKey {
            root: tree.root(),
            child_start: start.into(),
            children: children.into(),
        }
    }

    pub(super) fn matches(&self, tree: &Tree) -> bool {
        let (start, children) = tree.csr();
        self.root == tree.root() && *self.child_start == *start && *self.children == *children
    }
}

/// Which of a forest's kernel buffers a layout runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Buffers {
    Levels,
    Scan(Storage, ScanWord),
    Program,
}

impl From<GpuLayout> for Buffers {
    fn from(layout: GpuLayout) -> Buffers {
        match layout {
            GpuLayout::Levels => Buffers::Levels,
            GpuLayout::Scan { storage, word, .. } => Buffers::Scan(storage, word),
            GpuLayout::Program => Buffers::Program,
        }
    }
}

/// One uploaded forest (a single tree for [`Gpu::compute_timed`] and [`Backend::compute`]).
pub(super) struct Resident {
    pub keys: Vec<TreeKey>,
    /// Weights and results in the original labels, trees end to end.
    pub w: wgpu::Buffer,
    pub out: wgpu::Buffer,
    /// The layouts' buffers made so far, one per [`Buffers`].
    pub uploaded: Vec<(Buffers, Uploaded)>,
}

/// How a forest's buffers in one layout were made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Made {
    /// The weights' scale of a fixed-point word (`None` for the others).
    pub scale: Option<Scale>,
    /// Whether they include the unrounded read's output.
    pub unrounded: bool,
}

impl Made {
    /// Whether buffers made so serve a call that needs `want`.
    fn serves(self, want: Made) -> bool {
        self.scale == want.scale && (self.unrounded || !want.unrounded)
    }
}

/// A forest's buffers in one layout, and the recordings prepared on them.
pub(super) struct Uploaded {
    pub made: Made,
    layout: Box<dyn Layout>,
    buffers: Vec<wgpu::Buffer>,
    prepared: Vec<(&'static [Step], Request, Prepared)>,
}

impl Uploaded {
    /// Lays `forest` out as `layout` says and makes its buffers; `w` and `out`: the forest's
    /// weights and results.
    pub fn new(
        ctx: &Context,
        forest: &Forest,
        layout: GpuLayout,
        made: Made,
        [w, out]: [&wgpu::Buffer; 2],
    ) -> Result<Uploaded, Error> {
        let mut plan = BufferPlan::new();
        let laid = lay_out(forest, layout, made, &ctx.sizes, &mut plan)?;
        Ok(Uploaded {
            made,
            layout: laid,
            buffers: ctx.make_buffers(plan, [w, out], forest.len())?,
            prepared: Vec::new(),
        })
    }

    /// Records and prepares the run of `recipe` for `req` on these buffers, the first time it
    /// is asked for; its index for [`Uploaded::run`].
    pub fn prepare(
        &mut self,
        ctx: &Context,
        recipe: &'static [Step],
        req: Request,
    ) -> Result<usize, Error> {
        let found = self
            .prepared
            .iter()
            .position(|(r, q, _)| *r == recipe && *q == req);
        if let Some(i) = found {
            return Ok(i);
        }
        let rec = record(&*self.layout, recipe, req)?;
        let prepared = ctx.engine.prepare(&rec, &self.buffers)?;
        self.prepared.push((recipe, req, prepared));
        Ok(self.prepared.len() - 1)
    }

    /// A run [`Uploaded::prepare`] made.
    pub fn run(&self, i: usize) -> &Prepared {
        &self.prepared[i].2
    }

    pub fn buffer(&self, id: BufId) -> &wgpu::Buffer {
        &self.buffers[id.0 as usize]
    }

    /// The unrounded read's buffer and label → vertex, if made.
    pub fn read_words(&self) -> Option<(BufId, &[u32])> {
        self.layout.read_words()
    }
}

/// `forest` laid out as `layout` says, its buffers planned in `plan` (no device needed).
pub(super) fn lay_out(
    forest: &Forest,
    layout: GpuLayout,
    made: Made,
    sizes: &Sizes,
    plan: &mut BufferPlan,
) -> Result<Box<dyn Layout>, Error> {
    Ok(match (layout, Variant::of(layout)) {
        (GpuLayout::Scan { .. }, Some(variant)) => Box::new(ScanForest::new(
            forest,
            variant,
            made.scale,
            made.unrounded,
            sizes,
            plan,
        )?),
        (GpuLayout::Levels, _) => Box::new(LevelForest::new(forest, sizes, plan)),
        (GpuLayout::Program, _) => Box::new(ProgramForest::new(forest, sizes, plan)),
        (GpuLayout::Scan { .. }, None) => unreachable!("a scan layout has a variant"),
    })
}

impl Resident {
    pub(super) fn matches(&self, trees: &[&Tree]) -> bool {
        self.keys.len() == trees.len() && self.keys.iter().zip(trees).all(|(k, t)| k.matches(t))
    }

    /// The buffers of `layout` on this forest, made again if absent or made otherwise than
    /// `made` needs.
    pub(super) fn uploaded(
        &mut self,
        ctx: &Context,
        forest: &Forest,
        layout: GpuLayout,
        made: Made,
    ) -> Result<&mut Uploaded, Error> {
        let key = Buffers::from(layout);
        let found = self.uploaded.iter().position(|(k, _)| *k == key);
        let i = match found {
            Some(i) if self.uploaded[i].1.made.serves(made) => i,
            _ => {
                self.uploaded.retain(|(k, _)| *k != key);
                let up = Uploaded::new(ctx, forest, layout, made, [&self.w, &self.out])?;
                self.uploaded.push((key, up));
                self.uploaded.len() - 1
            }
        };
        Ok(&mut self.uploaded[i].1)
    }
}
