//! `accuracy sweep`: the paper's Fig. 10 experiment as data, for any topology and range of
//! condition numbers. Results are appended per tree, so an interrupted sweep resumes where it
//! stopped when run again with the same `--out`.

use crate::Error;
use crate::experiment::{self, Backend, InstanceSpec};
use crate::format::sci;
use crate::inputs::{LoadedTree, TreeInput, WeightChoice};
use crate::verdict::Violations;
pub use analysis::records::results::ResultRow;
use analysis::{Algorithm, Op, ReferenceKind};
use generators::{ChildOrder, Topology};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a sweep computes; saved as `DIR/sweep.json` and compared on resume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepParams {
    pub targets: Vec<f64>,
    pub trees_per_target: usize,
    pub nodes: usize,
    /// Generated topologies (ignored when `files` is not empty).
    pub topologies: Vec<Topology>,
    pub weights: WeightChoice,
    pub ops: Vec<Op>,
    pub algos: Vec<Algorithm>,
    pub reference: ReferenceKind,
    /// Every tree is evaluated in each of these child orders (same shape, same weights).
    /// `child_order` in sweeps written before several orders could be compared.
    #[serde(alias = "child_order", deserialize_with = "one_or_many")]
    pub child_orders: Vec<ChildOrder>,
    pub seed: u64,
    /// Tree files (`--tree`), instead of generated topologies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<TreeInput>,
}

/// Where a job's tree comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    Generated(Topology),
    /// Index into the sweep's loaded files.
    File(usize),
}

/// One value or a list of them (sweep.json's `child_order` became a list).
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<ChildOrder>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(ChildOrder),
        Many(Vec<ChildOrder>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(x) => vec![x],
        OneOrMany::Many(v) => v,
    })
}

/// One tree to build and evaluate.
#[derive(Debug, Clone)]
struct Job {
    index: usize,
    source: Source,
    child_order: ChildOrder,
    /// The weights' target condition number; 0 when the weights are the input's own.
    target_cond: f64,
    seed: u64,
}

impl SweepParams {
    /// Every tree of the sweep, in the order its rows are written. A file with its own weights
    /// is one tree; otherwise each file or topology gets `trees_per_target` seeded weight draws
    /// per target.
    fn jobs(&self) -> Vec<Job> {
        let sources: Vec<Source> = if self.files.is_empty() {
            self.topologies
                .iter()
                .map(|&t| Source::Generated(t))
                .collect()
        } else {
            (0..self.files.len()).map(Source::File).collect()
        };
        let mut jobs = Vec::new();
        let mut draw = 0usize;
        for source in sources {
            let draws: Vec<f64> = match (source, self.weights) {
                (Source::File(_), WeightChoice::File) => vec![0.0],
                _ => self
                    .targets
                    .iter()
                    .flat_map(|&t| std::iter::repeat_n(t, self.trees_per_target))
                    .collect(),
            };
            for target_cond in draws {
                // One draw, one seed: the child orders of a draw share its tree and weights
                // (with one order, draw = job index, as in sweeps of a single order).
                let seed = generators::derive_seed(self.seed, draw as u64);
                draw += 1;
                for &child_order in &self.child_orders {
                    jobs.push(Job {
                        index: jobs.len(),
                        source,
                        child_order,
                        target_cond,
                        seed,
                    });
                }
            }
        }
        jobs
    }

    fn rows_per_tree(&self) -> usize {
        self.ops.len() * self.algos.len()
    }

    /// Reads the sweep's tree files (checking that none changed since `sweep.json` was written).
    pub fn load_files(&self, dir: &Path) -> Result<Vec<LoadedTree>, Error> {
        self.files.iter().map(|f| f.reload(dir)).collect()
    }
}

/// Wall time spent in each phase, summed over trees (seconds).
#[derive(Debug, Default, Clone, Serialize)]
pub struct Timings {
    pub generate_s: f64,
    pub evaluate_s: f64,
    pub wall_s: f64,
}

