// Vectorial stage 3 (read): from the inclusive scan S, rootfix r[v] = S[open v]; leaffix l[v] = S[close v] - S[open v - 1] with S[-1] = 0.

struct Params {
    // Number of vertices.
    n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> open_pos: array<u32>;
@group(0) @binding(2) var<storage, read> close_pos: array<u32>;
@group(0) @binding(3) var<storage, read> s: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

fn vertex_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * (nwg.x * 256u) + gid.x;
}

@compute @workgroup_size(256)
fn read_rootfix(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let v = vertex_id(gid, nwg);
    if v >= params.n {
        return;
    }
    out[v] = s[open_pos[v]];
}

@compute @workgroup_size(256)
fn read_leaffix(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let v = vertex_id(gid, nwg);
    if v >= params.n {
        return;
    }
    let o = open_pos[v];
    var before = 0.0;
    if o > 0u {
        before = s[o - 1u];
    }
    out[v] = s[close_pos[v]] - before;
}
