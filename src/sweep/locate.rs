//! Finding a sweep's tree files again, from any working directory. `sweep.json` records each
//! file's path as given (it names the file in results.csv), its absolute path, and its path
//! relative to the sweep directory; a resumed sweep reads the first of these that exists, in
//! the order: relative to the directory (right when the directory and the files moved
//! together), absolute (right from any working directory when nothing moved), as given (sweeps
//! recorded before the other two existed). The SHA-256 check then refuses a file that changed.

use crate::Error;
use crate::inputs::{LoadedTree, TreeInput};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A tree file as `sweep.json` records it: how it was read, and where to find it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepFile {
    #[serde(flatten)]
    pub input: TreeInput,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute_path: Option<PathBuf>,
    /// Relative to the sweep directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_from_dir: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_file_absolute: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_file_from_dir: Option<PathBuf>,
}

impl From<TreeInput> for SweepFile {
    fn from(input: TreeInput) -> SweepFile {
        SweepFile {
            input,
            absolute_path: None,
            path_from_dir: None,
            weights_file_absolute: None,
            weights_file_from_dir: None,
        }
    }
}

impl SweepFile {
    /// The file as read, with its absolute path and its path from `dir` (an existing
    /// directory) filled in. A file recorded before (a sweep resumed before its first tree
    /// was logged) is found as [`SweepFile::reload`] finds it, from any working directory.
    pub(super) fn located(&self, dir: &Path) -> Result<SweepFile, Error> {
        let dir = dir.canonicalize().map_err(Error::io(dir))?;
        let locate = |p: &Path| -> Result<(PathBuf, Option<PathBuf>), Error> {
            let abs = p.canonicalize().map_err(Error::io(p))?;
            let rel = pathdiff::diff_paths(&abs, &dir);
            Ok((abs, rel))
        };
        let tree = find(
            &dir,
            &self.input.path,
            &self.path_from_dir,
            &self.absolute_path,
        )?;
        let (absolute, from_dir) = locate(&tree)?;
        let weights = match &self.input.weights_file {
            Some(w) => Some(locate(&find(
                &dir,
                w,
                &self.weights_file_from_dir,
                &self.weights_file_absolute,
            )?)?),
            None => None,
        };
        Ok(SweepFile {
            input: self.input.clone(),
            absolute_path: Some(absolute),
            path_from_dir: from_dir,
            weights_file_absolute: weights.as_ref().map(|w| w.0.clone()),
            weights_file_from_dir: weights.and_then(|w| w.1),
        })
    }

    /// The same file without the record of where it lies (what resume and merge compare).
    pub(super) fn unlocated(&self) -> SweepFile {
        SweepFile::from(self.input.clone())
    }

    /// Reads the file (and its weights file) again, from wherever it is found, refusing one
    /// whose SHA-256 changed. The result names the file as recorded, so a resumed sweep's rows
    /// are those of an uninterrupted one.
    pub fn reload(&self, dir: &Path) -> Result<LoadedTree, Error> {
        let mut probe = self.input.clone();
        probe.path = find(
            dir,
            &self.input.path,
            &self.path_from_dir,
            &self.absolute_path,
        )?;
        if let Some(w) = &self.input.weights_file {
            probe.weights_file = Some(find(
                dir,
                w,
                &self.weights_file_from_dir,
                &self.weights_file_absolute,
            )?);
        }
        let mut loaded = probe.reload(dir, crate::memory::reader_limit())?;
        loaded.input = self.input.clone();
        Ok(loaded)
    }
}

/// The first existing one of: `dir/from_dir`, `absolute`, `given`.
fn find(
    dir: &Path,
    given: &Path,
    from_dir: &Option<PathBuf>,
    absolute: &Option<PathBuf>,
) -> Result<PathBuf, Error> {
    let candidates: Vec<PathBuf> = [from_dir.as_ref().map(|p| dir.join(p)), absolute.clone()]
        .into_iter()
        .flatten()
        .chain([given.to_path_buf()])
        .collect();
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        return Ok(found.clone());
    }
    if candidates.len() == 1 {
        // Nothing else to try: the reader's own message (not found, a directory, …).
        return Ok(given.to_path_buf());
    }
    let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    Err(Error::Usage(format!(
        "{}: the sweep's tree file is not found (tried {})",
        given.display(),
        tried.join(", ")
    )))
}
