// Chained scan plan stage 2: each segment's tile totals scanned left to right, P_k = P_{k-1} + T_k, one workgroup per segment (invocation 0 adds, the workgroup loads and stores), in the prelude's Sum; CPU twin: analysis::scan_plan::chained_scan_tiles.
//
// The chain is the point: every tile prefix extends the previous one, so prefixes in
// different tiles share the chain's roundings. Its length is the segment's tile count (2^15
// for 2^24 vertices), dependent adds read from workgroup memory that the whole workgroup
// filled with coalesced loads.

override WG: u32;
// Elements per chunk held in workgroup memory (analysis::scan_plan::TILE).
override TILE: u32;

@group(0) @binding(0) var<uniform> count: VertexCount;
// (first element, length) of each segment at level 1.
@group(0) @binding(1) var<storage, read> segments: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> data: array<Sum>;

var<workgroup> chunk: array<Sum, TILE>;

// The unit of the fixed-point prelude's sums; unused by the float ones.
fn exact_unit() -> i32 {
    return bitcast<i32>(count.unit);
}

// A zero the compiler cannot know (the float-float prelude's `opaque`).
fn opaque_zero() -> u32 {
    return count.zero;
}

@compute @workgroup_size(WG)
fn scan_chain(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let g = group_index(wid, nwg);
    if g >= count.n {
        return;
    }
    let seg = segments[g];
    // Invocation 0's running prefix P_k.
    var acc = sum_zero();
    for (var base = 0u; base < seg.y; base = base + TILE) {
        let m = min(TILE, seg.y - base);
        for (var j = t; j < m; j = j + WG) {
            chunk[j] = data[seg.x + base + j];
        }
        workgroupBarrier();
        if t == 0u {
            var i = 0u;
            if base == 0u {
                // P_0 = T_0.
                acc = chunk[0];
                i = 1u;
            }
            for (; i < m; i = i + 1u) {
                acc = sum_add(acc, chunk[i]);
                chunk[i] = acc;
            }
        }
        workgroupBarrier();
        for (var j = t; j < m; j = j + WG) {
            data[seg.x + base + j] = chunk[j];
        }
        workgroupBarrier();
    }
}
