//! Host code of the vectorial kernel (paper Algorithm 2) in the preorder labels of
//! [`PreorderLayout`]: write E and scan it with the scan plan of `analysis::scan_plan` (level
//! 0's tile scan builds E from the Euler tour as it loads it; tile scans up the levels,
//! uniform adds down to level 1), then read every vertex's answer (level 0's uniform add done
//! on the elements read). Two passes, one per stage, for per-stage timing.

use super::context::{Context, Recorder};
use super::layout::{Forest, PreorderLayout};
use super::relabel::Relabel;
use super::shaders::ScanKernels;
use super::types::{ScanLevel, VertexCount};
use crate::Error;
use analysis::Op;
use analysis::algorithms::ScanWord;
use analysis::scan_plan::Plan;
use generators::fixed::Scale;

/// Timestamp slots written at the end of the write + scan and the read passes.
pub(crate) const STAGES: [(&str, u32); 2] = [("scan", 1), ("read", 2)];

/// A forest's preorder buffers, scan levels and bind groups.
pub(crate) struct VectorialTree {
    /// Preorder labels: weights in, results out.
    pub labels: Relabel,
    n: u32,
    word: ScanWord,
    /// The exact word's scale (`None` for a float word).
    scale: Option<Scale>,
    /// Level 0's tile scan from the Euler tour, [rootfix, leaffix]; (bind group, tiles).
    scan0: ([wgpu::BindGroup; 2], u32),
    /// Tile scans of levels 1 up: (bind group, tiles).
    scan: Vec<(wgpu::BindGroup, u32)>,
    /// Uniform adds, top level − 1 down to level 1.
    add: Vec<(wgpu::BindGroup, u32)>,
    /// The chained plan's stage 2 in place of `scan` and `add`: (bind group, segments).
    chain: Option<(wgpu::BindGroup, u32)>,
    /// Why this adapter cannot run the chained plan on this forest (llvmpipe's loop budget).
    chain_limit: Option<String>,
    read: [wgpu::BindGroup; 2],
    /// The exact scan's unrounded read: [rootfix, leaffix] bind groups, the limbs in preorder
    /// labels, and label → the forest's vertex.
    read_limbs: Option<([wgpu::BindGroup; 2], wgpu::Buffer, Vec<u32>)>,
    /// Kept alive for the bind groups.
    _buffers: Vec<wgpu::Buffer>,
}

fn op_index(op: Op) -> usize {
    match op {
        Op::Rootfix => 0,
        Op::Leaffix => 1,
    }
}

