//! `sequential`: the seed paper's CPU baseline. Rootfix in preorder, `r[v] = r[parent] + w[v]`;
//! leaffix in postorder, `l[v] = ((w[v] + l[c1]) + l[c2]) + …` over the children in child order.

use super::{ANY_ACCUMULATION, Cost, Descriptor, Family, Hooks, PaperRole};
use crate::bounds;
use crate::orders::tree;

pub static DESCRIPTOR: Descriptor = Descriptor {
    name: "sequential",
    short: "seq",
    family: Family::Tree,
    summary: "rootfix in preorder `r[v] = r[parent] + w[v]`; leaffix in postorder `l[v] = ((w[v] + l[c1]) + l[c2]) + …`",
    paper: Some(PaperRole::Baseline),
    correctly_rounded: false,
    hooks: Hooks {
        twin: |t, w, op| tree::sequential(t.tree(), w, op),
        twin_in: |t, w, op, a| crate::in_arithmetic!(a, T => tree::sequential::<T>(t.tree(), w, op)),
        accumulates_in: ANY_ACCUMULATION,
        twin_f64: Some(|t, w, op| tree::sequential_f64(t.tree(), w, op)),
        walk: bounds::walk_tree,
    },
    gpu: None,
    cost: Cost {
        peak_bytes: 130.0,
        seconds: 0.48e-6,
    },
};
