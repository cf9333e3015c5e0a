// Vectorial stage 3 (read), a thread per vertex in preorder labels, with level 0's uniform add: rootfix r[v] = S[open v]; leaffix l[v] = S[close v] - S[open v - 1] with S[-1] = 0, in the prelude's Sum and rounded to f32 once; CPU twin: analysis::orders::euler::read.
//
// `ReadOut` and `finish_read` come with the prelude (src/gpu/shaders.rs): f32 and one
// rounding for the algorithms' results; for the GPU exact reference, the fixed-point Sum
// itself, unrounded (analysis::orders::euler::vectorial_exact before its rounding),
// which the host reads back and permutes to the tree's labels.
//
// S[p] is level 0 after the scan plan's uniform add: the tile scan's X[p], plus
// block_prefix[k-1] (k the tile's index in its segment) when k >= 1 — the same single
// addition the plan performs, done here for the elements read instead of a pass over E.
// Preorder labels make open positions increase with the label: reads and writes are
// coalesced but for the close positions of inner vertices (leaffix). Bit 31 of `open` marks
// a root (each tree of a forest has its own segment, so S[open - 1] would be another tree's).

override WG: u32;
// Elements per tile (analysis::scan_plan::TILE).
override TILE: u32;

@group(0) @binding(0) var<uniform> count: VertexCount;
@group(0) @binding(1) var<storage, read> pos: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> x: array<Sum>;
@group(0) @binding(3) var<storage, read> tiles: array<TileInfo>;
@group(0) @binding(4) var<storage, read> block_prefix: array<Sum>;
@group(0) @binding(5) var<storage, read_write> out: array<ReadOut>;

const ROOT_BIT: u32 = 0x80000000u;

fn scanned(p: u32) -> Sum {
    let src = tiles[p / TILE].prefix_src;
    if src == NONE {
        return x[p];
    }
    return sum_add(block_prefix[src], x[p]);
}

// The unit of the fixed-point prelude's sums (vectorial-exact); unused by the float ones.
fn exact_unit() -> i32 {
    return bitcast<i32>(count.unit);
}

// A zero the compiler cannot know (the float-float prelude's `opaque`).
fn opaque_zero() -> u32 {
    return count.zero;
}

@compute @workgroup_size(WG)
fn read_rootfix(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let i = group_index(wid, nwg) * WG + t;
    if i >= count.n {
        return;
    }
    out[i] = finish_read(scanned(pos[i].x & ~ROOT_BIT));
}

@compute @workgroup_size(WG)
fn read_leaffix(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let i = group_index(wid, nwg) * WG + t;
    if i >= count.n {
        return;
    }
    let p = pos[i];
    let close = scanned(p.y);
    if (p.x & ROOT_BIT) != 0u {
        // S[-1] = 0: nothing to subtract.
        out[i] = finish_read(close);
    } else {
        // S[close] - S[open - 1] in the Sum, rounded once (f32: the same subtraction).
        out[i] = finish_read(sum_add(close, sum_neg(scanned(p.x - 1u))));
    }
}
