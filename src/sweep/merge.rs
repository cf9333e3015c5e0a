//! `accuracy merge OUT DIR…`: joins the shard directories of one sweep (`sweep --shard K/N`)
//! into the files of the whole sweep. Rows and samples are copied as stored, ordered by tree
//! index, so results.csv and nodes-sample.csv have the bytes an unsharded run writes.

use super::files;
use super::params::SweepParams;
use super::shard::{Shard, list_trees};
use super::summary::{Timings, Worst, violations_in_rows, worst};
use crate::lock::DirLock;
use crate::notice::Notice;
use crate::{Error, output};
use analysis::records::results::ResultRow;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What a merge produced.
pub struct Merged {
    /// The parameters of the whole sweep.
    pub params: SweepParams,
    pub rows: Vec<ResultRow>,
    pub shards: usize,
    /// OUT, locked until the caller has written the report and drops this.
    pub lock: DirLock,
}

/// One shard directory, read.
struct Part {
    dir: PathBuf,
    params: SweepParams,
    shard: Shard,
    results: Log,
    sample: Log,
    summary: Value,
}

/// A CSV log as stored: its header and its records by tree index.
struct Log {
    header: Option<csv::ByteRecord>,
    records: Vec<(usize, csv::ByteRecord)>,
}

/// Joins the finished shards in `dirs` into `out`: results.csv, nodes-sample.csv,
/// summary.json (then the caller renders report.html). A missing, duplicated or foreign shard
/// is a one-line error naming the directory and the trees. The shards are locked while they
/// are read, and `out` from before its files are checked until the caller drops the result.
pub fn merge(out: &Path, dirs: &[PathBuf]) -> Result<Merged, Error> {
    check_out(out, dirs)?;
    let mut locked: Vec<&Path> = Vec::new();
    let mut shard_locks = Vec::new();
    for d in dirs {
        if !locked.iter().any(|l| output::same_file(l, d)) {
            shard_locks.push(DirLock::acquire_existing(d, "merge (reading it)")?);
            locked.push(d);
        }
    }
    let mut parts = dirs
        .iter()
        .map(|d| read_part(d))
        .collect::<Result<Vec<_>, _>>()?;
    check_parts(&parts, dirs.len())?;
    parts.sort_by_key(|p| p.shard.k);
    let params = SweepParams {
        shard: None,
        ..parts[0].params.identity()
    };
    let results = join_logs(parts.iter().map(|p| &p.results));
    let rows = results
        .records
        .iter()
        .map(|(_, r)| r.deserialize(results.header.as_ref()))
        .collect::<Result<Vec<ResultRow>, _>>()
        .map_err(Error::csv(&parts[0].dir.join(files::RESULTS)))?;
    let lock = DirLock::acquire(out, "merge")?;
    check_not_a_sweep(out)?;
    let read: Vec<PathBuf> = parts
        .iter()
        .flat_map(|p| {
            [files::PARAMS, files::RESULTS, files::SAMPLE, files::SUMMARY].map(|f| p.dir.join(f))
        })
        .collect();
    let inputs: Vec<(&str, &Path)> = read
        .iter()
        .map(|p| ("a file of a shard", p.as_path()))
        .collect();
    files::check_inputs("OUT", out, &inputs)?;
    files::remove_stale_temporaries(out)?;
    write_log(
        &out.join(files::SAMPLE),
        &join_logs(parts.iter().map(|p| &p.sample)),
    )?;
    write_log(&out.join(files::RESULTS), &results)?;
    let summary = MergeSummary::new(&params, &parts, &rows);
    let path = out.join(files::SUMMARY);
    let json = crate::versioned_json(&summary).map_err(Error::json(&path))?;
    output::write_file(&path, (json + "\n").as_bytes())?;
    drop(shard_locks);
    Ok(Merged {
        params,
        rows,
        shards: parts.len(),
        lock,
    })
}

/// The verdicts the shards gave, again for the whole sweep (exit 3 after everything is
/// written): their bound violations and GPU mismatches; against a reference that is not
/// exact, the violations as a warning instead.
pub fn verdicts(merged: &Merged) -> Result<Option<Notice>, Error> {
    let mismatches: Vec<&ResultRow> = merged
        .rows
        .iter()
        .filter(|r| r.gpu_mismatches.unwrap_or(0) > 0)
        .collect();
    let lines = mismatches
        .iter()
        .map(|r| {
            format!(
                "tree {} (seed {}) {} {}: {} node(s)",
                r.tree,
                r.seed,
                r.op,
                r.algorithm,
                r.gpu_mismatches.unwrap_or(0)
            )
        })
        .collect();
    let count = mismatches.iter().map(|r| r.gpu_mismatches.unwrap_or(0));
    crate::verdict::fail_on_mismatches(&(count.sum(), lines))?;
    let violations = violations_in_rows(&merged.rows, "found by its shard");
    crate::verdict::fail_on_violations(&violations, merged.params.reference)
}

