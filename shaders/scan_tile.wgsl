// Scan plan stage 1 (and block-sum levels): inclusive f32 scan of each 1024-element tile (256 threads x 4 items, Kogge-Stone over thread totals), writing each tile's total.
//
// The order of every addition is the one of analysis/src/scan_plan.rs (`scan_tile`):
// per-thread serial scan, 8 Kogge-Stone steps s[t] = s[t-d] + s[t] for t >= d, then thread
// t > 0 adds the inclusive total of thread t-1 to its items. Elements at or past `len` are
// exact +0.0 padding, as in the plan. The same entry point scans the block sums (the tile
// totals of the level below) one level up.

const WG: u32 = 256u;
const TILE: u32 = 1024u;

struct Params {
    // Elements at this level.
    len: u32,
    // Tiles at this level: ceil(len / TILE).
    tiles: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<f32>;
@group(0) @binding(2) var<storage, read_write> totals: array<f32>;

var<workgroup> s: array<f32, WG>;

@compute @workgroup_size(256)
fn scan_tile(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let tile = wid.y * nwg.x + wid.x;
    if tile >= params.tiles {
        return;
    }
    let base = tile * TILE + t * 4u;
    let len = params.len;
    var x0 = 0.0;
    var x1 = 0.0;
    var x2 = 0.0;
    var x3 = 0.0;
    if base < len { x0 = data[base]; }
    if base + 1u < len { x1 = data[base + 1u]; }
    if base + 2u < len { x2 = data[base + 2u]; }
    if base + 3u < len { x3 = data[base + 3u]; }
    // Serial scan of the thread's four items.
    x1 = x0 + x1;
    x2 = x1 + x2;
    x3 = x2 + x3;
    // Kogge-Stone over the 256 thread totals.
    s[t] = x3;
    workgroupBarrier();
    for (var d = 1u; d < WG; d = d << 1u) {
        var v = s[t];
        if t >= d {
            v = s[t - d] + v;
        }
        workgroupBarrier();
        s[t] = v;
        workgroupBarrier();
    }
    // Thread t > 0 adds the inclusive total of thread t - 1.
    if t > 0u {
        let p = s[t - 1u];
        x0 = p + x0;
        x1 = p + x1;
        x2 = p + x2;
        x3 = p + x3;
    }
    if base < len { data[base] = x0; }
    if base + 1u < len { data[base + 1u] = x1; }
    if base + 2u < len { data[base + 2u] = x2; }
    if base + 3u < len { data[base + 3u] = x3; }
    if t == WG - 1u {
        totals[tile] = s[WG - 1u];
    }
}
