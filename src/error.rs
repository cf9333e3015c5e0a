//! The errors a command can end with, each a one-line message.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Csv { path: PathBuf, source: csv::Error },
    /// An output directory or file that cannot be created (a usage error: choose another).
    #[error("{path}: cannot write here: {source}")]
    Output {
        path: PathBuf,
        source: std::io::Error,
    },
    /// An output file whose bytes cannot be written (a full disk, a quota, an I/O error).
    #[error("{path}: write failed: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("weights: {0}")]
    Generate(#[from] generators::gensum::GenError),
    #[error("tree: {0}")]
    Tree(#[from] generators::TreeError),
    /// A tree, weights or results file that cannot be read: `FILE:LINE:COL: reason`.
    #[error("{0}")]
    Read(#[from] generators::io::ReadError),
    #[error("{0}")]
    Usage(String),
    /// No adapter, a GPU failure.
    #[error("gpu: {0}")]
    Gpu(String),
    /// A tree beyond the adapter's limits (a usage error: a smaller tree, or the CPU twins).
    #[error("gpu: {0}")]
    GpuLimit(String),
    #[error(
        "{dir}: holds a {what} with other parameters ({field} differs); choose another --out or remove it"
    )]
    ResumeMismatch {
        dir: PathBuf,
        /// `sweep` or `bench`.
        what: &'static str,
        field: String,
    },
    /// An error above a rigorous bound: a bug in a kernel, a bound or the reference.
    #[error(
        "{} node(s) exceed a deterministic error bound (listed above): this is a bug, not noise",
        .0.count
    )]
    BoundViolation(Flagged),
    /// A backend's result differs from its CPU twin's bits: a bug in a kernel or a driver.
    #[error(
        "{} node(s) differ from their CPU twin's bits (listed above): the GPU kernel or driver is wrong",
        .0.count
    )]
    GpuMismatch(Flagged),
    /// `accuracy check`: more bits lost than the committed baseline allows.
    #[error("{0} lost-bits regression(s) against the baseline (table above)")]
    Regression(usize),
    /// A gate of `accuracy score` (`--max-lost-bits`, `--max-ulps`) failed: the scored
    /// results are less accurate than required.
    #[error("{0}")]
    Gate(String),
    #[error("{0}")]
    Report(#[from] reports::ReportError),
    /// A command whose estimated peak memory exceeds what is available (`crate::memory`).
    #[error("{0}")]
    Memory(String),
    /// A directory another process holds the lock of (`crate::lock`).
    #[error(
        "{}: in use by another accuracy process ({holder}); wait for it to end, or use another directory",
        dir.display()
    )]
    Locked { dir: PathBuf, holder: String },
    /// An output file another process holds the lock of (`crate::lock::FileLock`).
    #[error(
        "{}: written by another accuracy process ({holder}); wait for it to end, or write another file",
        path.display()
    )]
    LockedFile { path: PathBuf, holder: String },
    /// A result that contradicts what the code guarantees: a bug, not the user's input.
    #[error("internal error: {0} (a bug; please report it with the command)")]
    Internal(String),
}

/// The nodes a verdict found: how many, and a line for each one reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flagged {
    pub count: usize,
    pub lines: Vec<String>,
}

impl Error {
    /// The nodes behind a verdict, with the heading they are listed under, for the binary to
    /// show above the error's own line.
    pub fn listing(&self) -> Option<(&'static str, &[String])> {
        match self {
            Error::BoundViolation(f) => Some(("DETERMINISTIC BOUND VIOLATED (a bug):", &f.lines)),
            Error::GpuMismatch(f) => {
                Some(("GPU RESULT DIFFERS FROM ITS CPU TWIN (a bug):", &f.lines))
            }
            _ => None,
        }
    }

    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
    pub fn output(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Output { path, source }
    }
    pub fn write(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Write { path, source }
    }
    pub fn csv(path: impl Into<PathBuf>) -> impl FnOnce(csv::Error) -> Error {
        let path = path.into();
        move |source| Error::Csv { path, source }
    }
    pub fn json(path: impl Into<PathBuf>) -> impl FnOnce(serde_json::Error) -> Error {
        let path = path.into();
        move |source| Error::Json { path, source }
    }
    /// Process exit code: 2 for bad usage and for every input or output error (a file that
    /// cannot be read or parsed, an output that cannot be written, a directory in use, a
    /// command that would not fit in memory), 3 for a deterministic-bound violation, 4 for a
    /// lost-bits regression or a failed accuracy gate, 1 for the rest (a GPU failure, a
    /// report's plot that cannot be drawn, a generated tree that is not one: bugs or broken
    /// drivers, not the user's files).
    pub fn exit_code(&self) -> u8 {
        use reports::ReportError;
        match self {
            Error::Usage(_)
            | Error::Generate(_)
            | Error::Read(_)
            | Error::Io { .. }
            | Error::Csv { .. }
            | Error::Json { .. }
            | Error::Output { .. }
            | Error::Write { .. }
            | Error::GpuLimit(_)
            | Error::ResumeMismatch { .. }
            | Error::Memory(_)
            | Error::Locked { .. }
            | Error::LockedFile { .. } => 2,
            Error::BoundViolation(_) | Error::GpuMismatch(_) => 3,
            Error::Regression(_) | Error::Gate(_) => 4,
            Error::Report(ReportError::Plot { .. }) => 1,
            Error::Report(_) => 2,
            Error::Gpu(_) | Error::Tree(_) | Error::Internal(_) => 1,
        }
    }
}
