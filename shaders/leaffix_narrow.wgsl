// Parallel leaffix, narrow levels: one workgroup walks windows of consecutive levels held in workgroup memory, deepest first, a barrier per level (none for levels of a few vertices, done by one invocation); CPU twin: analysis::orders::tree::leaffix_parallel.
//
// Same additions as leaffix_level.wgsl, l[i] = ((w[i] + l[c1]) + l[c2]) + … in child order,
// level after level from the deepest. A window holds its levels' weights and child ranges,
// and the values of its levels and of the level below it (read from l, written by an earlier
// window or dispatch): the children of every vertex of the window are in workgroup memory.

override WG: u32;
// Values (and child starts, level starts) a window holds.
override NARROW_CAP: u32;

@group(0) @binding(0) var<uniform> run: WindowDispatch;
@group(0) @binding(1) var<storage, read> windows: array<Window>;
@group(0) @binding(2) var<storage, read> steps: array<Step>;
@group(0) @binding(3) var<storage, read> level_start: array<u32>;
@group(0) @binding(4) var<storage, read> child_start: array<u32>;
@group(0) @binding(5) var<storage, read> w: array<f32>;
@group(0) @binding(6) var<storage, read_write> l: array<f32>;

var<workgroup> sh_start: array<u32, NARROW_CAP>;
var<workgroup> sh_child: array<u32, NARROW_CAP>;
var<workgroup> sh_w: array<f32, NARROW_CAP>;
var<workgroup> sh_l: array<f32, NARROW_CAP>;

fn vertex(i: u32, v0: u32) {
    var acc = sh_w[i - v0];
    let end = sh_child[i - v0 + 1u];
    for (var c = sh_child[i - v0]; c < end; c = c + 1u) {
        acc = acc_add(acc, sh_l[c - v0]);
    }
    sh_l[i - v0] = acc;
}

// Vertices [a, b) by one invocation, last first. The last result stays in a register for its
// parent (a chain's next vertex), and the next vertex's child range and weight are loaded
// before this one is gathered: the dependent additions set the pace. Same additions, same
// order as `vertex`.
fn serial(a: u32, b: u32, v0: u32) {
    var last = NONE;
    var carry = 0.0;
    var v = b;
    var end = sh_child[b - v0];
    var nb = 0u;
    var nw = 0.0;
    if v > a {
        nb = sh_child[v - 1u - v0];
        nw = sh_w[v - 1u - v0];
    }
    while v > a {
        v = v - 1u;
        let begin = nb;
        var acc = nw;
        if v > a {
            nb = sh_child[v - 1u - v0];
            nw = sh_w[v - 1u - v0];
        }
        for (var c = begin; c < end; c = c + 1u) {
            var x: f32;
            if c == last {
                x = carry;
            } else {
                x = sh_l[c - v0];
            }
            acc = acc_add(acc, x);
        }
        sh_l[v - v0] = acc;
        last = v;
        carry = acc;
        end = begin;
    }
}

@compute @workgroup_size(WG)
fn leaffix_narrow(@builtin(local_invocation_index) t: u32) {
    for (var k = run.window_first; k < run.window_end; k = k + 1u) {
        let win = windows[k];
        let v0 = win.vertex_first;
        let levels = win.level_end - win.level_first;
        for (var j = t; j <= levels; j = j + WG) {
            sh_start[j] = level_start[win.level_first + j];
        }
        // Four loads of each array in flight per invocation (one workgroup has one SM's
        // memory parallelism; the window's loads would otherwise wait in turn). Positions
        // [v0, stage_end): child starts up to vertex_end (inclusive), weights below it, the
        // values of the level below from it.
        let e = win.vertex_end;
        let se = win.stage_end;
        for (var i = v0 + t; i <= se; i = i + 4u * WG) {
            var c = vec4<u32>(0u);
            var x = vec4<f32>(0.0);
            var y = vec4<f32>(0.0);
            for (var k = 0u; k < 4u; k = k + 1u) {
                let j = min(i + k * WG, se);
                c[k] = child_start[min(j, e)];
                x[k] = w[min(j, e - 1u)];
                y[k] = l[min(j, se - 1u)];
            }
            for (var k = 0u; k < 4u; k = k + 1u) {
                let j = i + k * WG;
                if j <= e {
                    sh_child[j - v0] = c[k];
                }
                if j < e {
                    sh_w[j - v0] = x[k];
                } else if j < se {
                    sh_l[j - v0] = y[k];
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
                for (var d = d1; d > d0; d = d - 1u) {
                    for (var i = sh_start[d - 1u] + t; i < sh_start[d]; i = i + WG) {
                        vertex(i, v0);
                    }
                    workgroupBarrier();
                }
            }
        }
        for (var i = v0 + t; i < win.vertex_end; i = i + WG) {
            l[i] = sh_l[i - v0];
        }
        // The next window reads l at its lowest level, and reuses workgroup memory.
        storageBarrier();
        workgroupBarrier();
    }
}
