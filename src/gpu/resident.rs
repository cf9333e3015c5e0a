//! The uploaded forests: what identifies a forest's trees, and each layout's buffers on it,
//! keyed by layout and scan word (the exact word's at the scale of the last weights).

use super::context::{Context, Recorder};
use super::contraction::ContractionTree;
use super::parallel::ParallelTree;
use super::vectorial::{self, VectorialTree};
use analysis::Op;
use analysis::algorithms::{GpuLayout, ScanWord};
use generators::Tree;

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

/// Which of a forest's kernel buffers a layout runs on: the scan's are made per scan word
/// (every scan plan runs on the same buffers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Buffers {
    Levels,
    Scan(ScanWord),
    Program,
}

impl From<GpuLayout> for Buffers {
    fn from(layout: GpuLayout) -> Buffers {
        match layout {
            GpuLayout::Levels => Buffers::Levels,
            GpuLayout::Scan { word, .. } => Buffers::Scan(word),
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
    /// The kernels' buffers made so far, one per [`Buffers`] (the exact scan's at the scale
    /// of the last weights).
    pub uploaded: Vec<(Buffers, Uploaded)>,
}

/// A layout's buffers on one forest.
pub(super) enum Uploaded {
    Levels(ParallelTree),
    Scan(VectorialTree),
    Program(ContractionTree),
}

impl Uploaded {
    /// Records the weights into the kernel's buffers.
    pub(super) fn record_in(
        &self,
        ctx: &Context,
        w: &wgpu::Buffer,
        encoder: &mut wgpu::CommandEncoder,
    ) {
        match self {
            Uploaded::Levels(p) => p.labels.record_in(ctx, encoder),
            Uploaded::Scan(v) => v.labels.record_in(ctx, encoder),
            Uploaded::Program(c) => c.record_in(w, encoder),
        }
    }
    /// Records `op` by the kernel of `layout`; returns the timestamp slots written (the last
    /// one: the end).
    pub(super) fn record(
        &self,
        ctx: &Context,
        layout: GpuLayout,
        op: Op,
        rec: &mut Recorder,
    ) -> u32 {
        match (self, layout) {
            (Uploaded::Levels(p), _) => {
                p.record(ctx, op, rec);
                2
            }
            (Uploaded::Scan(v), GpuLayout::Scan { plan, .. }) => {
                v.record(ctx, op, plan, rec);
                vectorial::STAGES.len() as u32 + 1
            }
            (Uploaded::Scan(_), _) => unreachable!("scan buffers run a scan layout"),
            (Uploaded::Program(c), _) => {
                c.record(ctx, op, rec);
                2
            }
        }
    }
    /// Records the results back into the forest's result buffer.
    pub(super) fn record_out(&self, ctx: &Context, op: Op, encoder: &mut wgpu::CommandEncoder) {
        match self {
            Uploaded::Levels(p) => p.labels.record_out(ctx, encoder),
            Uploaded::Scan(v) => v.labels.record_out(ctx, encoder),
            Uploaded::Program(c) => c.record_out(ctx, op, encoder),
        }
    }
}

impl Resident {
    pub(super) fn matches(&self, trees: &[&Tree]) -> bool {
        self.keys.len() == trees.len() && self.keys.iter().zip(trees).all(|(k, t)| k.matches(t))
    }

    /// The buffers `layout` runs on (`None` if not made yet).
    pub(super) fn uploaded(&self, layout: impl Into<Buffers>) -> Option<&Uploaded> {
        let key = layout.into();
        self.uploaded
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, u)| u)
    }

    /// The exact scan's buffers, if made.
    pub(super) fn exact(&self) -> Option<&VectorialTree> {
        match self.uploaded(Buffers::Scan(ScanWord::Exact)) {
            Some(Uploaded::Scan(v)) => Some(v),
            _ => None,
        }
    }

    /// Keeps `uploaded` as the buffers of `key` (replacing any made before).
    pub(super) fn put(&mut self, key: Buffers, uploaded: Uploaded) {
        self.uploaded.retain(|(k, _)| *k != key);
        self.uploaded.push((key, uploaded));
    }
}
