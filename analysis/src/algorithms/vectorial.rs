//! `vectorial`: the seed paper's Algorithm 2 (after Blelloch). Euler-tour vector E, inclusive
//! scan with the scan plan, read `S[open v]` (rootfix) or `S[close v] − S[open v − 1]`
//! (leaffix).

use super::{
    ANY_ACCUMULATION, Cost, Descriptor, Family, GpuKernel, GpuLayout, Hooks, PaperRole, SCAN_TILED,
    ScanWord, Storage, scan_traffic, tour_words,
};
use crate::bounds;
use crate::orders::euler;
use crate::scan_plan::Plan;

pub static DESCRIPTOR: Descriptor = Descriptor {
    name: "vectorial",
    short: "vec",
    family: Family::EulerTour,
    summary: "Euler-tour vector E, inclusive +scan with the **scan plan**, read `S[open v]` (rootfix) or `S[close v] − S[open v − 1]` (leaffix)",
    paper: Some(PaperRole::Algorithm2),
    correctly_rounded: false,
    hooks: Hooks {
        twin: |t, w, op| euler::vectorial(t.tree(), w, Plan::Tiled, op),
        twin_in: |t, w, op, a| crate::in_arithmetic!(a, T => euler::vectorial_in::<T>(t.tree(), w, Plan::Tiled, op)),
        accumulates_in: ANY_ACCUMULATION,
        twin_f64: Some(|t, w, op| euler::vectorial_f64(t.tree(), w, Plan::Tiled, op)),
        walk: |t, w, op, lambda, a| bounds::walk_tour(t, w, Plan::Tiled, op, lambda, a),
    },
    gpu: Some(GpuKernel {
        layout: GpuLayout::Scan {
            storage: Storage::F32,
            word: ScanWord::F32,
            plan: Plan::Tiled,
        },
        recipe: SCAN_TILED,
        traffic: scan_traffic::<4>,
        words_per_vertex: |w| tour_words(ScanWord::F32, w),
    }),
    cost: Cost {
        peak_bytes: 174.0,
        seconds: 1.35e-6,
    },
};
