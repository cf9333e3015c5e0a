//! Trees users bring, through the `accuracy` binary: run, sweep, stats and score on real files
//! (copies in generators/tests/data with their provenance), and every bad input a one-line
//! error with exit code 2.
//!
//! One module per concept: `commands` (run, sweep and stats on files), `score`, `errors` (bad
//! inputs) and `weights` (values where they become weights).

mod commands;
#[path = "../common/mod.rs"]
mod common;
mod errors;
mod score;
mod weights;

use std::path::Path;

/// The path of a file of generators/tests/data.
fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("generators/tests/data")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}