impl VectorialTree {
    /// Relabels `forest` in preorder and uploads its positions and scan plan; `w` and `out`
    /// are the forest's weights and results in the original labels; `scale`: the exact word's
    /// (the weights'), required for it. `unrounded_read`: an
    /// exact scan also gets its unrounded read (the GPU exact reference).
    pub fn new(
        ctx: &Context,
        forest: &Forest,
        w: &wgpu::Buffer,
        out: &wgpu::Buffer,
        word: ScanWord,
        scale: Option<Scale>,
        unrounded_read: bool,
    ) -> Result<VectorialTree, Error> {
        let n = forest.len();
        let layout = PreorderLayout::new(forest);
        if layout.levels[0].len >= super::layout::ROOT_BIT as usize {
            return Err(Error::GpuLimit(format!(
                "a forest of {n} vertices has Euler-tour positions beyond 31 bits"
            )));
        }
        let limbs = scale.map_or(0, |s| s.gpu_words());
        assert!(
            word != ScanWord::Exact || limbs > 0,
            "the exact word needs a scale"
        );
        let unit = scale.map_or(0, |s| s.unit() as u32);
        let k = ctx.kernels.scan(&ctx.device, word, limbs);
        let words = word.words(limbs);
        let labels = Relabel::new(ctx, "preorder", &layout.orig, w, out)?;
        let pos = ctx.buffer_init("vectorial Euler-tour positions", &layout.pos, n)?;
        let tour = ctx.buffer_init("vectorial Euler tour", &layout.tour, n)?;
        let mut data = Vec::with_capacity(layout.levels.len());
        let mut tiles = Vec::with_capacity(layout.levels.len());
        let mut params = Vec::with_capacity(layout.levels.len());
        for (i, level) in layout.levels.iter().enumerate() {
            let what = if i == 0 {
                "vectorial Euler-tour vector E"
            } else {
                "vectorial block sums"
            };
            data.push(ctx.buffer(what, words * level.len, n, wgpu::BufferUsages::empty())?);
            tiles.push(ctx.buffer_init("scan tiles", &level.tiles, n)?);
            params.push(ctx.uniform(
                "scan level",
                &ScanLevel {
                    tiles: level.tiles.len() as u32,
                    unit,
                    ..Default::default()
                },
            ));
        }
        // Bound where a kernel has no such buffer (never read or written); two, as one
        // buffer cannot be bound both read-only and read-write in a dispatch.
        let unused = ctx.buffer("unused", words, n, wgpu::BufferUsages::empty())?;
        let unused_ro = ctx.buffer("unused", words, n, wgpu::BufferUsages::empty())?;
        let above = |i: usize| data.get(i + 1).unwrap_or(&unused);
        let count = ctx.uniform(
            "vertex count",
            &VertexCount {
                n: n as u32,
                unit,
                ..Default::default()
            },
        );
        let tiles0 = layout.levels[0].tiles.len() as u32;
        let scan0 = [0, 1].map(|o| {
            k.scan_tour[o].bind(
                &ctx.device,
                &[
                    ("scan", &params[0]),
                    ("tiles", &tiles[0]),
                    ("data", &data[0]),
                    ("totals", above(0)),
                    ("tour", &tour),
                    ("w", &labels.input),
                ],
            )
        });
        let read = [0, 1].map(|o| {
            k.read[o].bind(
                &ctx.device,
                &[
                    ("count", &count),
                    ("pos", &pos),
                    ("x", &data[0]),
                    ("tiles", &tiles[0]),
                    ("block_prefix", above(0)),
                    ("out", &labels.output),
                ],
            )
        });
        // The exact reference's buffer and labels only where asked for: a kernel run alone
        // does not carry them.
        let read_limbs = match k.read_limbs.as_ref().filter(|_| unrounded_read) {
            Some(kernels) => {
                let limbs = ctx.buffer(
                    "exact reference limbs",
                    words * n,
                    n,
                    wgpu::BufferUsages::COPY_SRC,
                )?;
                let bind = [0, 1].map(|o| {
                    kernels[o].bind(
                        &ctx.device,
                        &[
                            ("count", &count),
                            ("pos", &pos),
                            ("x", &data[0]),
                            ("tiles", &tiles[0]),
                            ("block_prefix", above(0)),
                            ("out", &limbs),
                        ],
                    )
                });
                Some((bind, limbs, layout.orig.clone()))
            }
            None => None,
        };
        let levels = layout.levels.len();
        let scan = (1..levels)
            .map(|i| {
                let bind = k.scan_tile.bind(
                    &ctx.device,
                    &[
                        ("scan", &params[i]),
                        ("tiles", &tiles[i]),
                        ("data", &data[i]),
                        ("totals", above(i)),
                        ("tour", &unused_ro),
                        ("w", &unused_ro),
                    ],
                );
                (bind, layout.levels[i].tiles.len() as u32)
            })
            .collect();
        let add = (1..levels.saturating_sub(1))
            .rev()
            .map(|i| {
                let bind = k.scan_add.bind(
                    &ctx.device,
                    &[
                        ("scan", &params[i]),
                        ("tiles", &tiles[i]),
                        ("data", &data[i]),
                        ("block_prefix", above(i)),
                    ],
                );
                (bind, layout.levels[i].tiles.len() as u32)
            })
            .collect();
        // The chained plan's stage 2 (an f32 plan), for the trees with more than one tile.
        let segments = layout.chain_segments.len() as u32;
        let longest = layout
            .chain_segments
            .iter()
            .map(|s| s[1])
            .max()
            .unwrap_or(0);
        let chain_limit = (longest as u64 + 64 > ctx.sizes.loop_budget).then(|| {
            format!(
                "the chained scan of {longest} tile totals exceeds this adapter's loop budget of {}",
                ctx.sizes.loop_budget
            )
        });
        let chain = if word == ScanWord::F32 && segments > 0 {
            let segs = ctx.buffer_init("chained scan segments", &layout.chain_segments, n)?;
            let count = ctx.uniform(
                "chained scan segments",
                &VertexCount {
                    n: segments,
                    ..Default::default()
                },
            );
            let bind = ctx.kernels.scan_chain.bind(
                &ctx.device,
                &[("count", &count), ("segments", &segs), ("data", &data[1])],
            );
            params.extend([segs, count]);
            Some((bind, segments))
        } else {
            None
        };
        let mut buffers = vec![pos, tour, unused, unused_ro, count];
        buffers.extend(data);
        buffers.extend(tiles);
        buffers.extend(params);
        Ok(VectorialTree {
            labels,
            n: n as u32,
            word,
            scale,
            scan0: (scan0, tiles0),
            scan,
            add,
            chain,
            chain_limit,
            read,
            read_limbs,
            _buffers: buffers,
        })
    }