/// What `summary.json` holds.
#[derive(Debug, Serialize)]
struct Summary<'a> {
    tool: &'static str,
    version: &'static str,
    command_line: Vec<String>,
    params: &'a SweepParams,
    backend: String,
    trees: usize,
    resumed_trees: usize,
    timings: Timings,
    threads: usize,
    worst: Vec<Worst>,
    environment: crate::environment::Environment,
}

/// The largest loss per (algorithm, op) over the sweep.
#[derive(Debug, Serialize)]
struct Worst {
    algorithm: String,
    op: String,
    /// `"inf"` when a result was NaN or ±∞ (JSON has no infinity).
    #[serde(serialize_with = "analysis::records::fields::number_or_string")]
    max_lost_bits: f64,
    #[serde(serialize_with = "analysis::records::fields::number_or_string")]
    max_rel_error: f64,
    /// Nodes whose result is NaN or ±∞ where a finite one exists.
    nonfinite_nodes: usize,
    /// Nodes where f32 overflows (left out of the bound checks).
    overflow_nodes: usize,
    /// Nodes whose exact value is 0 but computed value is not, and their largest |error|.
    flagged_nodes: usize,
    max_flagged_abs_error: f64,
    /// Nodes where a backend's result differed from its CPU twin (absent on the CPU).
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_mismatches: Option<usize>,
}

