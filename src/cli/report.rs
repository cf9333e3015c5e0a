//! `accuracy report`: re-renders a sweep directory's report without recomputing.

use clap::Args;
use std::path::{Path, PathBuf};
use treefix_accuracy::lock::DirLock;
use treefix_accuracy::{Error, output};

#[derive(Args)]
pub struct ReportArgs {
    /// A sweep directory (holds results.csv; summary.json, nodes-sample.csv are optional).
    dir: PathBuf,
    /// Per-topology bounds table (JSON) to include; default DIR/bounds-table.json if present.
    #[arg(long)]
    bounds_table: Option<PathBuf>,
    /// A bench.csv (`accuracy bench`) whose GPU kernel times the answer uses instead of the
    /// sweep's own (CPU twins' times are never compared with a GPU kernel's).
    #[arg(long, value_name = "FILE")]
    bench: Option<PathBuf>,
    /// The answer names the cheapest algorithm that lost at most B bits at every node
    /// (default: the sweep's --max-lost-bits, else 1).
    #[arg(long, value_name = "B", value_parser = super::parse_max_lost_bits)]
    max_lost_bits: Option<f64>,
    /// Where to write the report (default DIR/report.html; `-`: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(a: ReportArgs) -> Result<(), Error> {
    // The sweep's files must not change while they are read (a resume in the directory), and
    // two reports must not write one page at once.
    let _lock = DirLock::acquire_existing(&a.dir, "report")?;
    treefix_accuracy::sweep::check_finished(&a.dir)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| a.dir.join(reports::REPORT_FILE));
    // The files the report is rendered from.
    let sources: Vec<PathBuf> = ["results.csv", "summary.json", "sweep.json"]
        .iter()
        .chain(&[
            analysis::records::nodes_sample::FILE,
            reports::BOUNDS_TABLE_FILE,
        ])
        .map(|f| a.dir.join(f))
        .chain(a.bounds_table.clone())
        .chain(a.bench.clone())
        .collect();
    let inputs: Vec<(&str, &Path)> = sources
        .iter()
        .map(|p| ("a file the report is rendered from", p.as_path()))
        .collect();
    output::check_outputs(&output::given_files(&[("--out", Some(&out))]), &inputs)?;
    if a.dir.is_dir() {
        // What a killed sweep, merge or report left there (this process holds the lock).
        treefix_accuracy::sweep::files::remove_stale_temporaries(&a.dir, &inputs)?;
    }
    let inputs = reports::Inputs {
        bounds_table: a.bounds_table.as_deref(),
        bench: a.bench.as_deref(),
        max_lost_bits: a.max_lost_bits,
    };
    if super::is_stdout(&out) {
        // The page on standard output; the answer on standard error.
        let (html, answers) = reports::render_dir_answering(&a.dir, inputs)?;
        super::write_stdout(html.as_bytes())?;
        for sentence in answers {
            eprintln!("{sentence}");
        }
        return Ok(());
    }
    let written = treefix_accuracy::sweep::files::render_report(&a.dir, inputs, &out)?;
    println!("{}", describe(&written));
    print_answers(&written);
    Ok(())
}

/// The report's answer, one sentence per op, as the terminal's last lines.
pub fn print_answers(w: &reports::Written) {
    for sentence in &w.answers {
        println!("{sentence}");
    }
}

/// "wrote PATH (SIZE MB, rendered in T s)".
pub fn describe(w: &reports::Written) -> String {
    format!(
        "wrote {} ({:.2} MB, rendered in {:.2} s)",
        w.path.display(),
        w.bytes as f64 / 1e6,
        w.render_s
    )
}
