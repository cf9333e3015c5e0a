//! Resuming a sweep: `sweep.json` written or checked, and the trees whose rows reached both
//! logs (results and node sample) before an interruption kept.

use super::files;
use super::nodes_sample::{NodeRecord, SampleLog, SampleWriter};
use super::params::{Job, SweepParams};
use super::shard::Shard;
use crate::Error;
use crate::output::{OutputFile, csv_error};
use analysis::records::results::ResultRow;
use serde::Serialize;
use std::collections::HashSet;
use std::fs;
use std::path::Path;

/// The rows of the results log, in log order, up to its first line that does not parse. A
/// kill or a power loss can cut the last line anywhere, even inside its last number, where it
/// would still parse: everything after the last newline is dropped before reading, and so is
/// everything from the first line that does not parse (the zeros a crash can leave).
fn logged_rows(results_path: &Path) -> Result<Vec<ResultRow>, Error> {
    let mut bytes = fs::read(results_path).map_err(Error::io(results_path))?;
    let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(end);
    Ok(csv::Reader::from_reader(bytes.as_slice())
        .deserialize()
        .map_while(Result::ok)
        .collect())
}

/// How many trees a resume keeps: the longest run of jobs, in job order, whose rows come next
/// in the results log and whose records next in the sample log, each whole and each its own.
/// From the first tree that is not (a log cut short, zeros, a changed byte, a tree out of
/// place), both logs are dropped and everything is computed again in order, so a resumed
/// sweep writes the bytes of an uninterrupted one.
fn kept_trees(params: &SweepParams, jobs: &[Job], rows: &[ResultRow], sample: &SampleLog) -> usize {
    let per_tree = params.rows_per_tree();
    jobs.iter()
        .enumerate()
        .take_while(|&(k, job)| {
            let sampled = sample
                .complete_trees()
                .is_none_or(|trees| trees.get(k) == Some(&job.index));
            let own = rows.get(k * per_tree..(k + 1) * per_tree);
            sampled && own.is_some_and(|own| rows_of(params, job, own))
        })
        .count()
}

/// Whether `rows` are exactly the rows of `job`: one per op and algorithm, each naming the
/// job's tree, seed, child order and target, the sweep's weights and reference, in text a
/// sweep writes (no control character: a NUL inside a name is damage).
fn rows_of(params: &SweepParams, job: &Job, rows: &[ResultRow]) -> bool {
    let mut pairs = HashSet::new();
    rows.iter().all(|r| {
        let texts = [&r.topology, &r.algorithm, &r.op, &r.backend]
            .into_iter()
            .chain(r.source.as_ref())
            .chain(r.source_sha256.as_ref());
        r.tree == job.index
            && r.seed == job.seed
            && r.target_cond == job.target_cond
            && r.child_order == job.child_order.name()
            && r.weights == params.weights.name()
            && r.reference == params.reference.name()
            && params.ops.iter().any(|o| o.name() == r.op)
            && params.algos.iter().any(|a| a.name() == r.algorithm)
            && pairs.insert((r.op.as_str(), r.algorithm.as_str()))
            && texts.into_iter().all(|t| !t.chars().any(char::is_control))
    })
}

/// Whether a sampled node is one of the sweep's algorithms and ops.
fn sampled_by(params: &SweepParams, r: &NodeRecord) -> bool {
    params.ops.iter().any(|o| o.name() == r.op)
        && params.algos.iter().any(|a| a.name() == r.algorithm)
}

/// A sweep directory ready to run: its parameters as recorded, the rows of the trees already
/// done, and its sample log open for the rest.
pub(super) struct Resumed {
    pub params: SweepParams,
    pub rows: Vec<ResultRow>,
    pub sample: SampleWriter,
}

