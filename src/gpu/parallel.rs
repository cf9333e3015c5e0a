//! Host code of the level-synchronous kernels (paper Algorithm 1).
//!
//! **rootfix**: a breadth-first expansion with input/output frontier queues, load-balanced as in
//! Merrill, Garland & Grimshaw's BFS: per level, a prefix sum over the out-degrees of the
//! frontier (`frontier_scan.wgsl`) gives every child its own thread in `frontier_expand.wgsl`.
//! Frontier sizes are computed on the GPU: the scan's top level writes the indirect dispatch
//! arguments of the rest of the level and of the next level into a control block (two, by level
//! parity), so every level is recorded up front with `dispatch_workgroups_indirect` and no CPU
//! round trip. The host uses only the tree's height (how many levels to record) and its widest
//! level (how many scan levels to record). Long recordings (chains have one level per vertex)
//! are split into several submissions, none waited for until the end.
//!
//! **leaffix**: one dispatch per level, bottom-up; the level's vertex range comes from a dynamic
//! uniform offset. Each vertex gathers its children in child order, sequentially — that order is
//! the definition shared with the CPU twin.

use super::{Context, TreeBuffers, WG};
use crate::Error;
use analysis::scan_plan::level_sizes;
use generators::Tree;

/// Layout of the control block (words), as in `frontier_scan.wgsl`.
const MAXK: usize = 4;
const LEN: usize = 0;
const SCAN_ARGS: usize = 4;
const ADD_ARGS: usize = 16;
const EXPAND_ARGS: usize = 28;
const CTL_WORDS: usize = 32;
/// Dispatches recorded per submission.
const DISPATCHES_PER_SUBMIT: usize = 16384;
/// Children one leaffix dispatch gathers per vertex (more take several dispatches in a row).
const GATHER_CHUNK: u32 = 16384;

/// Per-tree buffers and bind groups of the BFS rootfix.
pub(crate) struct RootfixTree {
    /// BFS levels to expand (the tree's height).
    height: usize,
    /// Scan levels recorded per BFS level (enough for the widest frontier).
    scan_levels: usize,
    ctl: [wgpu::Buffer; 2],
    /// Queue 0 (the root's level); the other alternates with it.
    queue0: wgpu::Buffer,
    /// Atomic count of enqueued vertices (n − 1 after a complete run).
    pub enqueued: wgpu::Buffer,
    degrees: [wgpu::BindGroup; 2],
    blocks: Vec<[wgpu::BindGroup; 2]>,
    adds: Vec<[wgpu::BindGroup; 2]>,
    expand: [wgpu::BindGroup; 2],
    _buffers: Vec<wgpu::Buffer>,
}

/// The control block before level 0: a frontier of one vertex, one scan tile.
fn initial_ctl() -> [u32; CTL_WORDS] {
    let mut c = [0u32; CTL_WORDS];
    c[LEN] = 1;
    for k in 0..MAXK {
        c[SCAN_ARGS + 3 * k..SCAN_ARGS + 3 * k + 3].copy_from_slice(&[(k == 0) as u32, 1, 1]);
    }
    for k in 0..MAXK - 1 {
        c[ADD_ARGS + 3 * k..ADD_ARGS + 3 * k + 3].copy_from_slice(&[0, 1, 1]);
    }
    c[EXPAND_ARGS..EXPAND_ARGS + 3].copy_from_slice(&[0, 1, 1]);
    c
}

