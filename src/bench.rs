//! A bench run (`accuracy bench`): its parts measured in order, each announced to the caller, and with
//! `--out DIR` each part's rows appended to `DIR/bench.csv` as soon as it is done, so that a
//! run killed at any moment resumes where it stopped when started again with the same
//! parameters on the same device.
//!
//! While parts remain, the rows go to `DIR/bench.csv.partial`; it is renamed to `bench.csv`
//! when the last part is done, so a `bench.csv` is always a finished run's (a directory of an
//! earlier version, whose unfinished run appended to `bench.csv` itself, resumes there).
//!
//! `DIR/bench.json` records what the run measures ([`BenchSetup`]) and which parts are done,
//! with the length of the rows file after the last of them. It is rewritten atomically after
//! the part's rows are synced to disk: on resume, rows past that length (a part cut short)
//! are dropped and measured again, and rows before it are kept byte for byte. Timings from
//! another device or other parameters are never mixed in: that is a one-line error.

use crate::Error;
use crate::experiment::Backend;
use crate::gpu::Gpu;
use crate::gpu::bench::{Bench, BenchParams, Part, parts};
use crate::inputs::{LoadedTree, TreeInput};
use crate::sweep::first_difference;
use analysis::records::bench::BenchRecord;
use generators::ChildOrder;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The state file of a bench directory.
pub const STATE_FILE: &str = "bench.json";

/// What a bench run measures, and on what: a resumed run must match it field for field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchSetup {
    /// The GPU backend's description (adapter, API, driver).
    pub backend: String,
    #[serde(flatten)]
    pub params: BenchParams,
    /// The tree files (`--tree`), with their SHA-256.
    pub files: Vec<TreeInput>,
}

/// `bench.json`: the setup, the parts done, and the bytes of `bench.csv` that hold them.
#[derive(Debug, Serialize, Deserialize)]
struct BenchState {
    #[serde(flatten)]
    setup: BenchSetup,
    done: Vec<String>,
    csv_bytes: u64,
}

/// How far a bench run is, for the caller to show (the binary draws a bar).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BenchProgress {
    /// Before the first part: `parts` in all, `resumed` of them done by an earlier run.
    Start { parts: usize, resumed: usize },
    /// A part begins.
    Part(String),
    /// A part is done.
    PartDone,
    /// After the last part.
    Finished,
}

/// Measures every part not done yet (all of them without `out`) and returns the rows of the
/// whole run, resumed ones first, in the order of an uninterrupted run. `progress` hears of
/// each part.
pub fn run(
    gpu: &Gpu,
    params: &BenchParams,
    files: &[LoadedTree],
    out: Option<&Path>,
    progress: &dyn Fn(BenchProgress),
) -> Result<Vec<BenchRecord>, Error> {
    let names: Vec<String> = files.iter().map(LoadedTree::name).collect();
    let trees: Vec<_> = files
        .iter()
        .map(|f| (f.name(), f.tree(ChildOrder::Natural)))
        .collect();
    let setup = BenchSetup {
        backend: gpu.describe(),
        params: params.clone(),
        files: files.iter().map(|f| f.input.clone()).collect(),
    };
    let all = parts(params, files.len());
    let mut record = match out {
        Some(dir) => Some(Record::open(dir, setup)?),
        None => None,
    };
    let mut rows = record.as_ref().map_or(Ok(Vec::new()), Record::rows)?;
    let done = |part: &Part, r: &Option<Record>| {
        r.as_ref()
            .is_some_and(|r| r.state.done.contains(&part.label(&names)))
    };
    let resumed = all.iter().filter(|p| done(p, &record)).count();

    progress(BenchProgress::Start {
        parts: all.len(),
        resumed,
    });
    let bench = Bench::new(gpu, params)?;
    for part in &all {
        if done(part, &record) {
            continue;
        }
        let label = part.label(&names);
        progress(BenchProgress::Part(label.clone()));
        let new = bench.measure(*part, &trees)?;
        if let Some(r) = record.as_mut() {
            r.append(&label, &new)?;
        }
        rows.extend(new);
        progress(BenchProgress::PartDone);
    }
    progress(BenchProgress::Finished);
    if let Some(r) = record {
        r.finish()?;
    }
    Ok(rows)
}

/// The rows file of a run in progress (`bench.csv` once it is finished).
const PARTIAL: &str = "bench.csv.partial";

