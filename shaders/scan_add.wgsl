// Scan plan stage 3 (uniform add): every element of tile k >= 1 becomes block_prefix[k-1] + x.

const TILE: u32 = 1024u;

struct Params {
    // Elements at this level.
    len: u32,
    // Tiles at this level; workgroup g serves tile g + 1.
    tiles: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<f32>;
// The inclusive scan of this level's tile totals (the level above, already complete).
@group(0) @binding(2) var<storage, read> block_prefix: array<f32>;

@compute @workgroup_size(256)
fn scan_add(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let tile = wid.y * nwg.x + wid.x + 1u;
    if tile >= params.tiles {
        return;
    }
    let p = block_prefix[tile - 1u];
    for (var j = 0u; j < 4u; j = j + 1u) {
        let i = tile * TILE + j * 256u + t;
        if i < params.len {
            data[i] = p + data[i];
        }
    }
}