/// Runs (or resumes) a sweep into `dir`; returns the rows of all trees.
pub fn run(
    params: &SweepParams,
    files: &[LoadedTree],
    dir: &Path,
    backend: &dyn Backend,
    quiet: bool,
) -> Result<Vec<ResultRow>, Error> {
    let start = Instant::now();
    let environment = crate::environment::Environment::capture();
    fs::create_dir_all(dir).map_err(Error::output(dir))?;
    let params_path = dir.join("sweep.json");
    let results_path = dir.join("results.csv");
    let mut rows = resume(params, dir, &params_path, &results_path)?;
    let resumed_trees = rows.len() / params.rows_per_tree().max(1);
    let done: std::collections::HashSet<usize> = rows.iter().map(|r| r.tree).collect();
    let todo: Vec<Job> = params
        .jobs()
        .into_iter()
        .filter(|j| !done.contains(&j.index))
        .collect();
    let total_trees = done.len() + todo.len();
    let mut sample_writer = crate::nodes_sample::SampleWriter::open(dir, &done)?;
    if resumed_trees > 0 && !quiet {
        eprintln!(
            "resuming {}: {resumed_trees} of {total_trees} trees already done",
            dir.display()
        );
    }

    let file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&results_path)
        .map_err(Error::io(&results_path))?;
    let mut writer = csv::WriterBuilder::new()
        .has_headers(rows.is_empty())
        .from_writer(file);
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total_trees as u64)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} sweep [{bar:30}] {pos}/{len} trees, {elapsed} elapsed, eta {eta}",
        )
        .unwrap()
        .progress_chars("=> "),
    );
    bar.set_position(done.len() as u64);

    let mut timings = Timings::default();
    // Resumed trees with violations are reported again (their nodes were printed when found).
    let mut violations = Violations::default();
    for r in rows
        .iter()
        .filter(|r| r.deterministic_violations().unwrap_or(0) > 0)
    {
        violations.count += r.deterministic_violations().unwrap_or(0);
        violations.lines.push(format!(
            "tree {} (seed {}) {} {}: {} a priori, {} sharp and {} running-bound violations (resumed)",
            r.tree,
            r.seed,
            r.op,
            r.algorithm,
            r.bound_violations.unwrap_or(0),
            r.sharp_violations.unwrap_or(0),
            r.running_violations.unwrap_or(0)
        ));
    }
    let backend_name = backend.describe();
    // Trees are evaluated in parallel; each one's rows reach the disk (flushed, then synced) as
    // soon as it and every tree before it are done, so results.csv is always a prefix of the
    // job order and a resumed sweep writes the same bytes as an uninterrupted one.
    let mut mismatches = (0usize, Vec::new());
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<TreeDone, Error>)>();
    let mut first_error = None;
    std::thread::scope(|scope| {
        let (todo, stop, bar, backend_name) = (&todo, &stop, &bar, &backend_name);
        scope.spawn(move || {
            if backend.is_cpu() {
                todo.par_iter()
                    .enumerate()
                    .for_each_with(tx, |tx, (pos, job)| {
                        if stop.load(std::sync::atomic::Ordering::Relaxed) {
                            return;
                        }
                        let done = evaluate_tree(params, files, job, backend, backend_name);
                        bar.inc(1);
                        let _ = tx.send((pos, done));
                    });
                return;
            }
            // A GPU runs a batch of trees as one forest per dispatch (the same bits as one tree
            // at a time), then the CPU evaluates the batch in parallel.
            let mut first = 0;
            for batch in batches(params, files, todo) {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                let built: Vec<Result<Built<'_>, Error>> = batch
                    .par_iter()
                    .map(|job| build(params, files, job))
                    .collect();
                let computed = match Precomputed::compute(params, &built, backend, backend_name) {
                    Ok(c) => c,
                    Err(e) => {
                        // The trees before this batch are written; the error ends the sweep.
                        let _ = tx.send((first, Err(e)));
                        return;
                    }
                };
                batch.par_iter().zip(built).enumerate().for_each_with(
                    tx.clone(),
                    |tx, (k, (job, b))| {
                        let done =
                            b.and_then(|b| assess(params, job, b, &computed.tree(k), backend_name));
                        bar.inc(1);
                        let _ = tx.send((first + k, done));
                    },
                );
                first += batch.len();
            }
        });
        let mut pending = std::collections::BTreeMap::new();
        let mut next = 0;
        for (pos, done) in rx {
            pending.insert(pos, done);
            while let Some(done) = pending.remove(&next) {
                next += 1;
                if first_error.is_some() {
                    continue;
                }
                let written = done.and_then(|d| {
                    sample_writer.write(&d.sample)?;
                    for row in &d.rows {
                        writer.serialize(row).map_err(Error::csv(&results_path))?;
                    }
                    writer.flush().map_err(Error::io(&results_path))?;
                    writer
                        .get_ref()
                        .sync_data()
                        .map_err(Error::io(&results_path))?;
                    Ok(d)
                });
                match written {
                    Ok(d) => {
                        violations.extend(d.violations);
                        mismatches.0 += d.mismatches.0;
                        mismatches.1.extend(d.mismatches.1);
                        timings.generate_s += d.generate_s;
                        timings.evaluate_s += d.evaluate_s;
                        rows.extend(d.rows);
                    }
                    Err(e) => {
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                        first_error = Some(e);
                    }
                }
            }
        }
    });
    if let Some(e) = first_error {
        bar.finish_and_clear();
        return Err(e);
    }
    bar.finish_and_clear();
    timings.wall_s = start.elapsed().as_secs_f64();

    let summary = Summary {
        tool: "treefix-accuracy",
        version: env!("CARGO_PKG_VERSION"),
        command_line: std::env::args().collect(),
        params,
        backend: backend_name,
        trees: total_trees,
        resumed_trees,
        timings,
        threads: rayon::current_num_threads(),
        worst: worst(params, &rows),
        environment,
    };
    let summary_path = dir.join("summary.json");
    let json = serde_json::to_string_pretty(&summary).map_err(Error::json(&summary_path))?;
    fs::write(&summary_path, json + "\n").map_err(Error::io(&summary_path))?;
    crate::verdict::fail_on_mismatches(&mismatches)?;
    crate::verdict::fail_on_violations(&violations, params.reference)?;
    Ok(rows)
}

