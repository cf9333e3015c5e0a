//! The Euler-tour kernels' layout (paper Algorithm 2 and its variants): a forest in the
//! preorder labels of [`PreorderLayout`], its Euler-tour positions, the scan plan's levels and
//! tiles, and the chained plan's segments; and what each part of a scan recipe covers on it.
//! Level 0's tile scan builds E from the tour as it loads it ([`Over::Tour`]); the block
//! levels are tile-scanned up and uniform-added down ([`Over::BlockLevelsUp`],
//! [`Over::BlockLevelsDown`]) or chained ([`Over::ChainSegments`]); the read forms every
//! vertex's answer, with level 0's uniform add on the elements it reads ([`Over::Vertices`]).
//! Every stage but the relabelling is compiled for the kernel's variant.

use super::layout::{Forest, PreorderLayout, ROOT_BIT};
use super::recording::{BufId, BufferPlan, Builder, Layout, Request, Run};
use super::relabel::Labels;
use super::shaders::Sizes;
use super::types::{ScanLevel, VertexCount};
use super::variants::{Read, Variant};
use crate::Error;
use analysis::algorithms::Over;
use generators::fixed::Scale;

/// One level of the scan plan on the device.
struct Level {
    /// Its elements (level 0: E; above: block sums).
    data: BufId,
    tiles: BufId,
    /// Its [`ScanLevel`] uniform.
    params: BufId,
    /// Tiles (a workgroup each).
    count: u32,
}

/// A forest in preorder labels, with its scan plan's buffers.
pub(crate) struct ScanForest {
    n: u32,
    wg: u32,
    /// The rounded variant its stages are compiled for (the limbs from the weights' scale).
    variant: Variant,
    labels: Labels,
    pos: BufId,
    tour: BufId,
    /// The [`VertexCount`] of the read.
    count: BufId,
    levels: Vec<Level>,
    /// Bound where a stage has no such buffer (never read or written); two, as one buffer
    /// cannot be bound both read-only and read-write in a dispatch.
    unused: BufId,
    unused_ro: BufId,
    /// The chained plan's segments and their count, for the trees of more than one tile.
    chain: Option<(BufId, BufId, u32)>,
    /// Why this adapter cannot chain this forest's tile totals (llvmpipe's loop budget).
    chain_limit: Option<String>,
    /// The unrounded read's output (n words per limb, preorder labels) and label → vertex.
    words: Option<(BufId, Vec<u32>)>,
}

impl ScanForest {
    /// Relabels `forest` in preorder and plans its buffers for `variant` (`scale`: the weights',
    /// for a fixed-point word); `unrounded`: with the buffer of the unrounded read.
    pub fn new(
        forest: &Forest,
        variant: Variant,
        scale: Option<Scale>,
        unrounded: bool,
        sizes: &Sizes,
        plan: &mut BufferPlan,
    ) -> Result<ScanForest, Error> {
        let n = forest.len();
        let layout = PreorderLayout::new(forest);
        if layout.levels[0].len >= ROOT_BIT as usize {
            return Err(Error::GpuLimit(format!(
                "a forest of {n} vertices has Euler-tour positions beyond 31 bits"
            )));
        }
        let limbs = scale.map_or(0, |s| s.gpu_words());
        let unit = scale.map_or(0, |s| s.unit() as u32);
        let words = variant.word.words(limbs);
        let labels = Labels::new(plan, "preorder", &layout.orig, sizes.wg);
        let empty = wgpu::BufferUsages::empty();
        let levels: Vec<Level> = (layout.levels.into_iter().enumerate())
            .map(|(i, level)| Level {
                data: plan.zeroed(
                    match i {
                        0 => "vectorial Euler-tour vector E",
                        _ => "vectorial block sums",
                    },
                    words * level.len,
                    empty,
                ),
                count: level.tiles.len() as u32,
                params: plan.uniform(
                    "scan level",
                    ScanLevel {
                        tiles: level.tiles.len() as u32,
                        unit,
                        ..Default::default()
                    },
                ),
                tiles: plan.data("scan tiles", level.tiles),
            })
            .collect();
        let segments = layout.chain_segments.len() as u32;
        let longest = layout.chain_segments.iter().map(|s| s[1]).max();
        let chain_limit = longest
            .filter(|&l| l as u64 + 64 > sizes.loop_budget)
            .map(|l| {
                format!(
                    "the chained scan of {l} tile totals exceeds this adapter's loop budget of {}",
                    sizes.loop_budget
                )
            });
        let chain = (segments > 0).then(|| {
            let count = VertexCount {
                n: segments,
                ..Default::default()
            };
            let count = plan.uniform("chained scan segments", count);
            let segs = plan.data("chained scan segments", layout.chain_segments);
            (segs, count, segments)
        });
        let count = VertexCount {
            n: n as u32,
            unit,
            ..Default::default()
        };
        let words_out = unrounded.then(|| {
            let usage = wgpu::BufferUsages::COPY_SRC;
            let out = plan.zeroed("exact reference limbs", words * n, usage);
            (out, layout.orig.clone())
        });
        Ok(ScanForest {
            n: n as u32,
            wg: sizes.wg,
            variant: Variant {
                limbs: limbs as u32,
                ..variant
            },
            labels,
            pos: plan.data("vectorial Euler-tour positions", layout.pos),
            tour: plan.data("vectorial Euler tour", layout.tour),
            count: plan.uniform("vertex count", count),
            levels,
            unused: plan.zeroed("unused", words, empty),
            unused_ro: plan.zeroed("unused", words, empty),
            chain,
            chain_limit,
            words: words_out,
        })
    }

