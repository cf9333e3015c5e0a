//! Host code of the vectorial kernel (paper Algorithm 2): write E, scan it with the scan plan
//! of `analysis::scan_plan`, read every vertex's answer. All stages go into one compute pass.

use super::{Context, TreeBuffers, WG};
use crate::Error;
use analysis::Op;
use analysis::scan_plan::{TILE, level_sizes};
use generators::Tree;

/// Per-tree buffers and bind groups of the vectorial kernel.
pub(crate) struct VectorialTree {
    /// Element counts of the scan levels: 2n, then the tile totals of each level below.
    sizes: Vec<usize>,
    write: [wgpu::BindGroup; 2],
    scan: Vec<wgpu::BindGroup>,
    add: Vec<wgpu::BindGroup>,
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

/// Uploads the Euler tour and builds the scan levels (once per tree).
pub(crate) fn prepare(ctx: &Context, t: &mut TreeBuffers, tree: &Tree) -> Result<(), Error> {
    if t.vectorial.is_some() {
        return Ok(());
    }
    let n = tree.len();
    let p = &ctx.pipelines;
    use wgpu::BufferUsages as U;
    let open = ctx.buffer_init("Euler tour open", tree.open(), n, U::empty())?;
    let close = ctx.buffer_init("Euler tour close", tree.close(), n, U::empty())?;
    let sizes = level_sizes(2 * n);
    // levels[k] holds scan level k (levels[0] = E); the last, one word, takes the grand total.
    let mut levels = Vec::with_capacity(sizes.len() + 1);
    for (k, &len) in sizes.iter().enumerate() {
        let what = if k == 0 {
            "vectorial Euler-tour vector E"
        } else {
            "vectorial block sums"
        };
        levels.push(ctx.buffer(what, len, n, U::empty())?);
    }
    levels.push(ctx.buffer("vectorial grand total", 1, n, U::empty())?);
    let params: Vec<wgpu::Buffer> = sizes
        .iter()
        .map(|&len| ctx.uniform("scan level", &[len as u32, len.div_ceil(TILE) as u32]))
        .collect();
    let stage = |pipeline| {
        ctx.bind(
            pipeline,
            &[
                (0, &t.params),
                (1, &open),
                (2, &close),
                (3, &t.w),
                (4, &levels[0]),
            ],
        )
    };
    let write = [stage(&p.write_rootfix), stage(&p.write_leaffix)];
    // Auto layouts hold only the bindings an entry point uses: rootfix reads no `close`.
    let read = [
        ctx.bind(
            &p.read_rootfix,
            &[(0, &t.params), (1, &open), (3, &levels[0]), (4, &t.out)],
        ),
        ctx.bind(
            &p.read_leaffix,
            &[
                (0, &t.params),
                (1, &open),
                (2, &close),
                (3, &levels[0]),
                (4, &t.out),
            ],
        ),
    ];
    let scan = (0..sizes.len())
        .map(|k| {
            ctx.bind(
                &p.scan_tile,
                &[(0, &params[k]), (1, &levels[k]), (2, &levels[k + 1])],
            )
        })
        .collect();
    let add = (0..sizes.len() - 1)
        .map(|k| {
            ctx.bind(
                &p.scan_add,
                &[(0, &params[k]), (1, &levels[k]), (2, &levels[k + 1])],
            )
        })
        .collect();
    let mut buffers = vec![open, close];
    buffers.extend(levels);
    buffers.extend(params);
    t.vectorial = Some(VectorialTree {
        sizes,
        write,
        scan,
        add,
        read,
        _buffers: buffers,
    });
    Ok(())
}

/// Records and submits write, scan (tile scans up the levels, uniform adds down), read.
pub(crate) fn run(ctx: &Context, t: &TreeBuffers, op: Op) {
    let v = t.vectorial.as_ref().expect("prepared");
    let p = &ctx.pipelines;
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("vectorial"),
            timestamp_writes: ctx.pass_timestamps(true, true),
        });
        let vertex_groups = ctx.fold((t.n as u32).div_ceil(WG));
        pass.set_pipeline(match op {
            Op::Rootfix => &p.write_rootfix,
            Op::Leaffix => &p.write_leaffix,
        });
        pass.set_bind_group(0, &v.write[op_index(op)], &[]);
        pass.dispatch_workgroups(vertex_groups.0, vertex_groups.1, 1);
        pass.set_pipeline(&p.scan_tile);
        for (k, &len) in v.sizes.iter().enumerate() {
            let (x, y) = ctx.fold(len.div_ceil(TILE) as u32);
            pass.set_bind_group(0, &v.scan[k], &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        pass.set_pipeline(&p.scan_add);
        for k in (0..v.sizes.len() - 1).rev() {
            let (x, y) = ctx.fold(v.sizes[k].div_ceil(TILE) as u32 - 1);
            pass.set_bind_group(0, &v.add[k], &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        pass.set_pipeline(match op {
            Op::Rootfix => &p.read_rootfix,
            Op::Leaffix => &p.read_leaffix,
        });
        pass.set_bind_group(0, &v.read[op_index(op)], &[]);
        pass.dispatch_workgroups(vertex_groups.0, vertex_groups.1, 1);
    }
    ctx.resolve_timestamps(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
}
