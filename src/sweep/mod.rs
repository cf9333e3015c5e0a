//! `accuracy sweep`: the paper's Fig. 10 experiment as data, for any topology and range of
//! condition numbers. Results are appended per tree, so an interrupted sweep resumes where it
//! stopped when run again with the same `--out`.
//!
//! `files`: the directory's files and how they are written; `params`: what a sweep computes and its trees (jobs); `tree`: one tree built and evaluated;
//! `run`: the evaluation loop and the files it writes; `progress`: its bar and time estimate; `gpu_batch`: trees as forests on a GPU; `locate`: finding tree files again;
//! `resume`: `sweep.json` and the rows kept from an interrupted run; `shard`: parts of a
//! sweep (`--shard K/N`); `summary`: summary.json;
//! `table`: the printed table; `merge`: shards joined into one sweep's files.

pub mod files;
mod gpu_batch;
mod locate;
pub mod logs;
pub mod merge;
mod params;
mod progress;
mod resume;
mod run;
mod shard;
mod summary;
mod table;
mod tree;

pub use analysis::records::results::ResultRow;
pub use files::check_finished;
pub use locate::SweepFile;
pub use params::SweepParams;
pub(crate) use resume::first_difference;
pub use resume::{read_params, same_part};
pub use run::run;
pub use shard::Shard;
pub use summary::Timings;
pub use table::table;

use std::path::PathBuf;

/// `reports/sweep-<UTC timestamp>`.
pub fn default_dir() -> PathBuf {
    PathBuf::from(format!(
        "reports/sweep-{}",
        chrono::Utc::now().format("%Y%m%d-%H%M%S")
    ))
}