/// Writes or checks `sweep.json`; keeps the trees whose rows are complete in both logs (the
/// results log and the node sample, each synced as a tree finishes, either of which a power
/// loss can cut short), rewriting each log without the others; a fresh sweep starts both.
pub(super) fn resume(params: &SweepParams, dir: &Path) -> Result<Resumed, Error> {
    let params_path = dir.join(files::PARAMS);
    let log = files::existing_log(dir, files::RESULTS);
    if let (true, Some(log)) = (params_path.exists(), log) {
        let text = fs::read_to_string(&params_path).map_err(Error::io(&params_path))?;
        let old: SweepParams = serde_json::from_str(&text).map_err(Error::json(&params_path))?;
        same_part(dir, old.shard, params.shard)?;
        if let Some(field) = first_difference(&old.identity(), &params.identity()) {
            return Err(Error::ResumeMismatch {
                dir: dir.to_path_buf(),
                what: "sweep",
                field,
            });
        }
        let sample = SampleLog::read(dir, &|r| sampled_by(params, r))?;
        let mut rows = logged_rows(&log)?;
        let jobs = params.part_jobs();
        let kept = kept_trees(params, &jobs, &rows, &sample);
        rows.truncate(kept * params.rows_per_tree());
        // Rewritten without the trees left out, atomically: a kill during the rewrite leaves
        // the old file, never a shorter one.
        let partial = files::partial(dir, files::RESULTS);
        let mut writer = csv::Writer::from_writer(OutputFile::create(&partial)?);
        for r in &rows {
            writer.serialize(r).map_err(csv_error(&partial))?;
        }
        writer
            .into_inner()
            .map_err(|e| Error::write(&partial)(e.into_error()))?
            .commit()?;
        // A finished sweep run again becomes unfinished until it finishes again.
        files::remove_if_present(&dir.join(files::RESULTS))?;
        let kept: Vec<usize> = jobs[..kept].iter().map(|j| j.index).collect();
        let sample = SampleWriter::open(dir, sample, &kept)?;
        return Ok(Resumed {
            params: old,
            rows,
            sample,
        });
    }
    let params = params.located(dir)?;
    let json = crate::versioned_json(&params).map_err(Error::json(&params_path))?;
    crate::output::write_file(&params_path, (json + "\n").as_bytes())?;
    files::remove_if_present(&files::partial(dir, files::RESULTS))?;
    files::remove_if_present(&dir.join(files::RESULTS))?;
    let sample = SampleWriter::open(dir, SampleLog::empty(), &[])?;
    Ok(Resumed {
        params,
        rows: Vec::new(),
        sample,
    })
}

/// A one-line error when the sweep in `dir` holds another part than the one asked for.
pub fn same_part(dir: &Path, recorded: Option<Shard>, asked: Option<Shard>) -> Result<(), Error> {
    if recorded == asked {
        return Ok(());
    }
    let held = match recorded {
        Some(s) => format!("shard {s} of a sweep"),
        None => "a whole (unsharded) sweep".into(),
    };
    let asked = match asked {
        Some(s) => format!("shard {s}"),
        None => "the whole sweep".into(),
    };
    Err(Error::Usage(format!(
        "{}: holds {held}, not {asked} (another part needs another --out)",
        dir.display()
    )))
}

/// The parameters of the sweep in `dir` (`accuracy sweep --resume DIR`).
pub fn read_params(dir: &Path) -> Result<SweepParams, Error> {
    let path = dir.join(files::PARAMS);
    if !path.exists() {
        return Err(Error::Usage(format!(
            "{}: no sweep to resume (no sweep.json)",
            dir.display()
        )));
    }
    let text = fs::read_to_string(&path).map_err(Error::io(&path))?;
    serde_json::from_str(&text).map_err(Error::json(&path))
}

/// The first top-level field in which two saved parameter sets differ (resume checks).
pub(crate) fn first_difference<T: Serialize>(a: &T, b: &T) -> Option<String> {
    let (a, b) = (serde_json::to_value(a).ok()?, serde_json::to_value(b).ok()?);
    let (a, b) = (a.as_object()?, b.as_object()?);
    a.iter()
        .find(|(k, v)| b.get(*k) != Some(v))
        .map(|(k, _)| k.clone())
}
