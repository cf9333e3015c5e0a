//! The GPU's stages as typed ids: one per WGSL stage file of `shaders/` that the host
//! dispatches. A kernel's recipe ([`super::GpuKernel::stages`]) lists the stages the host runs
//! for it, the host builds every pipeline from these ids in one place (`src/gpu/shaders.rs`),
//! and `tests/gpu/limits.rs` checks that the stages a kernel dispatches are those of its recipe.
//!
//! The scan word's prelude (`sum_*.wgsl`, [`super::ScanWord::prelude_file`]) is not a stage:
//! it is compiled in front of the scan stages, never dispatched.

use std::fmt;

/// One WGSL stage file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// One wide level of the level-synchronous rootfix.
    RootfixLevel,
    /// A run of narrow rootfix levels in one workgroup.
    RootfixNarrow,
    /// One wide level of the level-synchronous leaffix.
    LeaffixLevel,
    /// A run of narrow leaffix levels in one workgroup.
    LeaffixNarrow,
    /// The scan plan's tile scan (level 0 built from the Euler tour), on f32 or float-float.
    ScanTile,
    /// The tile scan on fixed-point sums (items in registers).
    ScanTileExact,
    /// The scan plan's uniform add.
    ScanAdd,
    /// The chained plan's tile totals scanned left to right.
    ScanChain,
    /// Every vertex's answer read from the scanned Euler tour.
    VectorialRead,
    /// One level of a traced addition program (contraction).
    AdditionLevel,
    /// Weights into a kernel's labels, results back (gather and scatter).
    Permute,
    /// A plain copy (bench's bandwidth reference).
    Copy,
}

impl Stage {
    /// Every stage, in the order of this enum.
    pub const ALL: [Stage; 12] = [
        Stage::RootfixLevel,
        Stage::RootfixNarrow,
        Stage::LeaffixLevel,
        Stage::LeaffixNarrow,
        Stage::ScanTile,
        Stage::ScanTileExact,
        Stage::ScanAdd,
        Stage::ScanChain,
        Stage::VectorialRead,
        Stage::AdditionLevel,
        Stage::Permute,
        Stage::Copy,
    ];

    /// Its file in `shaders/`.
    pub fn file(self) -> &'static str {
        match self {
            Stage::RootfixLevel => "rootfix_level.wgsl",
            Stage::RootfixNarrow => "rootfix_narrow.wgsl",
            Stage::LeaffixLevel => "leaffix_level.wgsl",
            Stage::LeaffixNarrow => "leaffix_narrow.wgsl",
            Stage::ScanTile => "scan_tile.wgsl",
            Stage::ScanTileExact => "scan_tile_exact.wgsl",
            Stage::ScanAdd => "scan_add.wgsl",
            Stage::ScanChain => "scan_chain.wgsl",
            Stage::VectorialRead => "vectorial_read.wgsl",
            Stage::AdditionLevel => "addition_level.wgsl",
            Stage::Permute => "permute.wgsl",
            Stage::Copy => "copy.wgsl",
        }
    }

    /// Its file's name without `.wgsl` (pipeline labels, messages).
    pub fn name(self) -> &'static str {
        self.file().trim_end_matches(".wgsl")
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.file())
    }
}
