// Prepended to every kernel after the generated structs of src/gpu/types.rs: the "no vertex" marker and 2D dispatch folding.

const NONE: u32 = 0xffffffffu;

// Linear workgroup index of a dispatch folded into 2D above the device's per-dimension limit
// (the host's `fold`: x workgroups per row, rows of equal width).
fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}
