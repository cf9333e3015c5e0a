// Vectorial stage 3 for the exact reference (vectorial-exact's scan, not rounded): a thread per vertex in preorder labels writes rootfix S[open v] or leaffix S[close v] - S[open v - 1] as the fixed-point prelude's limbs, for the host to read back; CPU twin: analysis::orders::euler::vectorial_exact_rounding before its rounding.
//
// The reads are vectorial_read.wgsl's, level 0's uniform add included; only the output
// differs: the exact integer itself (in the preorder labels: the host permutes it).

override WG: u32;
// Elements per tile (analysis::scan_plan::TILE).
override TILE: u32;

@group(0) @binding(0) var<uniform> count: VertexCount;
@group(0) @binding(1) var<storage, read> pos: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> x: array<Sum>;
@group(0) @binding(3) var<storage, read> tiles: array<TileInfo>;
@group(0) @binding(4) var<storage, read> block_prefix: array<Sum>;
@group(0) @binding(5) var<storage, read_write> out: array<Sum>;

const ROOT_BIT: u32 = 0x80000000u;

fn scanned(p: u32) -> Sum {
    let src = tiles[p / TILE].prefix_src;
    if src == NONE {
        return x[p];
    }
    return sum_add(block_prefix[src], x[p]);
}

fn exact_unit() -> i32 {
    return bitcast<i32>(count.unit);
}

@compute @workgroup_size(WG)
fn read_rootfix_limbs(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let i = group_index(wid, nwg) * WG + t;
    if i >= count.n {
        return;
    }
    out[i] = scanned(pos[i].x & ~ROOT_BIT);
}

@compute @workgroup_size(WG)
fn read_leaffix_limbs(
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
        out[i] = close;
    } else {
        out[i] = sum_add(close, sum_neg(scanned(p.x - 1u)));
    }
}
