//! `parallel`: the seed paper's Algorithm 1, level-synchronous BFS. The same additions as
//! `sequential`, one level at a time (bit for bit, a test); on the GPU one dispatch per wide
//! level, narrow levels walked by one workgroup.

use super::{
    ANY_ACCUMULATION, Cost, Descriptor, Family, GpuKernel, GpuLayout, Hooks, Over, PaperRole,
    RELABEL, Stage, Step,
};
use crate::Op;
use crate::bounds;
use crate::orders::tree;

pub static DESCRIPTOR: Descriptor = Descriptor {
    name: "parallel",
    short: "par",
    family: Family::Tree,
    summary: "level-synchronous BFS (the paper's Algorithm 1): the same additions as `sequential`, one level at a time",
    paper: Some(PaperRole::Algorithm1),
    correctly_rounded: false,
    hooks: Hooks {
        twin: |t, w, op| tree::parallel(t.tree(), w, op),
        twin_in: |t, w, op, a| crate::in_arithmetic!(a, T => tree::parallel::<T>(t.tree(), w, op)),
        accumulates_in: ANY_ACCUMULATION,
        // Sequential's additions, one level at a time: in f64 too, the same values.
        twin_f64: Some(|t, w, op| tree::sequential_f64(t.tree(), w, op)),
        // The same additions as sequential's, per vertex and in the same pairing (only their
        // schedule differs): its summation tree, walked depth first.
        walk: bounds::walk_tree,
    },
    gpu: Some(GpuKernel {
        layout: GpuLayout::Levels,
        // Rootfix top down, leaffix bottom up: runs of narrow levels and wide levels in the
        // level plan's order.
        recipe: &[
            RELABEL[0],
            Step::only(
                Op::Rootfix,
                Stage::ROOTFIX_NARROW,
                "rootfix_narrow",
                Over::NarrowRuns,
            ),
            Step::only(
                Op::Rootfix,
                Stage::ROOTFIX_LEVEL,
                "rootfix_level",
                Over::WideLevels,
            ),
            Step::only(
                Op::Leaffix,
                Stage::LEAFFIX_NARROW,
                "leaffix_narrow",
                Over::NarrowRuns,
            ),
            Step::only(
                Op::Leaffix,
                Stage::LEAFFIX_LEVEL,
                "leaffix_level",
                Over::WideLevels,
            ),
            Step::Phase("levels"),
            RELABEL[1],
        ],
        // Breadth-first labels. Rootfix: parent, w, r[parent], r. Leaffix: child_start, w,
        // l[child], l.
        traffic: |_, w| vec![("all", 16 * w.len() as u64)],
        words_per_vertex: |_| 2,
    }),
    cost: Cost {
        peak_bytes: 116.0,
        seconds: 0.32e-6,
    },
};
