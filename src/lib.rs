//! treefix-accuracy: measures, bounds and explains the bits f32 treefix computations lose.
//!
//! **Rootfix** is the sum along the path root → v, **leaffix** the sum over v's subtree (v
//! included in both). This crate runs them with every algorithm of the registry
//! ([`Algorithm::ALL`]: each with its exact order of f32 additions, as a CPU twin and, for
//! most, a GPU kernel giving the same bits), computes them exactly, and judges results
//! computed anywhere else. Start with the functions below ([`api`]); the modules after them
//! are the command-line tool's machinery.
//!
//! Data flow (docs/design.md §1): generators → kernels → analysis → reports.

pub mod api;
pub mod bench;
pub mod bounds_table;
pub mod check;
pub mod cond;
pub mod device;
pub mod environment;
pub mod error;
pub mod experiment;
pub mod format;
pub mod gpu;
pub mod grid;
pub mod inputs;
pub mod lock;
pub mod memory;
pub mod notice;
pub mod output;
pub mod score;
pub mod spatial;
pub mod sweep;
pub mod verdict;

/// The version of every JSON file the tool writes (`format_version`, first field): raised when
/// a field changes meaning or goes away, not when one is added.
pub const FORMAT_VERSION: u32 = 1;

/// `value` as pretty-printed JSON with `format_version` ([`FORMAT_VERSION`]) as its first
/// field: how every JSON file of a sweep, a bench, a bounds table or a baseline is written.
/// Readers ignore the field, so files written before it read as before.
pub fn versioned_json<T: serde::Serialize>(value: &T) -> serde_json::Result<String> {
    #[derive(serde::Serialize)]
    struct Versioned<'a, T> {
        format_version: u32,
        #[serde(flatten)]
        value: &'a T,
    }
    serde_json::to_string_pretty(&Versioned {
        format_version: FORMAT_VERSION,
        value,
    })
}

pub use analysis::{Algorithm, Op, ReferenceKind};
pub use api::{
    GenSum, exact, exact_f64, exact_in, generate_tree, gensum, gensum_f64, leaffix, read_tree,
    read_tree_with, rootfix, tree_from_edges, tree_from_parents, treefix, treefix_f64, treefix_in,
    write_results, write_tree, write_weights,
};
pub use device::Device;
pub use error::Error;
pub use experiment::{Backend, Cpu};
pub use generators::io::{ReadOptions, TreeFile};
pub use generators::{Arithmetic, ChildOrder, Precision, Topology, Tree};
pub use gpu::Gpu;
pub use notice::Notice;
pub use score::any_order::OrderBound;
pub use score::{OpScore, Score, ScoreOptions, score, score_f64};
