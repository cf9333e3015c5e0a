//! The typed contract between the host and the shaders: every struct a shader reads from a
//! buffer is defined once, here, as a `#[repr(C)]` [`bytemuck::Pod`] struct, and its WGSL
//! declaration is generated from the same definition ([`WGSL_STRUCTS`], prepended to every
//! shader by the registry). Fields are `u32` only, so the Rust and WGSL layouts agree by
//! construction (4-byte fields, no padding); uniform structs are a multiple of 16 bytes.

/// Marks "no vertex / no slot" in every index field (parents of roots, absent scan levels).
pub(crate) const NONE: u32 = u32::MAX;

macro_rules! gpu_structs {
    ($(
        $(#[doc = $doc:literal])*
        struct $name:ident { $($(#[doc = $fdoc:literal])* $field:ident),* $(,)? }
    )*) => {
        $(
            $(#[doc = $doc])*
            #[repr(C)]
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
            pub(crate) struct $name {
                $($(#[doc = $fdoc])* pub $field: u32,)*
            }
            const _: () = assert!(std::mem::size_of::<$name>() % 16 == 0);
        )*
        /// The WGSL declarations of the structs above (same names, same fields, same order).
        pub(crate) const WGSL_STRUCTS: &str = concat!(
            $("struct ", stringify!($name), " {\n", $("    ", stringify!($field), ": u32,\n",)* "}\n",)*
        );
    };
}

gpu_structs! {
    /// One wide level of the level-synchronous kernels (one dispatch, dynamic uniform offset):
    /// vertices `[vertex_first, vertex_end)` in breadth-first labels get a thread each, and
    /// workgroups `0 .. task_end - task_first` gather `tasks[task_first ..]` (leaffix).
    struct LevelDispatch { vertex_first, vertex_end, task_first, task_end }

    /// One dispatch of the narrow-level kernels: a single workgroup walks
    /// `windows[window_first .. window_end]` in order.
    struct WindowDispatch { window_first, window_end, pad0, pad1 }

    /// Consecutive levels `[level_first, level_end)` whose vertices (and, for leaffix, the
    /// children of the deepest one: `[vertex_end, stage_end)`) fit in workgroup memory.
    /// Vertices `[vertex_first, vertex_end)` in breadth-first labels; `steps[step_first ..
    /// step_end]` in processing order.
    struct Window { level_first, level_end, vertex_first, vertex_end, stage_end, step_first, step_end, pad0 }

    /// Levels `[level_first, level_end)` of a window processed alike: `serial` = 1 by one
    /// invocation without barriers (levels of a few vertices), 0 by the whole workgroup with
    /// one barrier per level. Leaffix walks them deepest first.
    struct Step { level_first, level_end, serial, pad0 }

    /// A high-degree vertex gathered by a whole workgroup: children `[child_first,
    /// child_end)` (breadth-first labels, in child order) added to `w[vertex]`, or to the
    /// running sum in `l[vertex]` when `resume` = 1 (the next chunk of the same vertex).
    struct GatherTask { vertex, child_first, child_end, resume }

    /// Vertex count of a vertex-parallel kernel (vectorial write and read, copy baseline).
    /// `zero` is always 0: see ScanLevel; `unit`: see ScanLevel.
    struct VertexCount { n, zero, unit, pad2 }

    /// One level of the scan plan: `tiles` tiles of `analysis::scan_plan::TILE` elements.
    /// `zero` is always 0, a value the shader compiler cannot know: the float-float prelude
    /// XORs it into its error-free transformations so that no compiler rewrites (a + b) − b
    /// into a (Mesa's NIR does, WGSL having no `precise`). `unit`: the exponent of the
    /// fixed point's unit (an i32's bits) of the exact scan's sums, 0 for the float scans.
    struct ScanLevel { tiles, zero, unit, pad2 }

    /// One tile of a scan level (trees of a forest have segments of their own, aligned to
    /// tiles): `valid` elements (the rest is the plan's zero padding), its total goes to
    /// `total_dst` one level up, and its uniform add takes `prefix_src` one level up (`NONE`
    /// for the first tile of a segment, or a segment with no level above).
    struct TileInfo { valid, total_dst, prefix_src, pad0 }

    /// One level of a traced addition program (contraction): additions `[add_first,
    /// add_end)`, addition k writing slot `first_slot + k`.
    struct AdditionLevel { add_first, add_end, first_slot, pad0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wgsl_mirrors_the_rust_structs() {
        assert!(WGSL_STRUCTS.contains(
            "struct Window {\n    level_first: u32,\n    level_end: u32,\n    vertex_first: u32,\n"
        ));
        assert_eq!(std::mem::size_of::<Window>(), 32);
        assert_eq!(std::mem::size_of::<LevelDispatch>(), 16);
        // Every declared field is a u32 of the WGSL struct.
        let fields = WGSL_STRUCTS.matches(": u32,").count();
        let bytes = [
            std::mem::size_of::<LevelDispatch>(),
            std::mem::size_of::<WindowDispatch>(),
            std::mem::size_of::<Window>(),
            std::mem::size_of::<Step>(),
            std::mem::size_of::<GatherTask>(),
            std::mem::size_of::<VertexCount>(),
            std::mem::size_of::<ScanLevel>(),
            std::mem::size_of::<TileInfo>(),
            std::mem::size_of::<AdditionLevel>(),
        ]
        .iter()
        .sum::<usize>();
        assert_eq!(4 * fields, bytes);
    }
}
