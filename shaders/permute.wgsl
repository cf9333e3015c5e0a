// Relabeling on the way in and out (no CPU twin: it moves values and adds nothing): gather dst[i] = src[orig[i]] puts the weights in a kernel's labels, scatter dst[orig[i]] = src[i] puts its results back in the tree's labels, each value stored in the storage format (store_round).
//
// The kernels then read and write in their own labels (breadth-first or preorder) with
// coalesced accesses whatever the topology; the permutation's scattered accesses happen once
// per call, in these two passes, and are skipped when the labels are the tree's own. The
// store's rounding is the identity on weights (already of the storage format) and on results
// a read rounded; on sums left in a wider accumulation format it is the kernel's store
// (store.wgsl does it in place where no scatter runs).

override WG: u32;

@group(0) @binding(0) var<uniform> count: VertexCount;
@group(0) @binding(1) var<storage, read> orig: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;
@group(0) @binding(3) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(WG)
fn gather(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let i = group_index(wid, nwg) * WG + t;
    if i < count.n {
        dst[i] = store_round(src[orig[i]]);
    }
}

@compute @workgroup_size(WG)
fn scatter(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let i = group_index(wid, nwg) * WG + t;
    if i < count.n {
        dst[orig[i]] = store_round(src[i]);
    }
}
