//! treefix-accuracy: measures, bounds and explains the bits f32 treefix computations lose.
//!
//! Data flow (docs/design.md §1): generators → kernels → analysis → reports.

pub mod bench;
pub mod bounds_table;
pub mod check;
pub mod cond;
pub mod environment;
pub mod error;
pub mod experiment;
pub mod format;
pub mod gpu;
pub mod grid;
pub mod inputs;
pub mod lock;
pub mod memory;
pub mod nodes_sample;
pub mod output;
pub mod sweep;
pub mod verdict;

pub use error::Error;