/// Consecutive jobs of at most 2^22 vertices together (the sizes of generated trees and files
/// are known before building them), so a batch's forest stays well inside any GPU's limits.
fn batches<'j>(params: &SweepParams, files: &[LoadedTree], todo: &'j [Job]) -> Vec<&'j [Job]> {
    const MAX_VERTICES: usize = 1 << 22;
    let size = |job: &Job| match job.source {
        Source::Generated(_) => params.nodes,
        Source::File(i) => files[i].file.tree.len(),
    };
    let mut out = Vec::new();
    let (mut start, mut total) = (0, 0);
    for (i, job) in todo.iter().enumerate() {
        if i > start && total + size(job) > MAX_VERTICES {
            out.push(&todo[start..i]);
            (start, total) = (i, 0);
        }
        total += size(job);
    }
    if start < todo.len() {
        out.push(&todo[start..]);
    }
    out
}

/// One result vector per tree of a batch, for one (algorithm, op).
type PerTree = ((Algorithm, Op), Vec<Vec<f32>>);

/// A batch's GPU results, computed as forests: per (algorithm, op), one result per tree.
struct Precomputed {
    name: String,
    values: Vec<PerTree>,
}

impl Precomputed {
    fn compute(
        params: &SweepParams,
        built: &[Result<Built<'_>, Error>],
        backend: &dyn Backend,
        backend_name: &str,
    ) -> Result<Precomputed, Error> {
        let jobs: Vec<(&generators::Tree, &[f32])> = built
            .iter()
            .flatten()
            .map(|b| (&b.tree, b.weights.as_slice()))
            .collect();
        let mut values = Vec::new();
        for &op in &params.ops {
            for &algo in params.algos.iter().filter(|a| a.has_gpu_kernel()) {
                let mut results = backend.compute_many(&jobs, algo, op)?.into_iter();
                // Trees that failed to build get no result (their error is reported instead).
                let per_job = built
                    .iter()
                    .map(|b| match b {
                        Ok(_) => results.next().unwrap_or_default(),
                        Err(_) => Vec::new(),
                    })
                    .collect();
                values.push(((algo, op), per_job));
            }
        }
        Ok(Precomputed {
            name: backend_name.to_string(),
            values,
        })
    }

    /// The backend as seen by tree `k` of the batch.
    fn tree(&self, k: usize) -> OneTree<'_> {
        OneTree { batch: self, k }
    }
}

/// One tree's precomputed GPU results, served as a [`Backend`].
struct OneTree<'a> {
    batch: &'a Precomputed,
    k: usize,
}

impl Backend for OneTree<'_> {
    fn describe(&self) -> String {
        self.batch.name.clone()
    }
    fn compute(
        &self,
        _tree: &generators::Tree,
        _w: &[f32],
        algo: Algorithm,
        op: Op,
    ) -> Result<Vec<f32>, Error> {
        self.batch
            .values
            .iter()
            .find(|(key, _)| *key == (algo, op))
            .map(|(_, v)| v[self.k].clone())
            .ok_or_else(|| Error::Gpu(format!("no batched result for {algo} {op}")))
    }
}

/// What one evaluated tree contributes to the sweep's files.
struct TreeDone {
    rows: Vec<ResultRow>,
    sample: Vec<crate::nodes_sample::NodeRecord>,
    violations: Violations,
    /// Nodes whose backend result differs from the CPU twin, with a line per op × algorithm.
    mismatches: (usize, Vec<String>),
    generate_s: f64,
    evaluate_s: f64,
}

/// One weighted tree, built and named.
struct Built<'a> {
    name: String,
    source: Option<&'a TreeInput>,
    tree: generators::Tree,
    weights: Vec<f32>,
    generate_s: f64,
}

