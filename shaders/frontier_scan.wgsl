// Parallel rootfix load balancing: inclusive u32 prefix sum of the frontier's out-degrees (tiles of 1024, block sums one level up, uniform add); the top level writes the next dispatch sizes.
//
// Merrill, Garland & Grimshaw's load-balanced BFS expansion: the prefix sum over the degrees of
// the frontier gives every child of every frontier vertex its own slot, so `frontier_expand`
// runs one thread per child (a star's 2^20 children are expanded by 2^20 threads, not by one).
// Frontier sizes live on the GPU only: the single-tile (top) level of the scan knows the number
// of children T, and writes the indirect dispatch arguments of this level's uniform adds and
// expansion and of the next level's scan into the next control block. No CPU round trip.
//
// Control block (array<u32>, one per parity of the BFS level):
//   [LEN + k]            elements at scan level k (LEN + 0 = frontier size)
//   [SCAN_ARGS + 3k ..]  indirect dispatch (x, y, z) of scan level k
//   [ADD_ARGS + 3k ..]   indirect dispatch of the uniform add into level k from level k + 1
//   [EXPAND_ARGS ..]     indirect dispatch of the expansion (one thread per child)
//   [PREV_COUNT]         size of the frontier being expanded

override MAX_DIM: u32 = 65535u;

const WG: u32 = 256u;
const TILE: u32 = 1024u;
const MAXK: u32 = 4u;
const LEN: u32 = 0u;
const SCAN_ARGS: u32 = 4u;
const ADD_ARGS: u32 = 16u;
const EXPAND_ARGS: u32 = 28u;
const PREV_COUNT: u32 = 31u;

struct Params {
    // Number of vertices (children of v are csr[n + 1 + csr[v] .. n + 1 + csr[v + 1]]).
    n: u32,
    // Scan level k of this dispatch.
    level: u32,
    // Scan levels recorded for this tree.
    levels: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> csr: array<u32>;
@group(0) @binding(2) var<storage, read> qin: array<u32>;
@group(0) @binding(3) var<storage, read_write> data: array<u32>;
@group(0) @binding(4) var<storage, read_write> totals: array<u32>;
@group(0) @binding(5) var<storage, read> ctl_cur: array<u32>;
@group(0) @binding(6) var<storage, read_write> ctl_next: array<u32>;

var<workgroup> s: array<u32, WG>;

// Dispatch size for `groups` workgroups, folded into 2D above the per-dimension limit.
fn fold(groups: u32) -> vec3<u32> {
    if groups <= MAX_DIM {
        return vec3<u32>(groups, 1u, 1u);
    }
    let y = (groups + MAX_DIM - 1u) / MAX_DIM;
    return vec3<u32>((groups + y - 1u) / y, y, 1u);
}

fn put3(i: u32, v: vec3<u32>) {
    ctl_next[i] = v.x;
    ctl_next[i + 1u] = v.y;
    ctl_next[i + 2u] = v.z;
}

// Tile scan: serial scan of 4 items, Kogge-Stone over the thread totals, exclusive prefix added.
// Afterwards s[WG - 1] holds the tile total.
fn scan4(t: u32, v: vec4<u32>) -> vec4<u32> {
    var x = v;
    x.y = x.x + x.y;
    x.z = x.y + x.z;
    x.w = x.z + x.w;
    s[t] = x.w;
    workgroupBarrier();
    for (var d = 1u; d < WG; d = d << 1u) {
        var a = s[t];
        if t >= d {
            a = s[t - d] + a;
        }
        workgroupBarrier();
        s[t] = a;
        workgroupBarrier();
    }
    if t > 0u {
        x = x + vec4<u32>(s[t - 1u]);
    }
    return x;
}

// Called by one thread of the single-tile level: T children in all.
fn write_next(total: u32) {
    ctl_next[PREV_COUNT] = ctl_cur[LEN];
    var len = total;
    for (var k = 0u; k < MAXK; k = k + 1u) {
        let tiles = (len + TILE - 1u) / TILE;
        ctl_next[LEN + k] = len;
        put3(SCAN_ARGS + 3u * k, fold(tiles));
        if k + 1u < MAXK {
            var adds = 0u;
            if tiles > 1u {
                adds = tiles - 1u;
            }
            put3(ADD_ARGS + 3u * k, fold(adds));
        }
        if tiles > 1u {
            len = tiles;
        } else {
            len = 0u;
        }
    }
    put3(EXPAND_ARGS, fold((total + WG - 1u) / WG));
}

fn finish(t: u32, tile: u32, len: u32, x: vec4<u32>) {
    let base = tile * TILE + t * 4u;
    for (var j = 0u; j < 4u; j = j + 1u) {
        if base + j < len {
            data[base + j] = x[j];
        }
    }
    let total = s[WG - 1u];
    if t == WG - 1u {
        totals[tile] = total;
    }
    if len <= TILE && t == 0u {
        write_next(total);
    }
}

// Scan level 0: the out-degree of every frontier vertex.
@compute @workgroup_size(256)
fn scan_degrees(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let tile = wid.y * nwg.x + wid.x;
    let len = ctl_cur[LEN];
    if tile >= (len + TILE - 1u) / TILE {
        return;
    }
    let base = tile * TILE + t * 4u;
    var v = vec4<u32>(0u);
    for (var j = 0u; j < 4u; j = j + 1u) {
        if base + j < len {
            let q = qin[base + j];
            v[j] = csr[q + 1u] - csr[q];
        }
    }
    finish(t, tile, len, scan4(t, v));
}

// Scan levels k >= 1: the tile totals of level k - 1.
@compute @workgroup_size(256)
fn scan_blocks(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let tile = wid.y * nwg.x + wid.x;
    let len = ctl_cur[LEN + params.level];
    if tile >= (len + TILE - 1u) / TILE {
        return;
    }
    let base = tile * TILE + t * 4u;
    var v = vec4<u32>(0u);
    for (var j = 0u; j < 4u; j = j + 1u) {
        if base + j < len {
            v[j] = data[base + j];
        }
    }
    finish(t, tile, len, scan4(t, v));
}

// Uniform add into level k: tile g + 1 adds the inclusive scan of level k + 1 at g.
@compute @workgroup_size(256)
fn scan_add(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let tile = wid.y * nwg.x + wid.x + 1u;
    let len = ctl_cur[LEN + params.level];
    if tile >= (len + TILE - 1u) / TILE {
        return;
    }
    let p = totals[tile - 1u];
    for (var j = 0u; j < 4u; j = j + 1u) {
        let i = tile * TILE + j * WG + t;
        if i < len {
            data[i] = p + data[i];
        }
    }
}
