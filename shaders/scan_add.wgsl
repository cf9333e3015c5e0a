// Scan plan stage 3 (uniform add) at the block-sum levels: every element of a tile that is not the first of its segment becomes block_prefix[k-1] + x, in the prelude's Sum; CPU twin: analysis::scan_plan::inclusive_scan.
//
// Level 0's uniform add is not a pass of its own: vectorial_read.wgsl performs the same
// addition, block_prefix + x, on the few elements it reads.

override WG: u32;
// Elements per tile (analysis::scan_plan::TILE).
override TILE: u32;

@group(0) @binding(0) var<uniform> scan: ScanLevel;
@group(0) @binding(1) var<storage, read> tiles: array<TileInfo>;
@group(0) @binding(2) var<storage, read_write> data: array<Sum>;
// The inclusive scan of this level's tile totals (the level above, already complete).
@group(0) @binding(3) var<storage, read> block_prefix: array<Sum>;

// The unit of the fixed-point prelude's sums (vectorial-exact); unused by the float ones.
fn exact_unit() -> i32 {
    return bitcast<i32>(scan.unit);
}

// A zero the compiler cannot know (the float-float prelude's `opaque`).
fn opaque_zero() -> u32 {
    return scan.zero;
}

@compute @workgroup_size(WG)
fn scan_add(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let g = group_index(wid, nwg);
    if g >= scan.tiles {
        return;
    }
    let info = tiles[g];
    if info.prefix_src == NONE {
        return;
    }
    let p = block_prefix[info.prefix_src];
    let base = g * TILE;
    for (var j = t; j < info.valid; j = j + WG) {
        data[base + j] = sum_add(p, data[base + j]);
    }
}
