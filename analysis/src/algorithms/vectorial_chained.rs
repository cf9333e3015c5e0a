//! `vectorial-chained`: the vectorial algorithm with the chained plan: the same tiles, the
//! tile prefixes chained `P_k = P_{k−1} + T_k`, so prefixes in different tiles share their
//! roundings (GPU stage `scan_chain`).

use super::{
    ANY_ACCUMULATION, Cost, Descriptor, Family, GpuKernel, GpuLayout, Hooks, Over, RELABEL,
    ScanWord, Stage, Step, Storage, scan_traffic, tour_words,
};
use crate::bounds;
use crate::orders::euler;
use crate::scan_plan::Plan;

pub static DESCRIPTOR: Descriptor = Descriptor {
    name: "vectorial-chained",
    short: "vch",
    family: Family::EulerTour,
    summary: "the scan plan with its tile prefixes chained, P_k = P_{k−1} + T_k (GPU stage `scan_chain`), so prefixes in different tiles share their roundings",
    paper: None,
    correctly_rounded: false,
    hooks: Hooks {
        twin: |t, w, op| euler::vectorial(t.tree(), w, Plan::Chained, op),
        twin_in: |t, w, op, a| crate::in_arithmetic!(a, T => euler::vectorial_in::<T>(t.tree(), w, Plan::Chained, op)),
        accumulates_in: ANY_ACCUMULATION,
        twin_f64: Some(|t, w, op| euler::vectorial_f64(t.tree(), w, Plan::Chained, op)),
        walk: |t, w, op, lambda, a| bounds::walk_tour(t, w, Plan::Chained, op, lambda, a),
    },
    gpu: Some(GpuKernel {
        layout: GpuLayout::Scan {
            storage: Storage::F32,
            word: ScanWord::F32,
            plan: Plan::Chained,
        },
        // The chained plan's stage 2 in place of the block levels: no uniform add.
        recipe: &[
            RELABEL[0],
            Step::each(
                Stage::SCAN_TILE,
                ["scan_tour_rootfix", "scan_tour_leaffix"],
                Over::Tour,
            ),
            Step::run(Stage::SCAN_CHAIN, "scan_chain", Over::ChainSegments),
            Step::Phase("scan"),
            Step::each(
                Stage::VECTORIAL_READ,
                ["read_rootfix", "read_leaffix"],
                Over::Vertices,
            ),
            Step::Phase("read"),
            RELABEL[1],
        ],
        traffic: scan_traffic::<4>,
        words_per_vertex: |w| tour_words(ScanWord::F32, w),
    }),
    cost: Cost {
        peak_bytes: 174.0,
        seconds: 1.61e-6,
    },
};
