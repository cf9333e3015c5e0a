//! `vectorial-seqscan`: the vectorial Euler tour and read with a plain left-to-right scan
//! (CPU only): isolates what the scan's order costs.

use super::{ANY_ACCUMULATION, Cost, Descriptor, Family, Hooks};
use crate::bounds;
use crate::orders::euler;
use crate::scan_plan::Plan;

pub static DESCRIPTOR: Descriptor = Descriptor {
    name: "vectorial-seqscan",
    short: "vsq",
    family: Family::EulerTour,
    summary: "the same E with a plain left-to-right scan (CPU only): isolates the effect of the scan's order",
    paper: None,
    correctly_rounded: false,
    hooks: Hooks {
        twin: |t, w, op| euler::vectorial(t.tree(), w, Plan::Sequential, op),
        twin_in: |t, w, op, a| crate::in_arithmetic!(a, T => euler::vectorial_in::<T>(t.tree(), w, Plan::Sequential, op)),
        accumulates_in: ANY_ACCUMULATION,
        twin_f64: Some(|t, w, op| euler::vectorial_f64(t.tree(), w, Plan::Sequential, op)),
        walk: |t, w, op, lambda, a| bounds::walk_tour(t, w, Plan::Sequential, op, lambda, a),
    },
    gpu: None,
    cost: Cost {
        peak_bytes: 174.0,
        seconds: 0.69e-6,
    },
};
