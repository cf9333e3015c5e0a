//! What an interrupted `accuracy spatial --json FILE` keeps: after each tree, `FILE.partial`
//! holds every tree finished so far (complete or absent, like every output), and a rerun of
//! the same command resumes after the last one. The measurement's own parameters are its key:
//! a rerun with other sizes, layouts, ops, weights or seed, or another version of the tool, is
//! refused rather than mixed.

use crate::Error;
use analysis::Op;
use analysis::records::spatial::{LayoutRecord, TreeRecord};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The trees done, as `measure` holds them between trees.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Checkpoint {
    /// What was measured: the parameters and the tool's version.
    pub key: String,
    pub trees: Vec<TreeRecord>,
    /// Every layout's patterns, with the finished trees' points.
    pub layouts: Vec<LayoutRecord>,
    /// The last finished tree's CPU twin seconds per vertex, per (algorithm, op).
    pub twin_s: Vec<(String, Op, f64)>,
    pub count_s: f64,
    pub bits_s: f64,
}

/// The checkpoint of the JSON output `json`: `json.partial` beside it.
pub fn path_of(json: &Path) -> PathBuf {
    let mut name = json.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// The checkpoint at `path` if there is one, refused when it is another measurement's.
pub fn load(path: &Path, key: &str) -> Result<Option<Checkpoint>, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path)(e)),
    };
    let c: Checkpoint = serde_json::from_str(&text).map_err(Error::json(path))?;
    if c.key != key {
        return Err(Error::Usage(format!(
            "{} holds the trees of another measurement (other sizes, layouts, ops, weights, \
             seed or version); remove it to start again, or give another --json",
            path.display()
        )));
    }
    Ok(Some(c))
}

/// Writes the checkpoint (temporary name, then rename).
pub fn save(path: &Path, c: &Checkpoint) -> Result<(), Error> {
    let json = serde_json::to_string(c).map_err(Error::json(path))?;
    crate::output::write_file(path, json.as_bytes())
}
