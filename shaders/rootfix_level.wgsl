// Parallel rootfix, one wide level (a thread per vertex, breadth-first labels): r[i] = r[parent i] + w[i]; CPU twin: analysis::orders::tree::rootfix_parallel.
//
// Vertices are relabelled in breadth-first order when the tree is uploaded (weights and
// results permuted on the way in and out, permute.wgsl), so a level is a contiguous range and
// its parents a nondecreasing run of the level above: every access is coalesced. The root
// (parent NONE) copies its weight, as the twin does.

override WG: u32;

@group(0) @binding(0) var<uniform> level: LevelDispatch;
@group(0) @binding(1) var<storage, read> parent: array<u32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<storage, read_write> r: array<f32>;

@compute @workgroup_size(WG)
fn rootfix_level(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let i = level.vertex_first + group_index(wid, nwg) * WG + t;
    if i >= level.vertex_end {
        return;
    }
    let p = parent[i];
    var x = w[i];
    if p != NONE {
        x = acc_add(r[p], x);
    }
    r[i] = x;
}
