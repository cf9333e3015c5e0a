//! `contraction`: tree contraction, rake and compress (seed 002; Miller & Reif), additions
//! only, every sum of depth O(log n); a rayon twin, and on the GPU its traced additions one
//! level per dispatch.

use super::{Cost, Descriptor, Family, GpuKernel, GpuLayout, Hooks, Stage};
use crate::Op;
use crate::bounds;
use crate::orders::contraction;

pub static DESCRIPTOR: Descriptor = Descriptor {
    name: "contraction",
    short: "con",
    family: Family::Contraction,
    summary: "tree contraction, rake and compress (seed 002, rayon twin, GPU kernel over its traced additions): rounds of seeded random-mate compresses and rakes, then uncontraction; additions only, every sum of depth O(log n)",
    paper: None,
    correctly_rounded: false,
    hooks: Hooks {
        // Both on the tree's schedule, built once per tree (`orders::Walker::schedule`).
        twin: |t, w, op| contraction::twin::twin_on(t.schedule(), w, op),
        walk: bounds::walk_contraction,
    },
    gpu: Some(GpuKernel {
        layout: GpuLayout::Program,
        stages: &[Stage::Permute, Stage::AdditionLevel],
        // Each traced addition reads its two operand slots and their indices and writes one
        // slot (20 bytes); about one addition per vertex for leaffix and two for rootfix.
        // The weights go into their slots and the results are gathered out (20 bytes).
        traffic: |op, w| {
            let n = w.len() as u64;
            let additions = if op == Op::Rootfix { 2 } else { 1 };
            vec![("additions", 20 * additions * n), ("in and out", 20 * n)]
        },
        // Slots: at most 1 + 4n words.
        words_per_vertex: |_| 4,
    }),
    cost: Cost {
        peak_bytes: 141.0,
        seconds: 0.78e-6,
    },
};
