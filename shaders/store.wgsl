// The store of a kernel whose results need no relabelling (no CPU twin: it rounds what the kernel left): values[i] = store_round(values[i]), the sums of a wider accumulation format rounded once to the storage format.
//
// Where the labels differ, permute.wgsl's scatter stores them on the way out instead.

override WG: u32;

@group(0) @binding(0) var<uniform> count: VertexCount;
@group(0) @binding(1) var<storage, read_write> values: array<f32>;

@compute @workgroup_size(WG)
fn store(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let i = group_index(wid, nwg) * WG + t;
    if i < count.n {
        values[i] = store_round(values[i]);
    }
}
