// Vectorial stage 1 (write): the Euler-tour vector E, rootfix E[open v] = w, E[close v] = -w; leaffix E[open v] = w, E[close v] = 0.

struct Params {
    // Number of vertices.
    n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> open_pos: array<u32>;
@group(0) @binding(2) var<storage, read> close_pos: array<u32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read_write> e: array<f32>;

// One thread per vertex; dispatches wider than the device limit are folded into 2D.
fn vertex_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * (nwg.x * 256u) + gid.x;
}

@compute @workgroup_size(256)
fn write_rootfix(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let v = vertex_id(gid, nwg);
    if v >= params.n {
        return;
    }
    let x = w[v];
    e[open_pos[v]] = x;
    // Negation is exact; w = +0 gives -0, exactly as the CPU twin's `-w[v]`.
    e[close_pos[v]] = -x;
}

@compute @workgroup_size(256)
fn write_leaffix(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let v = vertex_id(gid, nwg);
    if v >= params.n {
        return;
    }
    e[open_pos[v]] = w[v];
    e[close_pos[v]] = 0.0;
}