    /// Whether `vectorial-chained` can run here: an error naming the limit if not.
    pub fn check_chained(&self) -> Result<(), Error> {
        match &self.chain_limit {
            Some(why) => Err(Error::GpuLimit(why.clone())),
            None => Ok(()),
        }
    }

    fn kernels<'a>(&self, ctx: &'a Context) -> &'a ScanKernels {
        let limbs = self.scale.map_or(0, |s| s.gpu_words());
        ctx.kernels.scan(&ctx.device, self.word, limbs)
    }

    /// The exact word's scale these buffers were made for (`None`: a float word).
    pub fn scale(&self) -> Option<Scale> {
        self.scale
    }

    /// Whether it was made with the exact scan's unrounded read ([`Self::record_read_limbs`]).
    pub fn has_unrounded_read(&self) -> bool {
        self.read_limbs.is_some()
    }

    /// Records the two stages, one pass each (timestamp slots: [`STAGES`]), with `plan`: the
    /// scan plan's block levels (tiled) or the chained plan's stage 2.
    pub fn record(&self, ctx: &Context, op: Op, plan: Plan, rec: &mut Recorder) {
        self.record_scan(ctx, op, plan, rec);
        self.record_read(ctx, op_index(op), rec);
    }

    /// The exact scan's unrounded read into its limb buffer, after [`Self::record_scan`]:
    /// returns the buffer (n × limbs words, preorder labels) and label → vertex; `None` for a
    /// float scan.
    pub fn record_read_limbs(
        &self,
        ctx: &Context,
        op: Op,
        rec: &mut Recorder,
    ) -> Option<(&wgpu::Buffer, &[u32])> {
        let (bind, limbs, orig) = self.read_limbs.as_ref()?;
        let kernels = self.kernels(ctx).read_limbs.as_ref()?;
        let o = op_index(op);
        let groups = ctx.fold(self.n.div_ceil(ctx.sizes.wg));
        let mut pass = rec
            .encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("exact reference read"),
                timestamp_writes: None,
            });
        kernels[o].set(&mut pass);
        pass.set_bind_group(0, &bind[o], &[]);
        pass.dispatch_workgroups(groups.0, groups.1, 1);
        Some((limbs, orig))
    }

    /// The write + scan stage (the first of [`STAGES`]).
    pub fn record_scan(&self, ctx: &Context, op: Op, plan: Plan, rec: &mut Recorder) {
        let k = self.kernels(ctx);
        let o = op_index(op);
        {
            let mut pass = rec
                .encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("vectorial write + scan"),
                    timestamp_writes: ctx.pass_timestamps(true, Some(STAGES[0].1)),
                });
            let (x, y) = ctx.fold(self.scan0.1);
            k.scan_tour[o].set(&mut pass);
            pass.set_bind_group(0, &self.scan0.0[o], &[]);
            pass.dispatch_workgroups(x, y, 1);
            if plan == Plan::Chained {
                if let Some((bind, segments)) = &self.chain {
                    let (x, y) = ctx.fold(*segments);
                    ctx.kernels.scan_chain.set(&mut pass);
                    pass.set_bind_group(0, bind, &[]);
                    pass.dispatch_workgroups(x, y, 1);
                }
            } else {
                self.record_block_levels(ctx, &mut pass);
            }
        }
    }

    /// The scan plan's stages 1 and 3 above level 0: tile scans up, uniform adds down.
    fn record_block_levels(&self, ctx: &Context, pass: &mut wgpu::ComputePass<'_>) {
        let k = self.kernels(ctx);
        {
            k.scan_tile.set(pass);
            for (bind, tiles) in &self.scan {
                let (x, y) = ctx.fold(*tiles);
                pass.set_bind_group(0, bind, &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
            k.scan_add.set(pass);
            for (bind, tiles) in &self.add {
                let (x, y) = ctx.fold(*tiles);
                pass.set_bind_group(0, bind, &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
    }

    fn record_read(&self, ctx: &Context, o: usize, rec: &mut Recorder) {
        let k = self.kernels(ctx);
        let vertex_groups = ctx.fold(self.n.div_ceil(ctx.sizes.wg));
        let mut pass = rec
            .encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("vectorial read"),
                timestamp_writes: ctx.pass_timestamps(false, Some(STAGES[1].1)),
            });
        k.read[o].set(&mut pass);
        pass.set_bind_group(0, &self.read[o], &[]);
        pass.dispatch_workgroups(vertex_groups.0, vertex_groups.1, 1);
    }
}