/// OUT must not be one of the inputs.
fn check_out(out: &Path, dirs: &[PathBuf]) -> Result<(), Error> {
    if dirs.is_empty() {
        return Err(Error::Usage(
            "merge needs the shard directories to join: accuracy merge OUT DIR…".into(),
        ));
    }
    if let Some(d) = dirs.iter().find(|d| output::same_file(out, d)) {
        return Err(Error::Usage(format!(
            "{}: the output directory is also an input ({}); merge into another directory",
            out.display(),
            d.display()
        )));
    }
    Ok(())
}

/// OUT must not hold another sweep, whose files a merge would replace.
fn check_not_a_sweep(out: &Path) -> Result<(), Error> {
    if out.join(files::PARAMS).exists() {
        return Err(Error::Usage(format!(
            "{}: holds a sweep (sweep.json) whose files a merge would replace; merge into \
             another directory",
            out.display()
        )));
    }
    Ok(())
}

/// Reads a finished shard directory.
fn read_part(dir: &Path) -> Result<Part, Error> {
    let params_path = dir.join(files::PARAMS);
    if !params_path.is_file() {
        return Err(Error::Usage(format!(
            "{}: not a sweep directory (no sweep.json)",
            dir.display()
        )));
    }
    let params = super::read_params(dir)?;
    files::check_finished(dir)?;
    let results = read_log(&dir.join(files::RESULTS))?;
    let sample_path = dir.join(files::SAMPLE);
    let sample = if sample_path.is_file() {
        read_log(&sample_path)?
    } else {
        Log {
            header: None,
            records: Vec::new(),
        }
    };
    let summary_path = dir.join(files::SUMMARY);
    let text = std::fs::read_to_string(&summary_path).map_err(Error::io(&summary_path))?;
    let summary = serde_json::from_str(&text).map_err(Error::json(&summary_path))?;
    Ok(Part {
        dir: dir.to_path_buf(),
        shard: params.part(),
        params,
        results,
        sample,
        summary,
    })
}

/// A CSV file whose first column is the tree index, as stored.
fn read_log(path: &Path) -> Result<Log, Error> {
    let mut reader = csv::Reader::from_path(path).map_err(Error::csv(path))?;
    let header = reader.byte_headers().map_err(Error::csv(path))?.clone();
    let mut records = Vec::new();
    for rec in reader.byte_records() {
        let rec = rec.map_err(Error::csv(path))?;
        let tree = std::str::from_utf8(&rec[0])
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| {
                let line = rec.position().map_or(0, |p| p.line());
                Error::Usage(format!("{}:{line}: no tree index", path.display()))
            })?;
        records.push((tree, rec));
    }
    let header = (!header.is_empty()).then_some(header);
    Ok(Log { header, records })
}

