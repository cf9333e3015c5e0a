//! A sweep directory's files, and how they are written so that no reader ever mistakes an
//! unfinished sweep for a finished one.
//!
//! `results.csv` and `nodes-sample.csv` are logs the sweep appends to as trees finish; while
//! it runs they are `results.csv.partial` and `nodes-sample.csv.partial`, and they get their
//! final names (sample first, results last) only once every tree is written. So a directory
//! holding `results.csv` and no `results.csv.partial` is a finished sweep. Everything else
//! (`sweep.json`, `summary.json`, `report.html`, a merge's files) is written whole under a
//! temporary name in the same directory and renamed ([`crate::output::OutputFile`]). One
//! process at a time works in a sweep directory ([`crate::lock`]).

use crate::{Error, output};
use reports::{Inputs, REPORT_FILE, Written};
use std::fs;
use std::path::Path;

pub use analysis::records::nodes_sample::FILE as SAMPLE;
pub use analysis::records::results::FILE as RESULTS;
/// The sweep's parameters.
pub const PARAMS: &str = "sweep.json";
pub const SUMMARY: &str = "summary.json";
pub use super::logs::{PARTIAL, existing_log, partial, remove_if_present};

/// Gives the logs their final names, the sample's first (written whole without the lines
/// that close its trees), the results' last: the sweep in `dir` is finished.
pub fn finish(dir: &Path) -> Result<(), Error> {
    crate::nodes_sample::finish(dir)?;
    let from = partial(dir, RESULTS);
    if from.is_file() {
        let to = dir.join(RESULTS);
        fs::rename(&from, &to).map_err(Error::write(&to))?;
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

/// Every file a sweep or a merge writes, replaces or removes in its directory: the one output
/// rule keeps inputs out of them, and the cleanup removes their temporaries.
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = [PARAMS, SUMMARY, RESULTS, SAMPLE, REPORT_FILE]
        .map(String::from)
        .into();
    names.push(format!("{RESULTS}{PARTIAL}"));
    names.push(format!("{SAMPLE}{PARTIAL}"));
    names
}

/// Refuses a sweep or merge directory `dir` (named by `flag`) that would overwrite or remove
/// one of `inputs` ([`crate::output::check_destination`]).
pub fn check_inputs(flag: &str, dir: &Path, inputs: &[(&str, &Path)]) -> Result<(), Error> {
    let names = names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    output::check_destination(
        &output::Destination::Dir {
            flag,
            dir,
            names: &names,
        },
        inputs,
    )
}

/// Removes the temporary files a killed run left in `dir` (a kill -9 gives a process no
/// chance to remove its own), those of the directory's own files only. The caller holds the
/// directory's lock.
pub fn remove_stale_temporaries(dir: &Path) -> Result<(), Error> {
    let names = names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    output::cleanup::remove_stale_temporaries(dir, &names)
}

/// Makes the renames in `dir` durable (a crash after `finish` cannot bring back `.partial`).
fn sync_dir(dir: &Path) -> Result<(), Error> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(Error::io(dir))
}

/// Renders `dir`'s report into `DIR/report.html` (whole or not at all, as every output). A
/// threshold of lost bits for the answer (`sweep --max-lost-bits`) is first recorded in
/// summary.json, so that `accuracy report DIR` renders the same page.
pub fn write_report(dir: &Path, max_lost_bits: Option<f64>) -> Result<Written, Error> {
    if let Some(bits) = max_lost_bits {
        record_threshold(dir, bits)?;
    }
    render_report(dir, Default::default(), &dir.join(REPORT_FILE))
}

/// Renders the report of the sweep in `dir` with `inputs` into `out`; the answer's sentences
/// come back for the terminal.
pub fn render_report(dir: &Path, inputs: Inputs<'_>, out: &Path) -> Result<Written, Error> {
    let t0 = std::time::Instant::now();
    let (html, answers) = reports::render_dir_answering(dir, inputs)?;
    let render_s = t0.elapsed().as_secs_f64();
    output::write_file(out, html.as_bytes())?;
    Ok(Written {
        path: out.to_path_buf(),
        bytes: html.len(),
        render_s,
        answers,
    })
}

/// Adds `"answer": {"max_lost_bits": B}` to summary.json, as its last field: the sweep has
/// just written the file whole, without it, and its other fields keep their order and bytes.
fn record_threshold(dir: &Path, bits: f64) -> Result<(), Error> {
    let path = dir.join(SUMMARY);
    let text = fs::read_to_string(&path).map_err(Error::io(&path))?;
    let field = reports::data::ANSWER_FIELD;
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
    output::write_file(&path, recorded.as_bytes())
}
