// The tile scan's entry points, included by scan_tile.wgsl and by scan_tile_exact.wgsl, each of which defines load_and_scan (how a tile is loaded and scanned); CPU twin: analysis::scan_plan::scan_tile, with analysis::orders::euler::write_with fused into level 0.

// Levels k >= 1: the tile totals of level k - 1.
@compute @workgroup_size(WG)
fn scan_tile(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let g = group_index(wid, nwg);
    if g < scan.tiles {
        load_and_scan(g, t, FROM_TOTALS);
    }
}

// Level 0 of rootfix: E[open v] = w[v], E[close v] = -w[v].
@compute @workgroup_size(WG)
fn scan_tour_rootfix(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let g = group_index(wid, nwg);
    if g < scan.tiles {
        load_and_scan(g, t, ROOTFIX_TOUR);
    }
}

// Level 0 of leaffix: E[open v] = w[v], E[close v] = 0.
@compute @workgroup_size(WG)
fn scan_tour_leaffix(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let g = group_index(wid, nwg);
    if g < scan.tiles {
        load_and_scan(g, t, LEAFFIX_TOUR);
    }
}
