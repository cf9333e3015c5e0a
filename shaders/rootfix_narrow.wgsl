// Parallel rootfix, narrow levels: one workgroup walks windows of consecutive levels held in workgroup memory, a barrier per level (none for levels of a few vertices, done by one invocation); CPU twin: analysis::orders::tree::rootfix_parallel.
//
// Same additions as rootfix_level.wgsl, r[i] = r[parent i] + w[i], level after level; only where
// the values live changes. A window's parents, weights and results are staged in workgroup
// memory with coalesced loads; a parent outside the window (the level above it) is read from
// r, written by an earlier window or dispatch. Results go back to r per window.

override WG: u32;
// Vertices (and level starts) a window holds.
override NARROW_CAP: u32;

@group(0) @binding(0) var<uniform> run: WindowDispatch;
@group(0) @binding(1) var<storage, read> windows: array<Window>;
@group(0) @binding(2) var<storage, read> steps: array<Step>;
@group(0) @binding(3) var<storage, read> level_start: array<u32>;
@group(0) @binding(4) var<storage, read> parent: array<u32>;
@group(0) @binding(5) var<storage, read> w: array<f32>;
@group(0) @binding(6) var<storage, read_write> r: array<f32>;

var<workgroup> sh_start: array<u32, NARROW_CAP>;
var<workgroup> sh_parent: array<u32, NARROW_CAP>;
var<workgroup> sh_w: array<f32, NARROW_CAP>;
var<workgroup> sh_r: array<f32, NARROW_CAP>;

fn vertex(i: u32, v0: u32) {
    let p = sh_parent[i - v0];
    var x = sh_w[i - v0];
    if p != NONE {
        var rp: f32;
        if p >= v0 {
            rp = sh_r[p - v0];
        } else {
            rp = r[p];
        }
        x = acc_add(rp, x);
    }
    sh_r[i - v0] = x;
}

// Vertices [a, b) in order by one invocation. The last result stays in a register for its
// children (a chain's next vertex), and the next vertex's parent and weight are loaded before
// this one is added: the dependent additions, not workgroup-memory latency, set the pace.
fn serial(a: u32, b: u32, v0: u32) {
    var last = NONE;
    var carry = 0.0;
    var np = 0u;
    var nw = 0.0;
    if a < b {
        np = sh_parent[a - v0];
        nw = sh_w[a - v0];
    }
    for (var i = a; i < b; i = i + 1u) {
        let p = np;
        var x = nw;
        if i + 1u < b {
            np = sh_parent[i + 1u - v0];
            nw = sh_w[i + 1u - v0];
        }
        if p != NONE {
            var rp: f32;
            if p == last {
                rp = carry;
            } else if p >= v0 {
                rp = sh_r[p - v0];
            } else {
                rp = r[p];
            }
            x = acc_add(rp, x);
        }
        sh_r[i - v0] = x;
        last = i;
        carry = x;
    }
}

@compute @workgroup_size(WG)
fn rootfix_narrow(@builtin(local_invocation_index) t: u32) {
    for (var k = run.window_first; k < run.window_end; k = k + 1u) {
        let win = windows[k];
        let v0 = win.vertex_first;
        let levels = win.level_end - win.level_first;
        for (var j = t; j <= levels; j = j + WG) {
            sh_start[j] = level_start[win.level_first + j];
        }
        // Four loads of each array in flight per invocation (one workgroup has one SM's
        // memory parallelism; the window's loads would otherwise wait in turn).
        let e = win.vertex_end;
        for (var i = v0 + t; i < e; i = i + 4u * WG) {
            let i1 = min(i + WG, e - 1u);
            let i2 = min(i + 2u * WG, e - 1u);
            let i3 = min(i + 3u * WG, e - 1u);
            let p = vec4<u32>(parent[i], parent[i1], parent[i2], parent[i3]);
            let x = vec4<f32>(w[i], w[i1], w[i2], w[i3]);
            for (var k = 0u; k < 4u; k = k + 1u) {
                let j = i + k * WG;
                if j < e {
                    sh_parent[j - v0] = p[k];
                    sh_w[j - v0] = x[k];
                }
            }
        }
        workgroupBarrier();
        for (var s = win.step_first; s < win.step_end; s = s + 1u) {
            let step = steps[s];
            let d0 = step.level_first - win.level_first;
            let d1 = step.level_end - win.level_first;
            if step.serial != 0u {
                if t == 0u {
                    serial(sh_start[d0], sh_start[d1], v0);
                }
                workgroupBarrier();
            } else {
                for (var d = d0; d < d1; d = d + 1u) {
                    for (var i = sh_start[d] + t; i < sh_start[d + 1u]; i = i + WG) {
                        vertex(i, v0);
                    }
                    workgroupBarrier();
                }
            }
        }
        for (var i = v0 + t; i < win.vertex_end; i = i + WG) {
            r[i] = sh_r[i - v0];
        }
        // The next window reads r at its parents, and reuses workgroup memory.
        storageBarrier();
        workgroupBarrier();
    }
}
