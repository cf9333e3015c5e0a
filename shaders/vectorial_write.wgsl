// Vectorial stage 1 (write), a thread per vertex in preorder labels: rootfix E[open v] = w, E[close v] = -w; leaffix E[open v] = w, E[close v] = 0; CPU twin: kernels::vectorial::write.
//
// Vertices are relabelled in preorder when the tree is uploaded: open positions then increase
// with the label and most close positions are near them, so the writes to E are nearly
// coalesced whatever the topology. Positions are global in a forest (each tree's Euler-tour
// segment starts on a tile boundary); bit 31 of `open` marks a root.

override WG: u32;

@group(0) @binding(0) var<uniform> count: VertexCount;
@group(0) @binding(1) var<storage, read> orig: array<u32>;
@group(0) @binding(2) var<storage, read> pos: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read_write> e: array<f32>;

const ROOT_BIT: u32 = 0x80000000u;

@compute @workgroup_size(WG)
fn write_rootfix(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let i = group_index(wid, nwg) * WG + t;
    if i >= count.n {
        return;
    }
    let p = pos[i];
    let x = w[orig[i]];
    e[p.x & ~ROOT_BIT] = x;
    // Negation is exact; w = +0 gives -0, exactly as the twin's `-w[v]`.
    e[p.y] = -x;
}

@compute @workgroup_size(WG)
fn write_leaffix(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let i = group_index(wid, nwg) * WG + t;
    if i >= count.n {
        return;
    }
    let p = pos[i];
    e[p.x & ~ROOT_BIT] = w[orig[i]];
    e[p.y] = 0.0;
}