pub(crate) fn prepare_rootfix(
    ctx: &Context,
    t: &mut TreeBuffers,
    tree: &Tree,
) -> Result<(), Error> {
    if t.rootfix.is_some() {
        return Ok(());
    }
    let n = tree.len();
    let height = tree.num_levels() - 1;
    let widest = (0..height).map(|d| tree.level(d).len()).max().unwrap_or(1);
    let sizes = level_sizes(widest);
    assert!(sizes.len() <= MAXK);
    let k_levels = sizes.len();
    let csr = t.csr(ctx, tree)?.clone();
    use wgpu::BufferUsages as U;
    let queues = [
        ctx.buffer("rootfix frontier queue", n, n, U::COPY_DST)?,
        ctx.buffer("rootfix frontier queue", n, n, U::empty())?,
    ];
    let mut scan: Vec<wgpu::Buffer> = sizes
        .iter()
        .map(|&len| ctx.buffer("rootfix degree prefix sum", len, n, U::empty()))
        .collect::<Result<_, _>>()?;
    scan.push(ctx.buffer("rootfix degree total", 1, n, U::empty())?);
    let ctl_buffer = || ctx.buffer("rootfix control", CTL_WORDS, n, U::INDIRECT | U::COPY_DST);
    let ctl = [ctl_buffer()?, ctl_buffer()?];
    let enqueued = ctx.buffer("rootfix enqueue counter", 1, n, U::COPY_SRC | U::COPY_DST)?;
    let params: Vec<wgpu::Buffer> = (0..k_levels)
        .map(|k| ctx.uniform("rootfix scan level", &[n as u32, k as u32, k_levels as u32]))
        .collect();
    let p = &ctx.pipelines;
    let degrees = [0, 1].map(|q| {
        ctx.bind(
            &p.frontier_degrees,
            &[
                (1, &csr),
                (2, &queues[q]),
                (3, &scan[0]),
                (4, &scan[1]),
                (5, &ctl[q]),
                (6, &ctl[1 - q]),
            ],
        )
    });
    let blocks = (1..k_levels)
        .map(|k| {
            [0, 1].map(|q| {
                ctx.bind(
                    &p.frontier_blocks,
                    &[
                        (0, &params[k]),
                        (3, &scan[k]),
                        (4, &scan[k + 1]),
                        (5, &ctl[q]),
                        (6, &ctl[1 - q]),
                    ],
                )
            })
        })
        .collect();
    let adds = (0..k_levels - 1)
        .map(|k| {
            [0, 1].map(|q| {
                ctx.bind(
                    &p.frontier_add,
                    &[
                        (0, &params[k]),
                        (3, &scan[k]),
                        (4, &scan[k + 1]),
                        (5, &ctl[q]),
                    ],
                )
            })
        })
        .collect();
    let expand = [0, 1].map(|q| {
        ctx.bind(
            &p.frontier_expand,
            &[
                (0, &params[0]),
                (1, &csr),
                (2, &queues[q]),
                (3, &scan[0]),
                (4, &t.w),
                (5, &t.out),
                (6, &queues[1 - q]),
                (7, &ctl[1 - q]),
                (8, &enqueued),
            ],
        )
    });
    let [queue0, queue1] = queues;
    let mut buffers = vec![queue1];
    buffers.extend(scan);
    buffers.extend(params);
    t.rootfix = Some(RootfixTree {
        height,
        scan_levels: k_levels,
        ctl,
        queue0,
        enqueued,
        degrees,
        blocks,
        adds,
        expand,
        _buffers: buffers,
    });
    Ok(())
}

/// Records every BFS level (indirect dispatches) and submits them.
pub(crate) fn run_rootfix(ctx: &Context, t: &TreeBuffers) {
    let r = t.rootfix.as_ref().expect("prepared");
    let p = &ctx.pipelines;
    let q = &ctx.queue;
    q.write_buffer(&r.ctl[0], 0, bytemuck::cast_slice(&initial_ctl()));
    q.write_buffer(&r.queue0, 0, bytemuck::cast_slice(&[t.root]));
    q.write_buffer(&r.enqueued, 0, bytemuck::cast_slice(&[0u32]));
    let per_level = 2 * r.scan_levels;
    let levels_per_submit = (DISPATCHES_PER_SUBMIT / per_level).max(1);
    let mut level = 0;
    loop {
        let first = level == 0;
        let end = (level + levels_per_submit).min(r.height);
        let last = end == r.height;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        if first {
            // r[root] = w[root].
            let at = 4 * t.root as u64;
            encoder.copy_buffer_to_buffer(&t.w, at, &t.out, at, 4);
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("parallel rootfix"),
                timestamp_writes: ctx.pass_timestamps(first, last),
            });
            for l in level..end {
                let (cur, next) = (l % 2, 1 - l % 2);
                let offset = |i: usize| 4 * i as u64;
                // The top scan level has at most one tile whatever the frontier: a direct
                // dispatch of one workgroup (it returns at once when its level is empty).
                // The levels below it need the GPU-computed sizes: indirect.
                let top = r.scan_levels - 1;
                pass.set_pipeline(&p.frontier_degrees);
                pass.set_bind_group(0, &r.degrees[cur], &[]);
                if top == 0 {
                    pass.dispatch_workgroups(1, 1, 1);
                } else {
                    pass.dispatch_workgroups_indirect(&r.ctl[cur], offset(SCAN_ARGS));
                }
                if r.scan_levels > 1 {
                    pass.set_pipeline(&p.frontier_blocks);
                    for k in 1..r.scan_levels {
                        pass.set_bind_group(0, &r.blocks[k - 1][cur], &[]);
                        if k == top {
                            pass.dispatch_workgroups(1, 1, 1);
                        } else {
                            pass.dispatch_workgroups_indirect(
                                &r.ctl[cur],
                                offset(SCAN_ARGS + 3 * k),
                            );
                        }
                    }
                    pass.set_pipeline(&p.frontier_add);
                    for k in (0..r.scan_levels - 1).rev() {
                        pass.set_bind_group(0, &r.adds[k][cur], &[]);
                        pass.dispatch_workgroups_indirect(&r.ctl[cur], offset(ADD_ARGS + 3 * k));
                    }
                }
                pass.set_pipeline(&p.frontier_expand);
                pass.set_bind_group(0, &r.expand[cur], &[]);
                pass.dispatch_workgroups_indirect(&r.ctl[next], offset(EXPAND_ARGS));
            }
        }
        if last {
            ctx.resolve_timestamps(&mut encoder);
        }
        q.submit([encoder.finish()]);
        level = end;
        if last {
            break;
        }
    }
}