/// `DIR/bench.csv.partial` (or an earlier version's `bench.csv`) and `DIR/bench.json` of a
/// run in progress.
struct Record {
    /// Where the rows go.
    csv: PathBuf,
    /// `DIR/bench.csv`.
    done_csv: PathBuf,
    json: PathBuf,
    state: BenchState,
}

impl Record {
    /// Resumes the run in `dir` if it has the same setup (dropping rows of a part cut short),
    /// else refuses; starts a new one where `dir` holds no bench.json.
    fn open(dir: &Path, setup: BenchSetup) -> Result<Record, Error> {
        fs::create_dir_all(dir).map_err(Error::output(dir))?;
        let done_csv = dir.join(analysis::records::bench::FILE);
        let partial = dir.join(PARTIAL);
        let json = dir.join(STATE_FILE);
        if json.exists() {
            // A finished run's rows, or an earlier version's unfinished ones, are in bench.csv.
            let csv = if !partial.exists() && done_csv.exists() {
                done_csv.clone()
            } else {
                partial
            };
            let text = fs::read_to_string(&json).map_err(Error::io(&json))?;
            let state: BenchState = serde_json::from_str(&text).map_err(Error::json(&json))?;
            if let Some(field) = first_difference(&state.setup, &setup) {
                return Err(Error::ResumeMismatch {
                    dir: dir.to_path_buf(),
                    what: "bench",
                    field,
                });
            }
            let len = fs::metadata(&csv).map(|m| m.len()).unwrap_or(0);
            if len < state.csv_bytes {
                return Err(Error::Usage(format!(
                    "{}: {} bytes, but {} records {} bytes of finished parts; remove {} to start again",
                    csv.display(),
                    len,
                    json.display(),
                    state.csv_bytes,
                    dir.display()
                )));
            }
            if len > state.csv_bytes {
                let file = fs::OpenOptions::new()
                    .write(true)
                    .open(&csv)
                    .map_err(Error::io(&csv))?;
                file.set_len(state.csv_bytes).map_err(Error::io(&csv))?;
                file.sync_all().map_err(Error::io(&csv))?;
            }
            return Ok(Record {
                csv,
                done_csv,
                json,
                state,
            });
        }
        let record = Record {
            csv: partial,
            done_csv,
            json,
            state: BenchState {
                setup,
                done: Vec::new(),
                csv_bytes: 0,
            },
        };
        // The empty rows file first, then the state: a kill in between leaves no bench.json
        // (the next run starts afresh), and an old bench.csv is never taken for this run's.
        fs::write(&record.csv, "").map_err(Error::output(&record.csv))?;
        record.save()?;
        Ok(record)
    }

    /// Gives the rows their final name once every part is done.
    fn finish(self) -> Result<(), Error> {
        if self.csv == self.done_csv {
            return Ok(());
        }
        fs::rename(&self.csv, &self.done_csv).map_err(Error::write(&self.done_csv))
    }

    /// The rows of the parts done.
    fn rows(&self) -> Result<Vec<BenchRecord>, Error> {
        if self.state.csv_bytes == 0 {
            return Ok(Vec::new());
        }
        csv::Reader::from_path(&self.csv)
            .and_then(|r| r.into_deserialize().collect())
            .map_err(Error::csv(&self.csv))
    }

    /// Appends a finished part's rows, syncs them, then records the part as done.
    fn append(&mut self, label: &str, rows: &[BenchRecord]) -> Result<(), Error> {
        // Created if missing: a kill between writing bench.json and creating bench.csv.
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.csv)
            .map_err(Error::io(&self.csv))?;
        let mut w = csv::WriterBuilder::new()
            .has_headers(self.state.csv_bytes == 0)
            .from_writer(file);
        for r in rows {
            w.serialize(r)
                .map_err(crate::output::csv_error(&self.csv))?;
        }
        let mut file = w
            .into_inner()
            .map_err(|e| Error::write(&self.csv)(e.into_error()))?;
        file.flush().map_err(Error::write(&self.csv))?;
        file.sync_all().map_err(Error::write(&self.csv))?;
        self.state.csv_bytes = file.metadata().map_err(Error::io(&self.csv))?.len();
        self.state.done.push(label.to_string());
        self.save()
    }

    /// bench.json, replaced atomically.
    fn save(&self) -> Result<(), Error> {
        let tmp = self.json.with_extension("json.tmp");
        let text = crate::versioned_json(&self.state).map_err(Error::json(&self.json))?;
        fs::write(&tmp, text + "\n").map_err(Error::output(&tmp))?;
        fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(Error::io(&tmp))?;
        fs::rename(&tmp, &self.json).map_err(Error::io(&self.json))
    }
}
