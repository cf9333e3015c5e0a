//! A sweep's logs while it runs: `NAME.partial` until the sweep finishes, and where to resume
//! one from. Apart from [`super::files`] so that the logs' writers (the node sample among
//! them) need not reach into the directory's whole layout, which names them in turn.

use crate::Error;
use std::fs;
use std::path::{Path, PathBuf};

/// The suffix of a log while the sweep that writes it runs.
pub const PARTIAL: &str = ".partial";

/// `DIR/NAME.partial`: a log being written.
pub fn partial(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}{PARTIAL}"))
}

/// The log to resume from: the unfinished one if there is one, else the finished one (a sweep
/// run again with the same parameters), else none.
pub fn existing_log(dir: &Path, name: &str) -> Option<PathBuf> {
    [partial(dir, name), dir.join(name)]
        .into_iter()
        .find(|p| p.is_file())
}

/// Removes `path` if it exists.
pub fn remove_if_present(path: &Path) -> Result<(), Error> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path)(e)),
        _ => Ok(()),
    }
}
