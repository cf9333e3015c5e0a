// Bandwidth baseline for `accuracy bench` (no CPU twin): dst[i] = src[i], a thread per word, coalesced.

override WG: u32;

@group(0) @binding(0) var<uniform> count: VertexCount;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(WG)
fn copy(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let i = group_index(wid, nwg) * WG + t;
    if i < count.n {
        dst[i] = src[i];
    }
}
