// Parallel leaffix, one level per dispatch (bottom-up): each vertex of the level gathers its children in child order, l[v] = ((w[v] + l[c1]) + l[c2]) + ...

struct Params {
    n: u32,
}

// This dispatch's level: vertices levels[start .. start + size] (dynamic uniform offset), and
// the children [first, last) (positions in child order) it gathers.
//
// A vertex with more children than the host's chunk (16384) is gathered over several dispatches
// of the same level, each continuing the running sum left in l[v]: the additions and their
// order are exactly the sequential fold's. (Mesa's llvmpipe stops any shader invocation after
// 65535 loop iterations in all; a star's root has 2^20 children. It also keeps every invocation
// short on GPUs with a watchdog.)
struct Level {
    start: u32,
    size: u32,
    first: u32,
    last: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> level: Level;
@group(0) @binding(2) var<storage, read> csr: array<u32>;
@group(0) @binding(3) var<storage, read> levels: array<u32>;
@group(0) @binding(4) var<storage, read> w: array<f32>;
@group(0) @binding(5) var<storage, read_write> l: array<f32>;

@compute @workgroup_size(256)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.y * (nwg.x * 256u) + gid.x;
    if i >= level.size {
        return;
    }
    let v = levels[level.start + i];
    let begin = csr[v];
    let end = csr[v + 1u];
    var acc = w[v];
    if level.first > 0u {
        if begin + level.first >= end {
            return;
        }
        acc = l[v];
    }
    let stop = min(end, begin + level.last);
    for (var c = begin + level.first; c < stop; c = c + 1u) {
        acc = acc + l[csr[params.n + 1u + c]];
    }
    l[v] = acc;
}