/// The shards are parts of one sweep, each once, all there, each complete.
fn check_parts(parts: &[Part], given: usize) -> Result<(), Error> {
    let first = &parts[0];
    let identity = |p: &Part| SweepParams {
        shard: None,
        ..p.params.identity()
    };
    let all_jobs = first.params.jobs();
    let trees_of = |s: Shard| -> Vec<usize> {
        all_jobs
            .iter()
            .map(|j| j.index)
            .filter(|&i| s.holds(i))
            .collect()
    };
    let mut seen: BTreeMap<usize, &Part> = BTreeMap::new();
    for p in parts {
        let what = format!("shard {} ({})", p.shard, list_trees(&trees_of(p.shard)));
        if let Some(field) = super::first_difference(&identity(p), &identity(first)) {
            return Err(Error::Usage(format!(
                "{}: {what} of another sweep: its sweep.json differs from {}'s in {field}",
                p.dir.display(),
                first.dir.display()
            )));
        }
        if p.shard.n != first.shard.n {
            return Err(Error::Usage(format!(
                "{}: {what} of a {}-way split, but {} is shard {} of a {}-way split",
                p.dir.display(),
                p.shard.n,
                first.dir.display(),
                first.shard,
                first.shard.n
            )));
        }
        if let Some(other) = seen.insert(p.shard.k, p) {
            return Err(Error::Usage(format!(
                "{}: {what} again: {} holds it too",
                p.dir.display(),
                other.dir.display()
            )));
        }
        check_complete(p, &trees_of(p.shard), first.params.rows_per_tree())?;
    }
    let n = first.shard.n;
    if let Some(k) = (1..=n).find(|k| !seen.contains_key(k)) {
        let missing = Shard { k, n };
        return Err(Error::Usage(format!(
            "shard {missing} ({}) is missing: none of the {given} directories given holds it \
             (they hold {})",
            list_trees(&trees_of(missing)),
            seen.keys()
                .map(|k| format!("{k}/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(())
}

/// A shard's results.csv holds exactly its trees, each with all its rows.
fn check_complete(p: &Part, trees: &[usize], rows_per_tree: usize) -> Result<(), Error> {
    let mut count: BTreeMap<usize, usize> = BTreeMap::new();
    for (t, _) in &p.results.records {
        *count.entry(*t).or_default() += 1;
    }
    let expected: BTreeSet<usize> = trees.iter().copied().collect();
    let foreign: Vec<usize> = count
        .keys()
        .copied()
        .filter(|t| !expected.contains(t))
        .collect();
    let lacking: Vec<usize> = trees
        .iter()
        .copied()
        .filter(|t| count.get(t) != Some(&rows_per_tree))
        .collect();
    let problem = if !foreign.is_empty() {
        format!("holds {} outside shard {}", list_trees(&foreign), p.shard)
    } else if !lacking.is_empty() {
        format!(
            "lacks rows of {} of shard {}",
            list_trees(&lacking),
            p.shard
        )
    } else {
        return Ok(());
    };
    Err(Error::Usage(format!(
        "{}: {}: {problem}",
        p.dir.display(),
        files::RESULTS
    )))
}

/// The logs of all shards as one, in tree order (each tree's records in their stored order).
fn join_logs<'a>(logs: impl Iterator<Item = &'a Log>) -> Log {
    let mut header = None;
    let mut records = Vec::new();
    for log in logs {
        header = header.or_else(|| log.header.clone());
        records.extend(log.records.iter().cloned());
    }
    // A stable sort: the records of one tree keep their order.
    records.sort_by_key(|(t, _)| *t);
    Log { header, records }
}

/// Writes a log whole (temporary file, then rename), as the csv writer of a sweep writes it.
fn write_log(path: &Path, log: &Log) -> Result<(), Error> {
    let mut w = csv::Writer::from_writer(output::OutputFile::create(path)?);
    for rec in log.header.iter().chain(log.records.iter().map(|(_, r)| r)) {
        w.write_byte_record(rec).map_err(output::csv_error(path))?;
    }
    w.into_inner()
        .map_err(|e| Error::write(path)(e.into_error()))?
        .commit()
}

/// `summary.json` of a merge: the whole sweep's, with the timings summed over the shards and
/// what each shard's summary said.
#[derive(Serialize)]
struct MergeSummary<'a> {
    tool: &'static str,
    version: &'static str,
    command_line: Vec<String>,
    params: &'a SweepParams,
    /// The shards' backends (one if they agree).
    backend: String,
    trees: usize,
    resumed_trees: u64,
    /// Sums over the shards (wall_s too: the machine time, not the elapsed time).
    timings: Timings,
    /// Summed over the shards.
    threads: u64,
    worst: Vec<Worst>,
    /// The first shard's (each shard's is in `merged`).
    environment: Value,
    merged: Vec<MergedShard>,
}

/// One shard of a merge, as its summary.json describes it.
#[derive(Serialize)]
struct MergedShard {
    dir: String,
    shard: String,
    trees: Value,
    backend: Value,
    threads: Value,
    timings: Value,
    environment: Value,
}

impl<'a> MergeSummary<'a> {
    fn new(params: &'a SweepParams, parts: &[Part], rows: &[ResultRow]) -> MergeSummary<'a> {
        let field = |p: &Part, k: &str| p.summary.get(k).cloned().unwrap_or(Value::Null);
        let number = |p: &Part, k: &str| p.summary.get(k).and_then(Value::as_u64).unwrap_or(0);
        let time = |k: &str| -> f64 {
            parts
                .iter()
                .filter_map(|p| p.summary.get("timings")?.get(k)?.as_f64())
                .sum()
        };
        let mut backends: Vec<String> = parts
            .iter()
            .filter_map(|p| p.summary.get("backend")?.as_str().map(str::to_string))
            .collect();
        backends.dedup();
        MergeSummary {
            tool: "treefix-accuracy",
            version: env!("CARGO_PKG_VERSION"),
            command_line: std::env::args().collect(),
            params,
            backend: backends.join(", "),
            trees: params.jobs().len(),
            resumed_trees: parts.iter().map(|p| number(p, "resumed_trees")).sum(),
            timings: {
                let mut t = Timings {
                    generate_s: time("generate_s"),
                    evaluate_s: time("evaluate_s"),
                    wall_s: time("wall_s"),
                    kernels: Vec::new(),
                };
                for p in parts {
                    t.add_kernels(kernel_times(&p.summary));
                }
                t
            },
            threads: parts.iter().map(|p| number(p, "threads")).sum(),
            worst: worst(params, rows),
            environment: field(&parts[0], "environment"),
            merged: parts
                .iter()
                .map(|p| MergedShard {
                    dir: p.dir.display().to_string(),
                    shard: p.shard.to_string(),
                    trees: field(p, "trees"),
                    backend: field(p, "backend"),
                    threads: field(p, "threads"),
                    timings: field(p, "timings"),
                    environment: field(p, "environment"),
                })
                .collect(),
        }
    }
}

/// A shard's kernel times (`timings.kernels` of its summary.json; none in older files).
fn kernel_times(summary: &Value) -> Vec<super::summary::KernelTime> {
    summary
        .get("timings")
        .and_then(|t| t.get("kernels"))
        .and_then(|k| serde_json::from_value(k.clone()).ok())
        .unwrap_or_default()
}
