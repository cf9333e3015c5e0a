//! `vectorial-compensated`: the same Euler tour and scan plan on float-float (hi, lo) pairs of
//! f32 added by AccurateDWPlusDW (Joldes–Muller–Popescu 2017); the read rounds once to f32.

use super::{
    Cost, Descriptor, Family, GpuKernel, GpuLayout, Hooks, SCAN_TILED, ScanWord, Storage,
    scan_traffic, tour_words,
};
use crate::bounds;
use crate::orders::euler;
use crate::scan_plan::Plan;

pub static DESCRIPTOR: Descriptor = Descriptor {
    name: "vectorial-compensated",
    short: "vcp",
    family: Family::EulerTour,
    summary: "the same Euler tour and scan plan carrying float-float (hi, lo) pairs of f32, added by AccurateDWPlusDW (Joldes–Muller–Popescu 2017) from TwoSum and Fast2Sum; the read forms S[close] − S[open − 1] in float-float and rounds once to f32",
    paper: None,
    correctly_rounded: false,
    hooks: Hooks {
        twin: |t, w, op| euler::vectorial_compensated(t.tree(), w, op),
        twin_in: |t, w, op, a| {
            // Float-float pairs of f32: what it leaves is rounded once more, to the storage.
            let pairs = euler::vectorial_compensated(t.tree(), w, op);
            crate::accumulate::store(a, pairs)
        },
        accumulates_in: &[generators::Precision::F32],
        twin_f64: None,
        walk: |t, w, op, lambda, a| bounds::walk_tour_dw(t, w, Plan::Tiled, op, lambda, a),
    },
    gpu: Some(GpuKernel {
        layout: GpuLayout::Scan {
            storage: Storage::F32,
            word: ScanWord::FloatFloat,
            plan: Plan::Tiled,
        },
        recipe: SCAN_TILED,
        // An element is two words.
        traffic: scan_traffic::<8>,
        words_per_vertex: |w| tour_words(ScanWord::FloatFloat, w),
    }),
    cost: Cost {
        peak_bytes: 174.0,
        seconds: 1.76e-6,
    },
};
