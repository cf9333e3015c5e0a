//! Trees users bring: what a command records about a tree file (so a sweep can be resumed and
//! its rows name their source), where weights come from, and how a weighted instance is built
//! from a file. The readers themselves are `generators::io` (formats: docs/inputs.md).

use crate::Error;
use crate::notice::Notice;
use generators::io::{
    ForestMode, Format, Labels, ReadError, ReadOptions, Reason, Subnormal, TreeFile, WeightsFile,
    read_tree, read_tree_bytes, read_weights_bytes,
};
use generators::{ChildOrder, Rng, Tree, WeightModel};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// `flush` when subnormal weights were flushed to zero (absent: refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subnormal: Option<String>,
    /// A separate weights file (`--weights-file`) and its SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_file: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_sha256: Option<String>,
}

/// A tree file read, with the weights it brings (its own, or a weights file's).
pub struct LoadedTree {
    pub input: TreeInput,
    /// The paths the tree file and its weights file were read from (a resumed sweep finds
    /// them where they lie now, [`TreeInput::path`] says where they were first read).
    pub read_from: PathBuf,
    pub weights_read_from: Option<PathBuf>,
    pub file: TreeFile,
    /// The weights file's weights, if one was given (they replace the file's own).
    pub weights_file: Option<WeightsFile>,
    /// Whether flushed subnormal weights were reported (once per read).
    flush_reported: AtomicBool,
    /// What the caller has not yet been told: how a weights file's keys matched (at load),
    /// subnormal weights flushed to zero (when the weights are first taken).
    notices: Mutex<Vec<Notice>>,
}

impl LoadedTree {
    /// The files read, as a command's inputs that no output may replace.
    pub fn inputs(&self) -> Vec<(&'static str, &Path)> {
        let mut out = vec![("a tree file of --tree", self.read_from.as_path())];
        if let Some(w) = &self.weights_read_from {
            out.push(("the weights file of --weights-file", w.as_path()));
        }
        out
    }

    /// The name rows and reports use for this tree: the file name.
    pub fn name(&self) -> String {
        display_name(&self.input.path)
    }

    /// The input's weights: the weights file's if one was given, else the file's own. A
    /// one-line error if the file has none, or if one of its numbers is no valid f32 weight
    /// (checked here, where they become weights: a tree read for its shape never fails on
    /// them). Subnormal weights flushed to zero (`--subnormal flush`) give a notice the first
    /// time ([`LoadedTree::take_notices`]).
    pub fn own_weights(&self) -> Result<&[f32], Error> {
        let (weights, flushed) = match (&self.weights_file, &self.file.weights) {
            (Some(wf), _) => (&wf.weights[..], wf.flushed),
            (None, Some(own)) => (own.get().map_err(flush_hint)?, own.flushed()),
            (None, None) => {
                return Err(Error::Usage(format!(
                    "{}: the file has no weights of its own (no branch lengths / values); \
                     choose a generated model with --weights, or give --weights-file",
                    self.input.path.display()
                )));
            }
        };
        if flushed > 0 && !self.flush_reported.swap(true, Ordering::Relaxed) {
            self.notify(Notice::info(format!(
                "{}: {flushed} subnormal weight(s) flushed to zero (--subnormal flush)",
                self.weights_path().display()
            )));
        }
        Ok(weights)
    }

