//! Host code of the vectorial kernel (paper Algorithm 2) in the preorder labels of
//! [`PreorderLayout`]: write E, scan it with the scan plan of `analysis::scan_plan` (tile scans
//! up the levels, uniform adds down to level 1), read every vertex's answer (level 0's
//! uniform add done on the elements read). Three passes, one per stage, for per-stage timing.

use super::context::{Context, Recorder};
use super::layout::{Forest, PreorderLayout};
use super::types::{ScanLevel, VertexCount};
use crate::Error;
use analysis::Op;

/// Timestamp slots written at the end of the write, scan and read passes.
pub(crate) const STAGES: [(&str, u32); 3] = [("write", 1), ("scan", 2), ("read", 3)];

/// A forest's preorder buffers, scan levels and bind groups.
pub(crate) struct VectorialTree {
    n: u32,
    /// [rootfix, leaffix].
    write: [wgpu::BindGroup; 2],
    /// Tile scans, level 0 up: (bind group, tiles).
    scan: Vec<(wgpu::BindGroup, u32)>,
    /// Uniform adds, top level − 1 down to level 1.
    add: Vec<(wgpu::BindGroup, u32)>,
    read: [wgpu::BindGroup; 2],
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
    /// are the forest's weights and results in the original labels.
    pub fn new(
        ctx: &Context,
        forest: &Forest,
        w: &wgpu::Buffer,
        out: &wgpu::Buffer,
    ) -> Result<VectorialTree, Error> {
        let n = forest.len();
        let layout = PreorderLayout::new(forest);
        if layout.levels[0].len >= super::layout::ROOT_BIT as usize {
            return Err(Error::Gpu(format!(
                "a forest of {n} vertices has Euler-tour positions beyond 31 bits"
            )));
        }
        let k = &ctx.kernels;
        let orig = ctx.buffer_init("vectorial preorder labels", &layout.orig, n)?;
        let pos = ctx.buffer_init("vectorial Euler-tour positions", &layout.pos, n)?;
        let mut data = Vec::with_capacity(layout.levels.len());
        let mut tiles = Vec::with_capacity(layout.levels.len());
        let mut params = Vec::with_capacity(layout.levels.len());
        for (i, level) in layout.levels.iter().enumerate() {
            let what = if i == 0 {
                "vectorial Euler-tour vector E"
            } else {
                "vectorial block sums"
            };
            data.push(ctx.buffer(what, level.len, n, wgpu::BufferUsages::empty())?);
            tiles.push(ctx.buffer_init("scan tiles", &level.tiles, n)?);
            params.push(ctx.uniform(
                "scan level",
                &ScanLevel {
                    tiles: level.tiles.len() as u32,
                    ..Default::default()
                },
            ));
        }
        // Levels without a level above bind this in its place (never read or written).
        let unused = ctx.buffer("unused", 1, n, wgpu::BufferUsages::empty())?;
        let above = |i: usize| data.get(i + 1).unwrap_or(&unused);
        let count = ctx.uniform(
            "vertex count",
            &VertexCount {
                n: n as u32,
                ..Default::default()
            },
        );
        let write =
            [0, 1].map(|o| k.write[o].bind(&ctx.device, &[&count, &orig, &pos, w, &data[0]]));
        let read = [0, 1].map(|o| {
            k.read[o].bind(
                &ctx.device,
                &[&count, &orig, &pos, &data[0], &tiles[0], above(0), out],
            )
        });
        let levels = layout.levels.len();
        let scan = (0..levels)
            .map(|i| {
                let bind = k
                    .scan_tile
                    .bind(&ctx.device, &[&params[i], &tiles[i], &data[i], above(i)]);
                (bind, layout.levels[i].tiles.len() as u32)
            })
            .collect();
        let add = (1..levels.saturating_sub(1))
            .rev()
            .map(|i| {
                let bind = k
                    .scan_add
                    .bind(&ctx.device, &[&params[i], &tiles[i], &data[i], above(i)]);
                (bind, layout.levels[i].tiles.len() as u32)
            })
            .collect();
        let mut buffers = vec![orig, pos, unused, count];
        buffers.extend(data);
        buffers.extend(tiles);
        buffers.extend(params);
        Ok(VectorialTree {
            n: n as u32,
            write,
            scan,
            add,
            read,
            _buffers: buffers,
        })
    }

    /// Records the three stages, one pass each (timestamp slots: [`STAGES`]).
    pub fn record(&self, ctx: &Context, op: Op, rec: &mut Recorder) {
        let k = &ctx.kernels;
        let o = op_index(op);
        let vertex_groups = ctx.fold(self.n.div_ceil(ctx.sizes.wg));
        {
            let mut pass = rec
                .encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("vectorial write"),
                    timestamp_writes: ctx.pass_timestamps(true, Some(STAGES[0].1)),
                });
            pass.set_pipeline(&k.write[o].pipeline);
            pass.set_bind_group(0, &self.write[o], &[]);
            pass.dispatch_workgroups(vertex_groups.0, vertex_groups.1, 1);
        }
        {
            let mut pass = rec
                .encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("vectorial scan"),
                    timestamp_writes: ctx.pass_timestamps(false, Some(STAGES[1].1)),
                });
            pass.set_pipeline(&k.scan_tile.pipeline);
            for (bind, tiles) in &self.scan {
                let (x, y) = ctx.fold(*tiles);
                pass.set_bind_group(0, bind, &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
            pass.set_pipeline(&k.scan_add.pipeline);
            for (bind, tiles) in &self.add {
                let (x, y) = ctx.fold(*tiles);
                pass.set_bind_group(0, bind, &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        let mut pass = rec
            .encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("vectorial read"),
                timestamp_writes: ctx.pass_timestamps(false, Some(STAGES[2].1)),
            });
        pass.set_pipeline(&k.read[o].pipeline);
        pass.set_bind_group(0, &self.read[o], &[]);
        pass.dispatch_workgroups(vertex_groups.0, vertex_groups.1, 1);
    }
}
