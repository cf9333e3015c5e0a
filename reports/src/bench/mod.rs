//! `bench.html`: the seed paper's performance figures from `bench.csv` (`accuracy bench`).
//!
//! Fig. 7 (time versus tree size on the star and the chain — the paper's caterpillar), Fig. 5
//! (speed-up over the sequential CPU order), Fig. 4 (compute and transfer time per tree), a
//! table of every row and the copy / upload / download baselines as effective bandwidth. With
//! more than three kernels the figures are grids of panels, one per kernel
//! (`small_multiples.rs`), and a small table compares the kernels side by side. The tables
//! are [`table`] models, shared with the terminal's (`accuracy bench`). The page is
//! self-contained like `report.html`: inline SVG, the embedded font, no script.

mod figures;
mod series;
mod small_multiples;
pub mod table;
mod tables;

use super::fmt::escape;
use super::{ReportError, Written, page, write_page};
use analysis::records::bench::{BenchRecord, FILE};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The file name of the page inside the bench directory.
pub const BENCH_REPORT_FILE: &str = "bench.html";

/// The `algorithm` of the baseline rows (with `op` empty).
pub const BASELINES: [&str; 3] = ["copy", "upload", "download"];

/// `bench.csv` and where it came from.
#[derive(Debug, Clone)]
pub struct BenchData {
    pub path: PathBuf,
    pub rows: Vec<BenchRecord>,
}

impl BenchData {
    /// Reads `dir/bench.csv`.
    pub fn load(dir: &Path) -> Result<BenchData, ReportError> {
        let path = dir.join(FILE);
        if !path.is_file() {
            return Err(ReportError::MissingBench { path });
        }
        let err = |source| ReportError::Csv {
            path: path.clone(),
            source,
        };
        let mut reader = csv::Reader::from_path(&path).map_err(err)?;
        let rows = reader
            .deserialize()
            .collect::<Result<Vec<BenchRecord>, _>>()
            .map_err(err)?;
        Ok(BenchData { path, rows })
    }

    /// The kernel rows (everything but the baselines).
    pub fn kernels(&self) -> impl Iterator<Item = &BenchRecord> {
        self.rows.iter().filter(|r| !is_baseline(r))
    }

    /// Ops of the kernel rows, in order of first appearance.
    pub fn ops(&self) -> Vec<String> {
        unique(self.kernels().map(|r| r.op.clone()))
    }

    /// Topologies (and tree files) of the kernel rows, in order of first appearance.
    pub fn topologies(&self) -> Vec<String> {
        unique(self.kernels().map(|r| r.topology.clone()))
    }
}

/// Whether `r` is a copy / upload / download baseline.
pub fn is_baseline(r: &BenchRecord) -> bool {
    r.op.is_empty() && BASELINES.contains(&r.algorithm.as_str())
}

/// Whether `topology` names a tree file rather than a generated family.
pub fn is_file(topology: &str) -> bool {
    topology.parse::<generators::Topology>().is_err()
}

/// `cpu` or `gpu`.
pub fn backend_kind(backend: &str) -> &'static str {
    if backend == "cpu" { "cpu" } else { "gpu" }
}

fn unique(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// Renders `bench.html` from the rows.
pub fn render(data: &BenchData) -> Result<String, ReportError> {
    let mut h = String::with_capacity(1 << 19);
    page::head(
        &mut h,
        &format!("Performance report — {}", data.path.display()),
    );
    intro(&mut h, data);
    figures::fig7(&mut h, data)?;
    figures::fig5(&mut h, data)?;
    figures::fig4(&mut h, data)?;
    tables::kernels(&mut h, data);
    tables::rows(&mut h, data);
    tables::baselines(&mut h, data);
    page::footer(&mut h);
    Ok(h)
}

/// Reads `dir/bench.csv` and writes `dir/bench.html`.
pub fn write_bench_report(dir: &Path) -> Result<Written, ReportError> {
    write_page(dir.join(BENCH_REPORT_FILE), || {
        render(&BenchData::load(dir)?)
    })
}

fn intro(h: &mut String, data: &BenchData) {
    let backends = unique(data.rows.iter().map(|r| r.backend.clone()));
    let topologies = data.topologies();
    let (lo, hi) = data
        .kernels()
        .fold((usize::MAX, 0), |(lo, hi), r| (lo.min(r.n), hi.max(r.n)));
    let _ = write!(
        h,
        "<h1>How fast is treefix?</h1>\n<p class=\"lead\">Performance report of <code>{}</code>: {} rows ({} kernel, {} baseline), rendered from the file by <code>reports::bench</code>.</p>\n",
        escape(&data.path.display().to_string()),
        data.rows.len(),
        data.kernels().count(),
        data.rows.len() - data.kernels().count(),
    );
    let side_by_side = if small_multiples::wanted(&series::groups(data)) {
        " · <a href=\"#bench-kernels\">kernels side by side</a>"
    } else {
        ""
    };
    let _ = writeln!(
        h,
        "<nav><p class=\"lead\">Contents: <a href=\"#fig7\">time vs size</a> · <a href=\"#fig5\">speed-up</a> · <a href=\"#fig4\">time per tree</a>{side_by_side} · <a href=\"#bench-rows\">all rows</a> · <a href=\"#baselines\">baselines</a></p></nav>"
    );
    h.push_str("<section id=\"bench-run\">\n<h2>What was measured</h2>\n<table class=\"kv\" id=\"bench-params\">\n");
    let mut row = |k: &str, v: String| {
        let _ = writeln!(h, "<tr><th>{k}</th><td>{}</td></tr>", escape(&v));
    };
    row("Backends", backends.join("; "));
    row("Trees", topologies.join(", "));
    if lo <= hi {
        row("Vertices", format!("{lo} – {hi}"));
    }
    row("Operations", data.ops().join(", "));
    row(
        "Algorithms",
        unique(data.kernels().map(|r| r.algorithm.clone())).join(", "),
    );
    h.push_str("</table>\n<p class=\"lead\">Times are medians over the repetitions of each row (min and max in the table). Compute: the kernels alone (GPU timestamps where available); transfers: the weights up and the results down, not the tree's upload (the paper's iterative use uploads a tree once).</p>\n</section>\n");
}
