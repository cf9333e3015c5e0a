//! Trees users bring: what a command records about a tree file (so a sweep can be resumed and
//! its rows name their source), where weights come from, and how a weighted instance is built
//! from a file. The readers themselves are `generators::io` (formats: docs/inputs.md).

use crate::Error;
use generators::io::{ForestMode, Format, ReadOptions, TreeFile, read_tree, read_weights_bytes};
use generators::{ChildOrder, Tree, WeightModel};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Where the weights come from: a generated model, or the input itself (the tree file's own
/// weights, or a `--weights-file`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum WeightChoice {
    Model(WeightModel),
    File,
}

impl WeightChoice {
    pub fn name(self) -> &'static str {
        match self {
            WeightChoice::Model(m) => m.name(),
            WeightChoice::File => "file",
        }
    }
}

impl fmt::Display for WeightChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WeightChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "file" {
            return Ok(WeightChoice::File);
        }
        s.parse::<WeightModel>()
            .map(WeightChoice::Model)
            .map_err(|e| format!("{e} (or 'file': the tree file's own weights)"))
    }
}

impl From<WeightChoice> for String {
    fn from(w: WeightChoice) -> String {
        w.name().to_string()
    }
}

impl TryFrom<String> for WeightChoice {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

/// A tree file as a sweep records it in `sweep.json`: enough to read it again the same way,
/// and its SHA-256, so a resumed sweep refuses a file that changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeInput {
    pub path: PathBuf,
    pub sha256: String,
    /// The format it was read as (detected or given).
    pub format: String,
    pub tree_index: usize,
    pub root: Option<u64>,
    pub forest: String,
    /// A separate weights file (`--weights-file`) and its SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_file: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_sha256: Option<String>,
}

/// A tree file read, with the weights it brings (its own, or a weights file's).
pub struct LoadedTree {
    pub input: TreeInput,
    pub file: TreeFile,
    /// The input's weights: the weights file's if one was given, else the file's own.
    pub weights: Option<Vec<f32>>,
}

impl LoadedTree {
    /// The name rows and reports use for this tree: the file name.
    pub fn name(&self) -> String {
        display_name(&self.input.path)
    }

    /// The input's weights, or a one-line error saying the file has none.
    pub fn own_weights(&self) -> Result<&[f32], Error> {
        self.weights.as_deref().ok_or_else(|| {
            Error::Usage(format!(
                "{}: the file has no weights of its own (no branch lengths / values); \
                 choose a generated model with --weights, or give --weights-file",
                self.input.path.display()
            ))
        })
    }

    /// The tree in the requested child order.
    pub fn tree(&self, order: ChildOrder) -> Tree {
        if order == ChildOrder::Natural {
            self.file.tree.clone()
        } else {
            self.file.tree.with_order(order)
        }
    }
}

/// The file name of a path (the whole path if it has none).
pub fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Reads a tree file (and its weights file), recording how.
pub fn load(
    path: &Path,
    opts: &ReadOptions,
    weights_file: Option<&Path>,
) -> Result<LoadedTree, Error> {
    let file = read_tree(path, opts)?;
    let (weights, weights_sha256) = match weights_file {
        Some(wp) => {
            // Read once: the same bytes are parsed and hashed.
            let raw = std::fs::read(wp)
                .map_err(|e| Error::Usage(format!("{}: cannot read: {e}", wp.display())))?;
            let w = read_weights_bytes(wp, &raw, &file)?;
            (Some(w), Some(generators::io::sha256_hex(&raw)))
        }
        None => (file.weights.clone(), None),
    };
    let input = TreeInput {
        path: path.to_path_buf(),
        sha256: file.sha256.clone(),
        format: file.format.name().to_string(),
        tree_index: opts.tree_index,
        root: opts.root,
        forest: opts.forest.name().to_string(),
        weights_file: weights_file.map(Path::to_path_buf),
        weights_sha256,
    };
    Ok(LoadedTree {
        input,
        file,
        weights,
    })
}

impl TreeInput {
    /// Reads the file again as recorded; a file whose bytes changed since is refused.
    pub fn reload(&self, dir: &Path) -> Result<LoadedTree, Error> {
        let opts = ReadOptions {
            format: Some(self.format.parse::<Format>().map_err(Error::Usage)?),
            tree_index: self.tree_index,
            root: self.root,
            forest: self.forest.parse::<ForestMode>().map_err(Error::Usage)?,
            memory_limit: crate::memory::reader_limit(),
        };
        let loaded = load(&self.path, &opts, self.weights_file.as_deref())?;
        let changed = if loaded.input.sha256 != self.sha256 {
            Some(&self.path)
        } else if loaded.input.weights_sha256 != self.weights_sha256 {
            self.weights_file.as_ref()
        } else {
            None
        };
        if let Some(p) = changed {
            return Err(Error::ResumeMismatch {
                dir: dir.to_path_buf(),
                what: "sweep",
                field: format!(
                    "{} (its SHA-256 changed since the sweep began)",
                    p.display()
                ),
            });
        }
        Ok(loaded)
    }
}