    /// Level `i + 1`'s elements (the tile totals of level i), or the unused buffer at the top.
    fn above(&self, i: usize) -> BufId {
        self.levels.get(i + 1).map_or(self.unused, |l| l.data)
    }

    /// Level `i`'s tile scan; `tour` and `w` bound only at level 0.
    fn tile_binding(&self, i: usize) -> Vec<(&'static str, BufId)> {
        let level = &self.levels[i];
        let (tour, w) = match i {
            0 => (self.tour, self.labels.input),
            _ => (self.unused_ro, self.unused_ro),
        };
        vec![
            ("scan", level.params),
            ("tiles", level.tiles),
            ("data", level.data),
            ("totals", self.above(i)),
            ("tour", tour),
            ("w", w),
        ]
    }
}

impl Layout for ScanForest {
    fn expand(&self, b: &mut Builder, run: Run, over: Over, req: Request) -> Result<(), Error> {
        // The read dimension is the read's: the scan stages never round.
        let scan = Some(self.variant);
        match over {
            // The read stores what it rounds (`finish_read`).
            Over::LabelsIn => self.labels.expand(b, run, over, false),
            // The unrounded read's words go to the host as they are, in preorder labels.
            Over::LabelsOut if req.read == Read::Unrounded => {}
            Over::LabelsOut => self.labels.expand(b, run, over, false),
            Over::Tour => {
                let binding = b.bind(self.tile_binding(0));
                b.dispatch(run, scan, self.levels[0].count, binding, None, None);
            }
            Over::BlockLevelsUp => {
                for i in 1..self.levels.len() {
                    let binding = b.bind(self.tile_binding(i));
                    b.dispatch(run, scan, self.levels[i].count, binding, None, None);
                }
            }
            Over::BlockLevelsDown => {
                for i in (1..self.levels.len().saturating_sub(1)).rev() {
                    let level = &self.levels[i];
                    let binding = b.bind(vec![
                        ("scan", level.params),
                        ("tiles", level.tiles),
                        ("data", level.data),
                        ("block_prefix", self.above(i)),
                    ]);
                    b.dispatch(run, scan, level.count, binding, None, None);
                }
            }
            Over::ChainSegments => {
                if let Some(why) = &self.chain_limit {
                    return Err(Error::GpuLimit(why.clone()));
                }
                if let Some((segments, count, n)) = self.chain {
                    let data = self.above(0);
                    let binding = b.bind(vec![
                        ("count", count),
                        ("segments", segments),
                        ("data", data),
                    ]);
                    b.dispatch(run, scan, n, binding, None, None);
                }
            }
            Over::Vertices => {
                let (variant, out) = match (req.read, &self.words) {
                    (Read::Rounded, _) => (self.variant, self.labels.output),
                    (Read::Unrounded, Some((words, _))) => {
                        (self.variant.with_read(Read::Unrounded), *words)
                    }
                    (Read::Unrounded, None) => {
                        return Err(Error::Gpu("no buffer for the unrounded read".into()));
                    }
                };
                let binding = b.bind(vec![
                    ("count", self.count),
                    ("pos", self.pos),
                    ("x", self.levels[0].data),
                    ("tiles", self.levels[0].tiles),
                    ("block_prefix", self.above(0)),
                    ("out", out),
                ]);
                let groups = self.n.div_ceil(self.wg);
                b.dispatch(run, Some(variant), groups, binding, None, None);
            }
            _ => return Err(unsupported(over)),
        }
        Ok(())
    }

    fn read_words(&self) -> Option<(BufId, &[u32])> {
        self.words.as_ref().map(|(id, orig)| (*id, &orig[..]))
    }
}

/// A recipe step a layout does not have.
pub(crate) fn unsupported(over: Over) -> Error {
    Error::Gpu(format!("this kernel's layout has no {over:?}"))
}
