//! Self-contained HTML reports of a sweep directory.
//!
//! A report is rendered only from the files a sweep leaves in its directory — `results.csv`
//! (required), `summary.json`, `sweep.json`, `nodes-sample.csv` and an optional
//! `bounds-table.json` — so `accuracy report DIR` re-renders it without recomputing anything.
//! The output is one HTML file: inline CSS, inline SVG plots drawn with plotters, and the
//! embedded DejaVu Sans font (as an `@font-face` data URI, also used for the plots' text
//! metrics), so it looks the same on every machine, offline, without JavaScript.

pub mod answer;
pub mod bench;
pub mod comparison;
pub mod data;
pub mod figure;
pub mod findings;
mod fmt;
pub mod font;
pub mod html;
pub mod legend;
mod page;
pub mod panels;
pub mod plots;
pub mod spatial;
pub mod style;
#[cfg(test)]
mod test_rows;
pub mod ulps;

pub use bench::write_bench_report;
pub use data::{BOUND_COLUMNS, NodeRecord, ReportData, ResultRow};
pub use fmt::{pow10_label, sci, sci_text, sig3};

use std::path::{Path, PathBuf};
use std::time::Instant;

/// Everything that can stop a report, each a one-line message naming the file.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(
        "{}: not found; `accuracy report DIR` needs a sweep directory (run `accuracy sweep --out DIR` first)",
        path.display()
    )]
    MissingResults { path: PathBuf },
    #[error(
        "{}: not found; `accuracy bench --out DIR` writes it",
        path.display()
    )]
    MissingBench { path: PathBuf },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The page cannot be written (a full disk, a quota).
    #[error("{}: write failed: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Csv { path: PathBuf, source: csv::Error },
    #[error("{}: {source}", path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("plot '{what}': {message}")]
    Plot { what: String, message: String },
}

/// The file name of a report inside its sweep directory.
pub const REPORT_FILE: &str = "report.html";
/// The optional per-topology bounds table (written by `accuracy bounds-table`).
pub const BOUNDS_TABLE_FILE: &str = analysis::records::bounds_table::FILE;

/// What `write_report` produced.
#[derive(Debug, Clone)]
pub struct Written {
    pub path: PathBuf,
    pub bytes: usize,
    /// Loading and rendering, without writing the file (seconds).
    pub render_s: f64,
    /// The answer for the terminal (a sweep's report; empty for other pages): per op its
    /// sentence with the details indented under it, then the GPU bench command where needed.
    pub answers: Vec<String>,
}

/// Files a report reads besides its sweep directory's.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inputs<'a> {
    /// A per-topology bounds table (JSON); default `dir/bounds-table.json` if present.
    pub bounds_table: Option<&'a Path>,
    /// A `bench.csv` whose GPU kernel times the answer uses instead of the sweep's own.
    pub bench: Option<&'a Path>,
    /// The answer's threshold of lost bits (default: summary.json's, else 1).
    pub max_lost_bits: Option<f64>,
}

/// Loads `dir`'s files and renders the report as one HTML string.
pub fn render_dir(dir: &Path, inputs: Inputs<'_>) -> Result<String, ReportError> {
    let data = ReportData::load(dir, inputs)?;
    html::render(&data)
}

/// Renders `dir`'s report and writes it to `out` (default `dir/report.html`).
pub fn write_report(
    dir: &Path,
    inputs: Inputs<'_>,
    out: Option<&Path>,
) -> Result<Written, ReportError> {
    let path = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| dir.join(REPORT_FILE));
    write_page(path, || render_dir(dir, inputs))
}

/// [`render_dir`], with the answer's sentences (one per op) for a terminal.
pub fn render_dir_answering(
    dir: &Path,
    inputs: Inputs<'_>,
) -> Result<(String, Vec<String>), ReportError> {
    let data = ReportData::load(dir, inputs)?;
    let answers = answer::terminal(&data);
    Ok((html::render(&data)?, answers))
}

/// Writes `bytes` under a temporary name beside `path`, synced, then renamed over it: a page
/// is complete or absent, never cut short under its name. A path that exists and is not a
/// regular file (`/dev/stdout`) is written directly.
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return std::fs::write(path, bytes);
    }
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".report.").suffix(".partial");
    // A new page gets the usual mode (0666 less the umask; tempfile's default is 0600), a
    // replaced one keeps its own.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut file = builder.tempfile_in(dir)?;
    if let Ok(m) = std::fs::metadata(&target) {
        file.as_file().set_permissions(m.permissions())?;
    }
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(&target).map(|_| ()).map_err(|e| e.error)
}

/// Renders a page (timed) and writes it to `path`.
fn write_page(
    path: PathBuf,
    render: impl FnOnce() -> Result<String, ReportError>,
) -> Result<Written, ReportError> {
    let t0 = Instant::now();
    let text = render()?;
    let render_s = t0.elapsed().as_secs_f64();
    write_whole(&path, text.as_bytes()).map_err(|source| ReportError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(Written {
        path,
        bytes: text.len(),
        render_s,
        answers: Vec::new(),
    })
}
