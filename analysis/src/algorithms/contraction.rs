//! `contraction`: tree contraction, rake and compress (seed 002; Miller & Reif), additions
//! only, every sum of depth O(log n); a rayon twin, and on the GPU its traced additions one
//! level per dispatch.

use super::{
    ANY_ACCUMULATION, Cost, Descriptor, Family, GpuKernel, GpuLayout, Hooks, Over, Stage, Step,
};
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
        twin_in: |t, w, op, a| {
            crate::in_arithmetic!(a, T => match op {
                Op::Rootfix => contraction::rootfix_on::<T>(t.schedule(), w),
                Op::Leaffix => contraction::leaffix_on::<T>(t.schedule(), w),
            })
        },
        accumulates_in: ANY_ACCUMULATION,
        // The same schedule and pairings on f64 values.
        twin_f64: Some(|t, w, op| contraction::twin_f64(t.schedule(), w, op)),
        walk: bounds::walk_contraction,
    },
    gpu: Some(GpuKernel {
        layout: GpuLayout::Program,
        // The weights are copied into their slots on the way in (a buffer copy, no stage).
        recipe: &[
            Step::run(Stage::ADDITION_LEVEL, "addition_level", Over::ProgramLevels),
            Step::Phase("additions"),
            Step::run(Stage::PERMUTE, "gather", Over::ResultSlots),
        ],
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
