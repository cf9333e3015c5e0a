//! `accuracy sweep`: the paper's Fig. 10 experiment as data, for any topology and range of
//! condition numbers. Results are appended per tree, so an interrupted sweep resumes where it
//! stopped when run again with the same `--out`.

use crate::Error;
use crate::bounds_table::Violations;
use crate::experiment::{self, Backend, InstanceSpec};
use crate::format::sci;
pub use analysis::records::results::ResultRow;
use analysis::{Algorithm, Op, ReferenceKind};
use generators::{ChildOrder, Topology, WeightModel};
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
    pub topologies: Vec<Topology>,
    pub weights: WeightModel,
    pub ops: Vec<Op>,
    pub algos: Vec<Algorithm>,
    pub reference: ReferenceKind,
    pub child_order: ChildOrder,
    pub seed: u64,
}

/// One tree to generate and evaluate.
#[derive(Debug, Clone)]
struct Job {
    index: usize,
    spec: InstanceSpec,
}

impl SweepParams {
    fn jobs(&self) -> Vec<Job> {
        let mut jobs = Vec::new();
        for &topology in &self.topologies {
            for &target_cond in &self.targets {
                for _ in 0..self.trees_per_target {
                    let index = jobs.len();
                    let seed = generators::derive_seed(self.seed, index as u64);
                    let spec = InstanceSpec {
                        topology,
                        n: self.nodes,
                        weights: self.weights,
                        target_cond,
                        child_order: self.child_order,
                        seed,
                    };
                    jobs.push(Job { index, spec });
                }
            }
        }
        jobs
    }

    fn rows_per_tree(&self) -> usize {
        self.ops.len() * self.algos.len()
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
    max_lost_bits: f64,
    max_rel_error: f64,
}

/// Runs (or resumes) a sweep into `dir`; returns the rows of all trees.
pub fn run(
    params: &SweepParams,
    dir: &Path,
    backend: &dyn Backend,
    quiet: bool,
) -> Result<Vec<ResultRow>, Error> {
    let start = Instant::now();
    let environment = crate::environment::Environment::capture();
    fs::create_dir_all(dir).map_err(Error::io(dir))?;
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
    // Chunks keep memory bounded and let results reach the disk in job order.
    let chunk = 4 * rayon::current_num_threads().max(1);
    for jobs in todo.chunks(chunk) {
        #[allow(clippy::type_complexity)]
        let results: Vec<
            Result<
                (
                    Vec<ResultRow>,
                    Vec<crate::nodes_sample::NodeRecord>,
                    Violations,
                    f64,
                    f64,
                ),
                Error,
            >,
        > = jobs
            .par_iter()
            .map(|job| {
                let t0 = Instant::now();
                let instance = job.spec.generate()?;
                let achieved = experiment::achieved_cond(&instance.weights);
                let t1 = Instant::now();
                let results = experiment::evaluate(
                    &instance,
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
                        topology: job.spec.topology.to_string(),
                        n: job.spec.n,
                        height: instance.tree.height(),
                        child_order: job.spec.child_order.to_string(),
                        weights: job.spec.weights.to_string(),
                        seed: job.spec.seed,
                        target_cond: job.spec.target_cond,
                        achieved_cond: achieved,
                        algorithm: o.algorithm.to_string(),
                        op: o.op.to_string(),
                        backend: if o.algorithm.has_gpu_kernel() {
                            backend_name.clone()
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
                        gpu_mismatches: None,
                        max_flagged_abs_error: None,
                        source: None,
                        source_sha256: None,
                    })
                    .collect();
                let context = format!("tree {} (seed {})", job.index, job.spec.seed);
                let bad = crate::bounds_table::violations(&context, &results);
                let sample = crate::nodes_sample::sample(job.index, &results);
                bar.inc(1);
                Ok((
                    rows,
                    sample,
                    bad,
                    (t1 - t0).as_secs_f64(),
                    (t2 - t1).as_secs_f64(),
                ))
            })
            .collect();
        for result in results {
            let (job_rows, sample, bad, generate_s, evaluate_s) = result?;
            violations.extend(bad);
            sample_writer.write(&sample)?;
            for row in &job_rows {
                writer.serialize(row).map_err(Error::csv(&results_path))?;
            }
            writer.flush().map_err(Error::io(&results_path))?;
            timings.generate_s += generate_s;
            timings.evaluate_s += evaluate_s;
            rows.extend(job_rows);
        }
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
    crate::bounds_table::fail_on_violations(&violations)?;
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
                field,
            });
        }
        let mut reader = csv::Reader::from_path(results_path).map_err(Error::csv(results_path))?;
        let mut rows: Vec<ResultRow> = Vec::new();
        for row in reader.deserialize() {
            match row {
                Ok(r) => rows.push(r),
                // A run killed mid-write leaves a truncated last line: drop it.
                Err(_) => break,
            }
        }
        let mut per_tree = std::collections::HashMap::<usize, usize>::new();
        rows.iter()
            .for_each(|r| *per_tree.entry(r.tree).or_default() += 1);
        rows.retain(|r| per_tree[&r.tree] == params.rows_per_tree());
        let mut writer = csv::Writer::from_path(results_path).map_err(Error::csv(results_path))?;
        for r in &rows {
            writer.serialize(r).map_err(Error::csv(results_path))?;
        }
        writer.flush().map_err(Error::io(results_path))?;
        return Ok(rows);
    }
    let json = serde_json::to_string_pretty(params).map_err(Error::json(params_path))?;
    fs::write(params_path, json + "\n").map_err(Error::io(params_path))?;
    if results_path.exists() {
        fs::remove_file(results_path).map_err(Error::io(results_path))?;
    }
    Ok(Vec::new())
}

fn first_difference(a: &SweepParams, b: &SweepParams) -> Option<String> {
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
            let (bits, rel) = mine.fold((0f64, 0f64), |(b, e), r| {
                (b.max(r.max_lost_bits), e.max(r.max_rel_error))
            });
            out.push(Worst {
                algorithm: algo.to_string(),
                op: op.to_string(),
                max_lost_bits: bits,
                max_rel_error: rel,
            });
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
    let mut header = format!("{:<18} {:>9} {:>9}", "topology", "target", "κ median");
    for (op, a) in &cols {
        let _ = write!(
            header,
            " {:>9}",
            format!("{}/{}", &op.name()[..4], short(*a))
        );
    }
    let _ = writeln!(s, "{header}");
    for topo in &params.topologies {
        let topo_name = topo.to_string();
        for &target in &params.targets {
            let here: Vec<&ResultRow> = rows
                .iter()
                .filter(|r| r.topology == topo_name && r.target_cond == target)
                .collect();
            if here.is_empty() {
                continue;
            }
            let mut conds: Vec<f64> = here.iter().map(|r| r.achieved_cond).collect();
            conds.sort_by(f64::total_cmp);
            let mut line = format!(
                "{:<18} {:>9} {:>9}",
                topo_name,
                sci(target),
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
    }
}

/// `reports/sweep-<UTC timestamp>`.
pub fn default_dir() -> PathBuf {
    PathBuf::from(format!(
        "reports/sweep-{}",
        chrono::Utc::now().format("%Y%m%d-%H%M%S")
    ))
}
