//! `vectorial-exact`: the Euler tour scanned in fixed point (L words of 32 bits at the weights'
//! scale, `generators::fixed::Scale`) with the scan plan's pairing; integer addition is
//! associative, so every prefix and every difference is exact, and the one rounding to f32 at
//! the read gives the correctly rounded rootfix and leaffix of every vertex.
//!
//! Its CPU twin need not follow the kernel's order: any order of integer additions gives the
//! same integers, so the twin is the exact treefix ([`crate::exact`]), one walk of the tree's
//! own order; both are the correctly rounded values, bit for bit (`tests/gpu/exact.rs`).

use super::{
    ANY_ACCUMULATION, Cost, Descriptor, Family, GpuKernel, GpuLayout, Hooks, Over, RELABEL,
    ScanWord, Stage, Step, Storage, exact_traffic, tour_words,
};
use crate::Op;
use crate::bounds::Walked;
use crate::exact::{self, half_ulp};
use crate::scan_plan::Plan;
use generators::{Precision, Tree};

/// The results, and the bound of each: half an ulp of the correctly rounded result (the error
/// of a rounding to nearest), or 0 where the exact value is an f32 (the rounding changed
/// nothing). An error of one ulp violates it.
fn with_bounds(t: &Tree, w: &[f32], op: Op, storage: Precision) -> Walked {
    if storage != Precision::F32 {
        // Half an ulp of the storage format at each result (the one rounding, to nearest).
        let rounded = exact::correctly_rounded_in(t, w, op, storage);
        return Walked::uniform(
            rounded
                .into_iter()
                .map(|x| (x, storage.ulp(x as f64) / 2.0)),
        );
    }
    Walked::uniform(
        exact::correctly_rounded_inexact(t, w, op)
            .into_iter()
            .map(|(x, inexact)| (x, if inexact { half_ulp(x) } else { 0.0 })),
    )
}

pub static DESCRIPTOR: Descriptor = Descriptor {
    name: "vectorial-exact",
    short: "vex",
    family: Family::EulerTour,
    summary: "the same Euler tour and scan plan on fixed-point integers (L words of 32 bits at the weights' scale, carries by comparison); every prefix and S[close] − S[open − 1] exact, one rounding to nearest f32: correctly rounded results, bound half an ulp",
    paper: None,
    correctly_rounded: true,
    hooks: Hooks {
        twin: |t, w, op| exact::correctly_rounded(t.tree(), w, op),
        twin_in: |t, w, op, a| exact::correctly_rounded_in(t.tree(), w, op, a.storage),
        accumulates_in: ANY_ACCUMULATION,
        twin_f64: Some(|t, w, op| exact::correctly_rounded_f64(t.tree(), w, op)),
        // The result is RN(x), a function of the weights alone: its rounding error is known
        // before any f32 arithmetic, and holds with certainty (so also as the probabilistic
        // bound), and the running bound is the same.
        walk: |t, w, op, _lambda, a| {
            t.count_walk();
            with_bounds(t.tree(), w, op, a.storage)
        },
    },
    gpu: Some(GpuKernel {
        layout: GpuLayout::Scan {
            storage: Storage::F32,
            word: ScanWord::Exact,
            plan: Plan::Tiled,
        },
        // The tiled plan with the tile scan that keeps each invocation's items in registers
        // (a tile of fixed-point sums does not fit workgroup memory).
        recipe: &[
            RELABEL[0],
            Step::each(
                Stage::SCAN_TILE_EXACT,
                ["scan_tour_rootfix", "scan_tour_leaffix"],
                Over::Tour,
            ),
            Step::run(Stage::SCAN_TILE_EXACT, "scan_tile", Over::BlockLevelsUp),
            Step::run(Stage::SCAN_ADD, "scan_add", Over::BlockLevelsDown),
            Step::Phase("scan"),
            Step::each(
                Stage::VECTORIAL_READ,
                ["read_rootfix", "read_leaffix"],
                Over::Vertices,
            ),
            Step::Phase("read"),
            RELABEL[1],
        ],
        traffic: exact_traffic,
        // The tour's 2n positions of L words, L from the weights' scale.
        words_per_vertex: |w| tour_words(ScanWord::Exact, w),
    }),
    // Measured as `src/memory.rs` says: a peak of 80 B per vertex with gensum weights (4
    // limbs: E is 2 positions × 16 B per vertex), 120 at the most limbs (10: E 80 B; the
    // benchmark's weights from the smallest subnormal to 1e38).
    cost: Cost {
        peak_bytes: 120.0,
        seconds: 1.06e-6,
    },
};