/// Builds one weighted tree: generated, or read and weighted.
fn build<'a>(params: &SweepParams, files: &'a [LoadedTree], job: &Job) -> Result<Built<'a>, Error> {
    let t0 = Instant::now();
    let (name, source, tree, weights) = match job.source {
        Source::Generated(topology) => {
            let WeightChoice::Model(weights) = params.weights else {
                return Err(Error::Usage(
                    "--weights file needs tree files (--tree FILE)".into(),
                ));
            };
            let spec = InstanceSpec {
                topology,
                n: params.nodes,
                weights,
                target_cond: job.target_cond,
                child_order: job.child_order,
                seed: job.seed,
            };
            let instance = spec.generate()?;
            (topology.to_string(), None, instance.tree, instance.weights)
        }
        Source::File(i) => {
            let file = &files[i];
            let tree = file.tree(job.child_order);
            let weights = match params.weights {
                WeightChoice::File => file.own_weights()?.to_vec(),
                WeightChoice::Model(m) => file.model_weights(
                    m,
                    tree.len(),
                    job.target_cond,
                    &mut generators::rng(job.seed),
                )?,
            };
            (file.name(), Some(&file.input), tree, weights)
        }
    };
    Ok(Built {
        name,
        source,
        tree,
        weights,
        generate_s: t0.elapsed().as_secs_f64(),
    })
}

/// Builds one tree and evaluates every algorithm and op on it.
fn evaluate_tree(
    params: &SweepParams,
    files: &[LoadedTree],
    job: &Job,
    backend: &dyn Backend,
    backend_name: &str,
) -> Result<TreeDone, Error> {
    let built = build(params, files, job)?;
    assess(params, job, built, backend, backend_name)
}

/// Evaluates every algorithm and op on a built tree.
fn assess(
    params: &SweepParams,
    job: &Job,
    built: Built<'_>,
    backend: &dyn Backend,
    backend_name: &str,
) -> Result<TreeDone, Error> {
    let Built {
        name,
        source,
        tree,
        weights,
        generate_s,
    } = built;
    let t1 = Instant::now();
    let achieved = experiment::achieved_cond(&weights);
    let results = experiment::evaluate_weighted(
        &tree,
        &weights,
        &params.ops,
        &params.algos,
        params.reference,
        backend,
    )?;
    let t2 = Instant::now();
    let rows = results
        .iter()
        .flat_map(|r| &r.outcomes)
        .map(|o| ResultRow {
            tree: job.index,
            topology: name.clone(),
            n: tree.len(),
            height: tree.height(),
            child_order: job.child_order.to_string(),
            weights: params.weights.to_string(),
            seed: job.seed,
            target_cond: job.target_cond,
            achieved_cond: achieved,
            algorithm: o.algorithm.to_string(),
            op: o.op.to_string(),
            backend: if o.algorithm.has_gpu_kernel() {
                backend_name.to_string()
            } else {
                "cpu".into()
            },
            reference: params.reference.name().into(),
            max_rel_error: o.summary.max_rel_error,
            median_rel_error: o.summary.median_rel_error,
            p99_rel_error: o.summary.p99_rel_error,
            max_lost_bits: o.summary.max_lost_bits,
            flagged_nodes: o.summary.flagged_nodes,
            bound_violations: Some(o.bound_summary.bound_violations),
            sharp_violations: Some(o.bound_summary.sharp_violations),
            running_violations: Some(o.bound_summary.running_violations),
            prob_violations: Some(o.bound_summary.prob_violations),
            median_tightness: Some(o.bound_summary.median_tightness),
            max_tightness: Some(o.bound_summary.max_tightness),
            max_bound_lost_bits: Some(o.bound_summary.max_bound_lost_bits),
            gpu_mismatches: o.gpu_mismatches,
            max_flagged_abs_error: Some(o.summary.max_flagged_abs_error),
            source: source.map(|s| s.path.display().to_string()),
            source_sha256: source.map(|s| s.sha256.clone()),
            nonfinite_nodes: Some(o.summary.nonfinite_nodes),
            overflow_nodes: Some(o.bound_summary.overflow.total()),
        })
        .collect();
    let context = format!("tree {} ({name}, seed {})", job.index, job.seed);
    Ok(TreeDone {
        rows,
        sample: crate::nodes_sample::sample(job.index, &results),
        violations: crate::verdict::violations(&context, &results),
        mismatches: experiment::mismatch_report(&context, &results),
        generate_s,
        evaluate_s: (t2 - t1).as_secs_f64(),
    })
}

