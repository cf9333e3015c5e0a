//! A sweep directory's files, and how they are written so that no reader ever mistakes an
//! unfinished sweep for a finished one.
//!
//! `results.csv` and `nodes-sample.csv` are logs the sweep appends to as trees finish; while
//! it runs they are `results.csv.partial` and `nodes-sample.csv.partial`, and they get their
//! final names (sample first, results last) only once every tree is written. So a directory
//! holding `results.csv` and no `results.csv.partial` is a finished sweep. Everything else
//! (`sweep.json`, `summary.json`, `report.html`, a merge's files) is written whole under a
//! temporary name in the same directory and renamed.

use crate::Error;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

pub use analysis::records::nodes_sample::FILE as SAMPLE;
pub use analysis::records::results::FILE as RESULTS;
/// The sweep's parameters.
pub const PARAMS: &str = "sweep.json";
pub const SUMMARY: &str = "summary.json";
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

/// Gives the logs their final names: the sweep in `dir` is finished.
pub fn finish(dir: &Path) -> Result<(), Error> {
    for name in [SAMPLE, RESULTS] {
        let from = partial(dir, name);
        if from.is_file() {
            let to = dir.join(name);
            fs::rename(&from, &to).map_err(Error::io(&to))?;
        }
    }
    sync_dir(dir)
}

/// `Err` with a one-line message when `dir` holds a sweep that has not finished (its logs
/// still have their `.partial` names).
pub fn check_finished(dir: &Path) -> Result<(), Error> {
    let log = partial(dir, RESULTS);
    if log.exists() {
        return Err(Error::Usage(format!(
            "{}: the sweep has not finished (its results are in {RESULTS}{PARTIAL}); \
             finish it with `accuracy sweep --resume {}`",
            dir.display(),
            dir.display()
        )));
    }
    Ok(())
}

/// Writes `bytes` to `path` whole or not at all: into a temporary file beside it, synced, then
/// renamed over `path`. An error creating the file is an output error (exit 2).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut tmp = temporary_beside(path)?;
    tmp.write_all(bytes).map_err(Error::io(path))?;
    tmp.as_file().sync_all().map_err(Error::io(path))?;
    tmp.persist(path).map_err(|e| Error::io(path)(e.error))?;
    Ok(())
}

/// A temporary file beside `path`, to be renamed to it with [`tempfile::NamedTempFile::persist`]
/// once complete (removed if dropped before).
pub fn temporary_beside(path: &Path) -> Result<tempfile::NamedTempFile, Error> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // The permissions of a file created the ordinary way (0666 less the umask), not the
    // owner-only ones of a temporary file: it becomes a result others may read.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    builder
        .tempfile_in(parent(path))
        .map_err(Error::output(path))
}

/// Removes the temporary files a killed run left in `dir` (a kill -9 gives a process no
/// chance to remove its own): those [`temporary_beside`] names after this directory's files.
pub fn remove_stale_temporaries(dir: &Path) -> Result<(), Error> {
    let ours = [
        PARAMS,
        SUMMARY,
        RESULTS,
        SAMPLE,
        analysis::report::REPORT_FILE,
    ];
    for entry in fs::read_dir(dir).map_err(Error::io(dir))? {
        let entry = entry.map_err(Error::io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let stale = name.ends_with(".tmp")
            && ours.iter().any(|f| {
                name.strip_prefix('.')
                    .and_then(|n| n.strip_prefix(f))
                    .is_some_and(|rest| rest.starts_with('.'))
            });
        if stale {
            remove_if_present(&entry.path())?;
        }
    }
    Ok(())
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Makes the renames in `dir` durable (a crash after `finish` cannot bring back `.partial`).
fn sync_dir(dir: &Path) -> Result<(), Error> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(Error::io(dir))
}

/// Renders `dir`'s report into `DIR/report.html`, through a temporary file beside it. A
/// threshold of lost bits for the answer (`sweep --max-lost-bits`) is first recorded in
/// summary.json, so that `accuracy report DIR` renders the same page.
pub fn write_report(
    dir: &Path,
    max_lost_bits: Option<f64>,
) -> Result<analysis::report::Written, Error> {
    if let Some(bits) = max_lost_bits {
        record_threshold(dir, bits)?;
    }
    let path = dir.join(analysis::report::REPORT_FILE);
    let tmp = temporary_beside(&path)?;
    let mut written = analysis::report::write_report(dir, Default::default(), Some(tmp.path()))?;
    tmp.persist(&path).map_err(|e| Error::io(&path)(e.error))?;
    written.path = path;
    Ok(written)
}

/// Adds `"answer": {"max_lost_bits": B}` to summary.json, as its last field: the sweep has
/// just written the file whole, without it, and its other fields keep their order and bytes.
fn record_threshold(dir: &Path, bits: f64) -> Result<(), Error> {
    let path = dir.join(SUMMARY);
    let text = fs::read_to_string(&path).map_err(Error::io(&path))?;
    let field = analysis::report::data::ANSWER_FIELD;
    let entry = serde_json::json!({ "max_lost_bits": bits });
    let body = text.trim_end().strip_suffix('}').map(str::trim_end);
    let recorded = match body {
        Some(body) if !body.ends_with('{') => format!("{body},\n  \"{field}\": {entry}\n}}\n"),
        _ => {
            return Err(Error::Usage(format!(
                "{}: not a JSON object",
                path.display()
            )));
        }
    };
    serde_json::from_str::<serde_json::Value>(&recorded).map_err(Error::json(&path))?;
    write_atomic(&path, recorded.as_bytes())
}
