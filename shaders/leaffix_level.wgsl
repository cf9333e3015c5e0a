// Parallel leaffix, one wide level: l[i] = ((w[i] + l[c1]) + l[c2]) + … in child order, a thread per vertex and a workgroup per high-degree vertex whose children are staged through workgroup memory; CPU twin: analysis::orders::tree::leaffix_parallel (analysis::orders::tree::gather).
//
// Breadth-first labels make the children of a vertex a contiguous range of the level below.
// A thread-per-vertex gather of a high-degree vertex would wait on one global load per
// addition (a star's root: 2^24 of them). Instead the whole workgroup loads the next tile of
// children's values (coalesced, in flight) while invocation 0 adds the current tile from
// workgroup memory in child order: the dependent f32 additions set the pace, in the same
// order as the twin's fold. A vertex with more children than the host's chunk is gathered by
// consecutive dispatches that resume the running sum kept in l[i].

override WG: u32;
// Vertices with at least this many children are gathered by a workgroup (tasks).
override GATHER_MIN_DEGREE: u32;
// Two tiles of WG vec4s (4 children per invocation per tile).
override GATHER_STAGE: u32;

@group(0) @binding(0) var<uniform> level: LevelDispatch;
@group(0) @binding(1) var<storage, read> child_start: array<u32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<storage, read> tasks: array<GatherTask>;
@group(0) @binding(4) var<storage, read_write> l: array<f32>;

var<workgroup> stage: array<vec4<f32>, GATHER_STAGE>;

// This invocation's four children of the tile starting at `base` (zeros past `end`, never added).
fn load4(base: u32, end: u32, t: u32) -> vec4<f32> {
    var x = vec4<f32>(0.0);
    let c = base + 4u * t;
    if c < end { x.x = l[c]; }
    if c + 1u < end { x.y = l[c + 1u]; }
    if c + 2u < end { x.z = l[c + 2u]; }
    if c + 3u < end { x.w = l[c + 3u]; }
    return x;
}

// acc + the first `count` values of the tile at `slot`, one addition at a time, in order.
// Software-pipelined: the next sixteen values are loaded from workgroup memory before the
// current sixteen are added, so the loads' latency hides behind the dependent additions.
fn add_tile(acc0: f32, slot: u32, count: u32) -> f32 {
    var acc = acc0;
    var q = slot;
    let groups = count / 16u;
    if groups > 0u {
        var a = stage[q];
        var b = stage[q + 1u];
        var c = stage[q + 2u];
        var d = stage[q + 3u];
        for (var g = 1u; g < groups; g = g + 1u) {
            q = q + 4u;
            let a2 = stage[q];
            let b2 = stage[q + 1u];
            let c2 = stage[q + 2u];
            let d2 = stage[q + 3u];
            acc = acc_add(acc, a.x); acc = acc_add(acc, a.y); acc = acc_add(acc, a.z); acc = acc_add(acc, a.w);
            acc = acc_add(acc, b.x); acc = acc_add(acc, b.y); acc = acc_add(acc, b.z); acc = acc_add(acc, b.w);
            acc = acc_add(acc, c.x); acc = acc_add(acc, c.y); acc = acc_add(acc, c.z); acc = acc_add(acc, c.w);
            acc = acc_add(acc, d.x); acc = acc_add(acc, d.y); acc = acc_add(acc, d.z); acc = acc_add(acc, d.w);
            a = a2;
            b = b2;
            c = c2;
            d = d2;
        }
        acc = acc_add(acc, a.x); acc = acc_add(acc, a.y); acc = acc_add(acc, a.z); acc = acc_add(acc, a.w);
        acc = acc_add(acc, b.x); acc = acc_add(acc, b.y); acc = acc_add(acc, b.z); acc = acc_add(acc, b.w);
        acc = acc_add(acc, c.x); acc = acc_add(acc, c.y); acc = acc_add(acc, c.z); acc = acc_add(acc, c.w);
        acc = acc_add(acc, d.x); acc = acc_add(acc, d.y); acc = acc_add(acc, d.z); acc = acc_add(acc, d.w);
        q = q + 4u;
    }
    let quads = (count % 16u) / 4u;
    for (var k = 0u; k < quads; k = k + 1u) {
        let a = stage[q];
        acc = acc_add(acc, a.x); acc = acc_add(acc, a.y); acc = acc_add(acc, a.z); acc = acc_add(acc, a.w);
        q = q + 1u;
    }
    let rest = count % 4u;
    if rest > 0u {
        let a = stage[q];
        acc = acc_add(acc, a.x);
        if rest > 1u { acc = acc_add(acc, a.y); }
        if rest > 2u { acc = acc_add(acc, a.z); }
    }
    return acc;
}

fn gather_task(task: GatherTask, t: u32) {
    let tile = 4u * WG;
    let end = task.child_end;
    stage[t] = load4(task.child_first, end, t);
    workgroupBarrier();
    var acc = 0.0;
    if t == 0u {
        if task.resume != 0u {
            acc = l[task.vertex];
        } else {
            acc = w[task.vertex];
        }
    }
    var half = 0u;
    for (var base = task.child_first; base < end; base = base + tile) {
        // The next tile's loads are in flight while invocation 0 adds this one.
        let next = load4(base + tile, end, t);
        if t == 0u {
            acc = add_tile(acc, half * WG, min(tile, end - base));
        }
        stage[(1u - half) * WG + t] = next;
        half = 1u - half;
        workgroupBarrier();
    }
    if t == 0u {
        l[task.vertex] = acc;
    }
}

@compute @workgroup_size(WG)
fn leaffix_level(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let g = group_index(wid, nwg);
    let task_count = level.task_end - level.task_first;
    if g < task_count {
        gather_task(tasks[level.task_first + g], t);
        return;
    }
    let i = level.vertex_first + (g - task_count) * WG + t;
    if i >= level.vertex_end {
        return;
    }
    let begin = child_start[i];
    let end = child_start[i + 1u];
    if end - begin >= GATHER_MIN_DEGREE {
        return;
    }
    var acc = w[i];
    for (var c = begin; c < end; c = c + 1u) {
        acc = acc_add(acc, l[c]);
    }
    l[i] = acc;
}