    /// The notices given since the last call, oldest first, for the caller to show.
    pub fn take_notices(&self) -> Vec<Notice> {
        std::mem::take(&mut *self.notices.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn notify(&self, notice: Notice) {
        self.notices
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(notice);
    }

    /// The file the weights come from: the weights file, else the tree file.
    fn weights_path(&self) -> &Path {
        self.input
            .weights_file
            .as_deref()
            .unwrap_or(&self.input.path)
    }

    /// How a header names the input's weights: `file` (the tree file's own) or
    /// `file:NAME` (a weights file), then how many subnormal ones were flushed when
    /// `--subnormal flush` is on.
    pub fn weights_name(&self) -> String {
        let mut s = match &self.input.weights_file {
            Some(p) => format!("file:{}", display_name(p)),
            None => "file".to_string(),
        };
        if self.file.subnormal == Subnormal::Flush {
            let flushed = match (&self.weights_file, &self.file.weights) {
                (Some(wf), _) => wf.flushed,
                (None, Some(own)) => own.flushed(),
                (None, None) => 0,
            };
            s += &format!(" subnormal-flushed={flushed}");
        }
        s
    }

    /// Weights drawn from `model` for this tree; an error names the file (a one-vertex tree
    /// file cannot carry gensum weights, for one).
    pub fn model_weights(
        &self,
        model: WeightModel,
        n: usize,
        cond: f64,
        rng: &mut Rng,
    ) -> Result<Vec<f32>, Error> {
        model.weights(n, cond, rng).map_err(|e| {
            Error::Usage(format!(
                "{}: {model} weights: {e}",
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

/// Whether a tree path names standard input (`-`).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A tree piped in (`--tree -`), named `<stdin>` in messages; gzip and formats are detected
/// from the content as for a file.
fn read_stdin_tree(opts: &ReadOptions) -> Result<TreeFile, Error> {
    use std::io::Read;
    let t0 = std::time::Instant::now();
    let mut raw = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut raw)
        .map_err(|e| Error::Usage(format!("<stdin>: cannot read: {e}")))?;
    let mut file = read_tree_bytes(Path::new("<stdin>"), &raw, opts)?;
    file.read_s = t0.elapsed().as_secs_f64();
    Ok(file)
}

/// Commands that read their tree files again later (a sweep's `--resume`, a bench's) take
/// files, not a pipe.
pub fn refuse_stdin(command: &str, paths: &[PathBuf]) -> Result<(), Error> {
    if paths.iter().any(|p| is_stdin(p)) {
        return Err(Error::Usage(format!(
            "{command}: - (standard input) as an input file: {command} reads its files again to resume; save standard input to a file"
        )));
    }
    Ok(())
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
    let file = if is_stdin(path) {
        read_stdin_tree(opts)?
    } else {
        read_tree(path, opts)?
    };
    let (weights, weights_sha256, notices) = match weights_file {
        Some(wp) => {
            // Read once: the same bytes are parsed and hashed.
            let raw = if is_stdin(wp) {
                if is_stdin(path) {
                    return Err(Error::Usage(
                        "--tree - and --weights-file - would both read standard input: give one a file"
                            .into(),
                    ));
                }
                let mut raw = Vec::new();
                std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut raw)
                    .map_err(|e| Error::Usage(format!("<stdin>: cannot read: {e}")))?;
                raw
            } else {
                std::fs::read(wp)
                    .map_err(|e| Error::Usage(format!("{}: cannot read: {e}", wp.display())))?
            };
            let w = read_weights_bytes(wp, &raw, &file).map_err(flush_hint)?;
            let matched = format!("{}: {}", wp.display(), keys_matched(&w, &file.labels));
            (
                Some(w),
                Some(generators::io::sha256_hex(&raw)),
                vec![Notice::info(matched)],
            )
        }
        None => (None, None, Vec::new()),
    };
    let input = TreeInput {
        path: path.to_path_buf(),
        sha256: file.sha256.clone(),
        format: file.format.name().to_string(),
        tree_index: opts.tree_index,
        root: opts.root,
        forest: opts.forest.name().to_string(),
        subnormal: (opts.subnormal == Subnormal::Flush).then(|| opts.subnormal.name().into()),
        weights_file: weights_file.map(Path::to_path_buf),
        weights_sha256,
    };
    Ok(LoadedTree {
        input,
        read_from: path.to_path_buf(),
        weights_read_from: weights_file.map(Path::to_path_buf),
        file,
        weights_file: weights,
        flush_reported: AtomicBool::new(false),
        notices: Mutex::new(notices),
    })
}

/// A subnormal weight's error, with the way through.
fn flush_hint(e: ReadError) -> Error {
    match e.reason() {
        Some(Reason::Subnormal { .. }) => {
            Error::Usage(format!("{e}; --subnormal flush reads such weights as zero"))
        }
        _ => Error::Read(e),
    }
}

/// How a weights file's keys were matched, for stderr: a key that is no label is read as a
/// vertex id, and a user should see when that happened.
fn keys_matched(w: &WeightsFile, labels: &Labels) -> String {
    match labels {
        Labels::Names { .. } | Labels::None => format!(
            "{} key(s) matched by label, {} by vertex id (preorder of the tree file)",
            w.by_label, w.by_id
        ),
        Labels::FileIds { .. } | Labels::Listed(_) => {
            format!("{} key(s) matched by vertex id of the file", w.by_id)
        }
    }
}

impl TreeInput {
    /// Reads the file again as recorded, within `memory_limit` bytes
    /// ([`ReadOptions::memory_limit`]); a file whose bytes changed since is refused.
    pub fn reload(&self, dir: &Path, memory_limit: Option<u64>) -> Result<LoadedTree, Error> {
        let opts = ReadOptions {
            format: Some(self.format.parse::<Format>().map_err(Error::Usage)?),
            tree_index: self.tree_index,
            root: self.root,
            forest: self.forest.parse::<ForestMode>().map_err(Error::Usage)?,
            subnormal: match &self.subnormal {
                Some(s) => s.parse::<Subnormal>().map_err(Error::Usage)?,
                None => Subnormal::Refuse,
            },
            memory_limit,
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