/// Per-tree buffers of the bottom-up gather.
pub(crate) struct LeaffixTree {
    /// Every dispatch, deepest level first: (start, size) of the level in `levels`, and the
    /// children [first, last) gathered (one chunk of a high-degree vertex's children).
    dispatches: Vec<[u32; 4]>,
    /// One dispatch's `[u32; 4]` per dispatch of a submission, `stride` bytes apart.
    level_params: wgpu::Buffer,
    stride: u64,
    bind: wgpu::BindGroup,
    _levels: wgpu::Buffer,
}

pub(crate) fn prepare_leaffix(
    ctx: &Context,
    t: &mut TreeBuffers,
    tree: &Tree,
) -> Result<(), Error> {
    if t.leaffix.is_some() {
        return Ok(());
    }
    let n = tree.len();
    let csr = t.csr(ctx, tree)?.clone();
    let mut order = Vec::with_capacity(n);
    let mut ranges = Vec::with_capacity(tree.num_levels());
    for d in 0..tree.num_levels() {
        let level = tree.level(d);
        let degree = level
            .iter()
            .map(|&v| tree.children(v).len() as u32)
            .max()
            .unwrap_or(0);
        ranges.push((order.len() as u32, level.len() as u32, degree));
        order.extend_from_slice(level);
    }
    let dispatches = ranges
        .iter()
        .rev()
        .flat_map(|&(start, size, degree)| {
            (0..degree.div_ceil(GATHER_CHUNK).max(1))
                .map(move |c| [start, size, c * GATHER_CHUNK, (c + 1) * GATHER_CHUNK])
        })
        .collect();
    let levels = ctx.buffer_init("leaffix levels", &order, n, wgpu::BufferUsages::empty())?;
    let stride = (ctx.limits.min_uniform_buffer_offset_alignment as u64).max(16);
    let level_params = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("leaffix level ranges"),
        size: stride * DISPATCHES_PER_SUBMIT as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("leaffix gather"),
        layout: &ctx.pipelines.gather_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: t.params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &level_params,
                    offset: 0,
                    size: wgpu::BufferSize::new(16),
                }),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: csr.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: levels.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: t.w.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 5,
                resource: t.out.as_entire_binding(),
            },
        ],
    });
    t.leaffix = Some(LeaffixTree {
        dispatches,
        level_params,
        stride,
        bind,
        _levels: levels,
    });
    Ok(())
}

/// Records one dispatch per level, deepest first, and submits them.
pub(crate) fn run_leaffix(ctx: &Context, t: &TreeBuffers) {
    let lf = t.leaffix.as_ref().expect("prepared");
    let chunks: Vec<&[[u32; 4]]> = lf.dispatches.chunks(DISPATCHES_PER_SUBMIT).collect();
    let words = (lf.stride / 4) as usize;
    for (c, chunk) in chunks.iter().enumerate() {
        let mut data = vec![0u32; chunk.len() * words];
        for (i, d) in chunk.iter().enumerate() {
            data[i * words..i * words + 4].copy_from_slice(d);
        }
        // Written before this submission runs, after the previous one has (queue order).
        ctx.queue
            .write_buffer(&lf.level_params, 0, bytemuck::cast_slice(&data));
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("parallel leaffix"),
                timestamp_writes: ctx.pass_timestamps(c == 0, c + 1 == chunks.len()),
            });
            pass.set_pipeline(&ctx.pipelines.gather);
            for (i, &[_, size, _, _]) in chunk.iter().enumerate() {
                let (x, y) = ctx.fold(size.div_ceil(WG));
                pass.set_bind_group(0, &lf.bind, &[(i as u64 * lf.stride) as u32]);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        if c + 1 == chunks.len() {
            ctx.resolve_timestamps(&mut encoder);
        }
        ctx.queue.submit([encoder.finish()]);
    }
}
