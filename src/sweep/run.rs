//! The evaluation loop: trees evaluated in parallel (or in GPU batches), their rows written in
//! job order as soon as each tree and every tree before it are done.

use super::files;
use super::gpu_batch::Batching;
use super::params::{Job, SweepParams};
use super::progress::Progress;
use super::resume::{Resumed, resume};
use super::summary::{Summary, Timings, violations_in_rows, worst};
use super::tree::TreeDone;
use crate::Error;
use crate::experiment::Backend;
use crate::inputs::LoadedTree;
use crate::lock::DirLock;
use crate::nodes_sample::SampleWriter;
use crate::notice::Notice;
use crate::output::csv_error;
use crate::verdict::Violations;
use analysis::records::results::ResultRow;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::Instant;

/// A tree's outcome and its position among the trees to do.
pub(super) type Outcome = (usize, Result<TreeDone, Error>);

/// What every tree of a run shares.
pub(super) struct Evaluation<'a> {
    pub params: &'a SweepParams,
    pub files: &'a [LoadedTree],
    pub backend: &'a dyn Backend,
    pub backend_name: &'a str,
    progress: &'a Progress,
    /// Set after the first error: no new tree is started.
    stop: AtomicBool,
}

impl Evaluation<'_> {
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Called as each tree finishes (in any order).
    pub fn tree_done(&self, job: &Job) {
        self.progress
            .tree_done(job.vertices(self.params, self.files));
    }
}

/// Runs (or resumes) a sweep into the directory `lock` holds; returns the rows of all trees.
/// `notify` receives what the caller may show as it happens (a resume, a judgement that
/// cannot be made against a reference that is not exact); `quiet` hides the progress bar.
pub fn run(
    params: &SweepParams,
    files: &[LoadedTree],
    lock: &DirLock,
    backend: &dyn Backend,
    quiet: bool,
    notify: &dyn Fn(Notice),
) -> Result<Vec<ResultRow>, Error> {
    let start = Instant::now();
    let dir = lock.dir();
    let environment = crate::environment::Environment::capture();
    files::remove_stale_temporaries(dir)?;
    let Resumed {
        params: recorded,
        rows,
        sample,
    } = resume(params, dir)?;
    let resumed_trees = rows.len() / params.rows_per_tree().max(1);
    let done: HashSet<usize> = rows.iter().map(|r| r.tree).collect();
    let todo: Vec<Job> = params
        .part_jobs()
        .into_iter()
        .filter(|j| !done.contains(&j.index))
        .collect();
    let total_trees = done.len() + todo.len();
    if resumed_trees > 0 {
        notify(Notice::info(format!(
            "resuming {}: {resumed_trees} of {total_trees} trees already done",
            dir.display()
        )));
    }
    let mut log = Log::open(files::partial(dir, files::RESULTS), sample, rows)?;
    let vertices = todo.iter().map(|j| j.vertices(params, files) as u64).sum();
    let progress = Progress::new(total_trees, done.len(), vertices, quiet);
    let backend_name = backend.describe();
    let evaluation = Evaluation {
        params,
        files,
        backend,
        backend_name: &backend_name,
        progress: &progress,
        stop: AtomicBool::new(false),
    };
    let outcome = evaluate_in_order(&evaluation, &todo, &mut log);
    progress.finish();
    outcome?;
    files::finish(dir)?;
    log.timings.wall_s = start.elapsed().as_secs_f64();

    let summary = Summary {
        tool: "treefix-accuracy",
        version: env!("CARGO_PKG_VERSION"),
        command_line: std::env::args().collect(),
        params: &recorded,
        backend: backend_name,
        trees: total_trees,
        resumed_trees,
        timings: log.timings,
        threads: rayon::current_num_threads(),
        worst: worst(params, &log.rows),
        environment,
    };
    let summary_path = dir.join(files::SUMMARY);
    let json = crate::versioned_json(&summary).map_err(Error::json(&summary_path))?;
    crate::output::write_file(&summary_path, (json + "\n").as_bytes())?;
    crate::verdict::fail_on_mismatches(&log.mismatches)?;
    if let Some(warning) = crate::verdict::fail_on_violations(&log.violations, params.reference)? {
        notify(warning);
    }
    Ok(log.rows)
}