/// The rows of the trees whose every row reached `results.csv` before an interruption. A kill
/// can cut the last line anywhere, even inside its last number, where it would still parse:
/// everything after the last newline is dropped before reading.
fn complete_rows(params: &SweepParams, results_path: &Path) -> Result<Vec<ResultRow>, Error> {
    let mut bytes = fs::read(results_path).map_err(Error::io(results_path))?;
    let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(end);
    let mut rows: Vec<ResultRow> = Vec::new();
    for row in csv::Reader::from_reader(bytes.as_slice()).deserialize() {
        rows.push(row.map_err(Error::csv(results_path))?);
    }
    let mut per_tree = std::collections::HashMap::<usize, usize>::new();
    rows.iter()
        .for_each(|r| *per_tree.entry(r.tree).or_default() += 1);
    rows.retain(|r| per_tree[&r.tree] == params.rows_per_tree());
    Ok(rows)
}

/// Writes or checks `sweep.json`; returns the rows of complete trees already in `results.csv`
/// (rewriting it without a partly written last tree).
fn resume(
    params: &SweepParams,
    dir: &Path,
    params_path: &Path,
    results_path: &Path,
) -> Result<Vec<ResultRow>, Error> {
    if params_path.exists() && results_path.exists() {
        let text = fs::read_to_string(params_path).map_err(Error::io(params_path))?;
        let old: SweepParams = serde_json::from_str(&text).map_err(Error::json(params_path))?;
        if let Some(field) = first_difference(&old, params) {
            return Err(Error::ResumeMismatch {
                dir: dir.to_path_buf(),
                what: "sweep",
                field,
            });
        }
        let rows = complete_rows(params, results_path)?;
        // Rewritten without a partly written last tree, atomically: a kill during the rewrite
        // leaves the old file, never a shorter one.
        let tmp = results_path.with_extension("csv.tmp");
        let mut writer = csv::Writer::from_path(&tmp).map_err(Error::csv(&tmp))?;
        for r in &rows {
            writer.serialize(r).map_err(Error::csv(&tmp))?;
        }
        let file = writer
            .into_inner()
            .map_err(|e| Error::io(&tmp)(e.into_error()))?;
        file.sync_all().map_err(Error::io(&tmp))?;
        fs::rename(&tmp, results_path).map_err(Error::io(results_path))?;
        return Ok(rows);
    }
    let json = serde_json::to_string_pretty(params).map_err(Error::json(params_path))?;
    fs::write(params_path, json + "\n").map_err(Error::output(params_path))?;
    if results_path.exists() {
        fs::remove_file(results_path).map_err(Error::io(results_path))?;
    }
    Ok(Vec::new())
}

