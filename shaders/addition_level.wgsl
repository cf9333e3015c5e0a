// Contraction (rake and compress), one level of its traced additions, each independent of the others: slot[first + k] = slot[lhs[k]] + slot[rhs[k]]; CPU twin: analysis::orders::program::AdditionProgram::eval (and analysis::orders::contraction::twin).
//
// The host traces the contraction order into slots (0: +0, 1..=n: the weights, then one slot
// per addition) and groups the additions by depth; a level only reads slots written by
// earlier levels (earlier dispatches), so its additions run in any order with the order's
// operands, and every result has the order's bits. One dispatch per level: O(log n) levels.

override WG: u32;

@group(0) @binding(0) var<uniform> level: AdditionLevel;
@group(0) @binding(1) var<storage, read> lhs: array<u32>;
@group(0) @binding(2) var<storage, read> rhs: array<u32>;
@group(0) @binding(3) var<storage, read_write> slot: array<f32>;

@compute @workgroup_size(WG)
fn addition_level(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let k = level.add_first + group_index(wid, nwg) * WG + t;
    if k >= level.add_end {
        return;
    }
    slot[level.first_slot + k] = acc_add(slot[lhs[k]], slot[rhs[k]]);
}
