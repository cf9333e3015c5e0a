//! `parallel`: the seed paper's Algorithm 1, level-synchronous BFS. The same additions as
//! `sequential`, one level at a time (bit for bit, a test); on the GPU one dispatch per wide
//! level, narrow levels walked by one workgroup.

use super::{Cost, Descriptor, Family, GpuKernel, GpuLayout, Hooks, PaperRole, Stage};
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
        // The same additions as sequential's, per vertex and in the same pairing (only their
        // schedule differs): its summation tree, walked depth first.
        walk: bounds::walk_tree,
    },
    gpu: Some(GpuKernel {
        layout: GpuLayout::Levels,
        stages: &[
            Stage::Permute,
            Stage::RootfixNarrow,
            Stage::RootfixLevel,
            Stage::LeaffixNarrow,
            Stage::LeaffixLevel,
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
