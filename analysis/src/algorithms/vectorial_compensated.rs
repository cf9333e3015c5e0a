//! `vectorial-compensated`: the same Euler tour and scan plan on float-float (hi, lo) pairs of
//! f32 added by AccurateDWPlusDW (Joldes–Muller–Popescu 2017); the read rounds once to f32.

use super::{
    Cost, Descriptor, Family, GpuKernel, GpuLayout, Hooks, SCAN_STAGES, ScanWord, scan_traffic,
    tour_words,
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
        walk: |t, w, op, lambda| bounds::walk_tour_dw(t, w, Plan::Tiled, op, lambda),
    },
    gpu: Some(GpuKernel {
        layout: GpuLayout::Scan {
            word: ScanWord::FloatFloat,
            plan: Plan::Tiled,
        },
        stages: SCAN_STAGES,
        // An element is two words.
        traffic: scan_traffic::<8>,
        words_per_vertex: |w| tour_words(ScanWord::FloatFloat, w),
    }),
    cost: Cost {
        peak_bytes: 174.0,
        seconds: 1.76e-6,
    },
};
