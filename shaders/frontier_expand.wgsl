// Parallel rootfix, one BFS level: one thread per child slot of the frontier (found through the degree prefix sum) computes r[j] = r[i] + w[j] and enqueues j in the output queue.
//
// Queue positions come from the prefix sum, so the output queue holds the next level in
// frontier (breadth-first) order; an atomic counter counts every enqueued vertex (one
// atomicAdd per workgroup), a check that the GPU-computed frontier sizes cover the tree.

const WG: u32 = 256u;
const LEN: u32 = 0u;
const PREV_COUNT: u32 = 31u;

struct Params {
    n: u32,
    level: u32,
    levels: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> csr: array<u32>;
@group(0) @binding(2) var<storage, read> qin: array<u32>;
// Inclusive prefix sum of the degrees of qin.
@group(0) @binding(3) var<storage, read> incl: array<u32>;
@group(0) @binding(4) var<storage, read> w: array<f32>;
@group(0) @binding(5) var<storage, read_write> r: array<f32>;
@group(0) @binding(6) var<storage, read_write> qout: array<u32>;
// Control block written by this level's scan: [LEN] = children T, [PREV_COUNT] = |qin|.
@group(0) @binding(7) var<storage, read> ctl: array<u32>;
@group(0) @binding(8) var<storage, read_write> enqueued: atomic<u32>;

@compute @workgroup_size(256)
fn expand(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let g = (wid.y * nwg.x + wid.x) * WG + t;
    let total = ctl[LEN];
    if g >= total {
        return;
    }
    if t == 0u {
        atomicAdd(&enqueued, min(WG, total - g));
    }
    // The frontier vertex owning slot g: the first i with incl[i] > g.
    var lo = 0u;
    var hi = ctl[PREV_COUNT] - 1u;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if incl[mid] > g {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    let i = qin[lo];
    let first = csr[i];
    let degree = csr[i + 1u] - first;
    let j = csr[params.n + 1u + first + (g - (incl[lo] - degree))];
    r[j] = r[i] + w[j];
    qout[g] = j;
}