/// Evaluates `todo` and hands each tree's outcome to `log` in job order. Trees are evaluated
/// in parallel; each one's rows reach the disk (flushed, then synced) as soon as it and every
/// tree before it are done, so results.csv is always a prefix of the job order and a resumed
/// sweep writes the same bytes as an uninterrupted one. The first error stops the sweep.
fn evaluate_in_order(e: &Evaluation<'_>, todo: &[Job], log: &mut Log) -> Result<(), Error> {
    let (tx, rx) = std::sync::mpsc::channel::<Outcome>();
    let mut first_error = None;
    std::thread::scope(|scope| {
        scope.spawn(move || produce(e, todo, tx));
        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (pos, done) in rx {
            pending.insert(pos, done);
            while let Some(done) = pending.remove(&next) {
                next += 1;
                if first_error.is_some() {
                    continue;
                }
                let tree = todo[next - 1].index;
                if let Err(err) = done.and_then(|d| log.append(tree, d)) {
                    e.stop.store(true, Ordering::Relaxed);
                    first_error = Some(err);
                }
            }
        }
    });
    first_error.map_or(Ok(()), Err)
}

/// Evaluates the trees batch by batch ([`Batching`]: a GPU's forests, or every tree at once
/// on the CPU), sending each tree's outcome with its position in `todo` as it is ready; stops
/// once the evaluation is stopped, and after a batch whose forests failed.
fn produce(e: &Evaluation<'_>, todo: &[Job], tx: Sender<Outcome>) {
    let batching = Batching {
        params: e.params,
        files: e.files,
        backend: e.backend,
        backend_name: e.backend_name,
    };
    let mut first = 0;
    for batch in batching.batches(todo) {
        if e.stopped() {
            return;
        }
        let pending = match batching.prepare(batch) {
            Ok(p) => p,
            Err(err) => {
                // The trees before this batch are written; the error ends the sweep.
                let _ = tx.send((first, Err(err)));
                return;
            }
        };
        pending
            .into_par_iter()
            .zip(batch.par_iter())
            .enumerate()
            .for_each_with(tx.clone(), |tx, (k, (pending, job))| {
                if e.stopped() {
                    return;
                }
                let done = batching.assess(pending, job);
                e.tree_done(job);
                let _ = tx.send((first + k, done));
            });
        first += batch.len();
    }
}

/// The sweep's files as trees finish, and what the summary and the verdicts need.
struct Log {
    results_path: PathBuf,
    writer: csv::Writer<fs::File>,
    sample: SampleWriter,
    rows: Vec<ResultRow>,
    violations: Violations,
    mismatches: (usize, Vec<String>),
    timings: Timings,
}

impl Log {
    /// Appends to the results log (`results.csv.partial`) after the `rows` resumed from it.
    fn open(
        results_path: PathBuf,
        sample: SampleWriter,
        rows: Vec<ResultRow>,
    ) -> Result<Log, Error> {
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&results_path)
            .map_err(Error::output(&results_path))?;
        let writer = csv::WriterBuilder::new()
            .has_headers(rows.is_empty())
            .from_writer(file);
        Ok(Log {
            results_path,
            writer,
            sample,
            // Resumed trees with violations are reported again (their nodes were printed when
            // found).
            violations: violations_in_rows(&rows, "resumed"),
            rows,
            mismatches: (0, Vec::new()),
            timings: Timings::default(),
        })
    }

    /// Writes one finished tree (the next in job order) to disk, then counts it: its sample,
    /// synced, then its rows, synced, so the results log never holds a tree the sample lacks.
    fn append(&mut self, tree: usize, d: TreeDone) -> Result<(), Error> {
        let path = &self.results_path;
        self.sample.write(tree, &d.sample)?;
        for row in &d.rows {
            self.writer.serialize(row).map_err(csv_error(path))?;
        }
        self.writer.flush().map_err(Error::write(path))?;
        self.writer
            .get_ref()
            .sync_data()
            .map_err(Error::write(path))?;
        self.violations.extend(d.violations);
        self.mismatches.0 += d.mismatches.0;
        self.mismatches.1.extend(d.mismatches.1);
        self.timings.generate_s += d.generate_s;
        self.timings.evaluate_s += d.evaluate_s;
        self.timings.add_kernels(d.kernels);
        self.rows.extend(d.rows);
        Ok(())
    }
}