/// The parameters of the sweep in `dir` (`accuracy sweep --resume DIR`).
pub fn read_params(dir: &Path) -> Result<SweepParams, Error> {
    let path = dir.join("sweep.json");
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

fn worst(params: &SweepParams, rows: &[ResultRow]) -> Vec<Worst> {
    let mut out = Vec::new();
    for op in &params.ops {
        for algo in &params.algos {
            let mine = rows
                .iter()
                .filter(|r| r.op == op.name() && r.algorithm == algo.name());
            let mut w = Worst {
                algorithm: algo.to_string(),
                op: op.to_string(),
                max_lost_bits: 0.0,
                max_rel_error: 0.0,
                flagged_nodes: 0,
                max_flagged_abs_error: 0.0,
                gpu_mismatches: None,
                nonfinite_nodes: 0,
                overflow_nodes: 0,
            };
            for r in mine {
                w.max_lost_bits = w.max_lost_bits.max(r.max_lost_bits);
                w.max_rel_error = w.max_rel_error.max(r.max_rel_error);
                w.flagged_nodes += r.flagged_nodes;
                w.nonfinite_nodes += r.nonfinite_nodes.unwrap_or(0);
                w.overflow_nodes += r.overflow_nodes.unwrap_or(0);
                w.max_flagged_abs_error = w
                    .max_flagged_abs_error
                    .max(r.max_flagged_abs_error.unwrap_or(0.0));
                if let Some(k) = r.gpu_mismatches {
                    w.gpu_mismatches = Some(w.gpu_mismatches.unwrap_or(0) + k);
                }
            }
            out.push(w);
        }
    }
    out
}

/// A compact terminal table: per topology and target, the median achieved condition number and
/// the largest loss (bits) of every op × algorithm over its trees.
pub fn table(params: &SweepParams, rows: &[ResultRow]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let cols: Vec<(Op, Algorithm)> = params
        .ops
        .iter()
        .flat_map(|&op| params.algos.iter().map(move |&a| (op, a)))
        .collect();
    let _ = writeln!(
        s,
        "max lost bits over {} trees per target (columns: op/algorithm)",
        params.trees_per_target
    );
    let mut names: Vec<String> = Vec::new();
    for r in rows {
        if !names.iter().any(|n| *n == r.tree_label()) {
            names.push(r.tree_label().into_owned());
        }
    }
    let w = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(18);
    let mut header = format!("{:<w$} {:>9} {:>9}", "topology", "target", "κ median");
    for (op, a) in &cols {
        let _ = write!(
            header,
            " {:>9}",
            format!("{}/{}", &op.name()[..4], short(*a))
        );
    }
    let _ = writeln!(s, "{header}");
    for topo_name in names {
        let mut targets: Vec<f64> = Vec::new();
        for r in rows.iter().filter(|r| r.tree_label() == topo_name) {
            if !targets.contains(&r.target_cond) {
                targets.push(r.target_cond);
            }
        }
        for target in targets {
            let here: Vec<&ResultRow> = rows
                .iter()
                .filter(|r| r.tree_label() == topo_name && r.target_cond == target)
                .collect();
            if here.is_empty() {
                continue;
            }
            let mut conds: Vec<f64> = here.iter().map(|r| r.achieved_cond).collect();
            conds.sort_by(f64::total_cmp);
            // Target 0: the input's own weights, no target.
            let target = if target > 0.0 {
                sci(target)
            } else {
                "own".into()
            };
            let mut line = format!(
                "{:<w$} {:>9} {:>9}",
                topo_name,
                target,
                sci(conds[conds.len() / 2])
            );
            for (op, a) in &cols {
                let bits = here
                    .iter()
                    .filter(|r| r.op == op.name() && r.algorithm == a.name())
                    .map(|r| r.max_lost_bits)
                    .fold(0f64, f64::max);
                let _ = write!(line, " {bits:>9.2}");
            }
            let _ = writeln!(s, "{line}");
        }
    }
    s
}

fn short(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Sequential => "seq",
        Algorithm::Parallel => "par",
        Algorithm::Vectorial => "vec",
        Algorithm::VectorialSeqscan => "vsq",
        Algorithm::VectorialChained => "vch",
        Algorithm::VectorialCompensated => "vcp",
        Algorithm::Contraction => "con",
    }
}

/// `reports/sweep-<UTC timestamp>`.
pub fn default_dir() -> PathBuf {
    PathBuf::from(format!(
        "reports/sweep-{}",
        chrono::Utc::now().format("%Y%m%d-%H%M%S")
    ))
}
