//! `accuracy bounds-table`: the topology explained. For every topology, condition number,
//! operation and algorithm: the most bits measured lost, the most the deterministic bound
//! allows, how tight the bound is, and whether the bounds predict the extra bits the
//! vectorial algorithm loses over parallel (issue #4, item 3).
//!
//! Also the shared machinery of `accuracy check` ([`evaluate_grid`]) and the reporting of
//! deterministic-bound violations, which are bugs (exit code 3).

use crate::Error;
use crate::experiment::{self, Backend, InstanceSpec, OpResults, Outcome};
use crate::format::sci;
use analysis::bounds::{LAMBDA, extra_bits, tightness};
use analysis::{Algorithm, Op, ReferenceKind};
use generators::{ChildOrder, Topology, WeightModel};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Deterministic-bound violations found by a command, with one line per reported node.
#[derive(Debug, Default, Clone)]
pub struct Violations {
    /// Offending nodes (a priori and running bounds together).
    pub count: usize,
    pub lines: Vec<String>,
}

impl Violations {
    pub fn extend(&mut self, other: Violations) {
        self.count += other.count;
        self.lines.extend(other.lines);
    }
}

/// The violations of one evaluated instance; `context` names the instance.
pub fn violations(context: &str, results: &[OpResults]) -> Violations {
    let mut out = Violations::default();
    for r in results {
        for o in &r.outcomes {
            let s = &o.bound_summary;
            let total = s.bound_violations + s.running_violations;
            if total == 0 {
                continue;
            }
            out.count += total;
            for v in &s.violations {
                out.lines.push(format!(
                    "{context} {} {} vertex {}: computed {:e}, exact {:e}, |error| {:e} > {} bound {:e}",
                    r.op,
                    o.algorithm,
                    v.vertex,
                    v.computed,
                    v.reference,
                    v.abs_error,
                    v.bound_kind,
                    v.bound
                ));
            }
            if total > s.violations.len() {
                out.lines.push(format!(
                    "{context} {} {}: … and {} more",
                    r.op,
                    o.algorithm,
                    total - s.violations.len()
                ));
            }
        }
    }
    out
}

/// Prints the offending nodes to stderr and fails with exit code 3 if there are any. Call it
/// after the results are written.
pub fn fail_on_violations(v: &Violations) -> Result<(), Error> {
    if v.count == 0 {
        return Ok(());
    }
    eprintln!("DETERMINISTIC BOUND VIOLATED (a bug):");
    for line in &v.lines {
        eprintln!("  {line}");
    }
    Err(Error::BoundViolation(v.count))
}

/// A grid of seeded instances: topologies × target condition numbers × trees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridParams {
    pub topologies: Vec<Topology>,
    pub conds: Vec<f64>,
    pub trees: usize,
    pub nodes: usize,
    pub weights: WeightModel,
    pub ops: Vec<Op>,
    pub algos: Vec<Algorithm>,
    pub child_order: ChildOrder,
    pub seed: u64,
}

impl GridParams {
    /// The seed of tree `k` of (topology, cond): derived from their names, not from a position
    /// in the grid, so any sub-grid regenerates exactly the same instances.
    pub fn instance_seed(&self, topology: &Topology, cond: f64, k: usize) -> u64 {
        // FNV-1a over the topology's name: stable across platforms and versions.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in topology.to_string().bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let s = generators::derive_seed(self.seed, h);
        let s = generators::derive_seed(s, cond.to_bits());
        generators::derive_seed(s, k as u64)
    }
}

/// Key of one cell: (topology index, cond index, op, algorithm).
pub type CellKey = (usize, usize, Op, Algorithm);

/// What one cell accumulates over its trees.
#[derive(Debug, Default, Clone)]
pub struct Cell {
    pub trees: usize,
    pub nodes: usize,
    pub max_lost_bits: f64,
    pub max_bound_lost_bits: f64,
    /// |error| / deterministic bound of every node of every tree.
    pub tightness: Vec<f32>,
    pub bound_violations: usize,
    pub running_violations: usize,
    pub prob_violations: usize,
    /// Nodes (x ≠ 0) where predicted and measured extra bits over parallel were compared, and
    /// those where they agree within 1 bit (vectorial algorithms only).
    pub extra_compared: usize,
    pub extra_agree: usize,
    pub achieved_conds: Vec<f64>,
}

impl Cell {
    fn merge(&mut self, o: Cell) {
        self.trees += o.trees;
        self.nodes += o.nodes;
        self.max_lost_bits = self.max_lost_bits.max(o.max_lost_bits);
        self.max_bound_lost_bits = self.max_bound_lost_bits.max(o.max_bound_lost_bits);
        self.tightness.extend(o.tightness);
        self.bound_violations += o.bound_violations;
        self.running_violations += o.running_violations;
        self.prob_violations += o.prob_violations;
        self.extra_compared += o.extra_compared;
        self.extra_agree += o.extra_agree;
        self.achieved_conds.extend(o.achieved_conds);
    }

    /// (median, max) of the pooled tightness.
    pub fn tightness_stats(&mut self) -> (f64, f64) {
        median_max(&mut self.tightness)
    }

    pub fn agreement(&self) -> Option<f64> {
        (self.extra_compared > 0).then(|| self.extra_agree as f64 / self.extra_compared as f64)
    }
}

fn median_max(v: &mut [f32]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    v.sort_by(f32::total_cmp);
    (v[(v.len() - 1) / 2] as f64, v[v.len() - 1] as f64)
}

/// The evaluated grid.
pub struct Grid {
    pub params: GridParams,
    pub cells: BTreeMap<CellKey, Cell>,
    pub violations: Violations,
    pub wall_s: f64,
}

/// The outcome the vectorial algorithms are compared with: parallel, or sequential (the same
/// additions) when parallel was not run.
pub fn baseline_outcome(r: &OpResults) -> Option<&Outcome> {
    r.outcomes
        .iter()
        .find(|o| o.algorithm == Algorithm::Parallel)
        .or_else(|| {
            r.outcomes
                .iter()
                .find(|o| o.algorithm == Algorithm::Sequential)
        })
}

/// Predicted and measured extra lost bits of `o` over `base` at node v (x = exact value):
/// `extra_bits` of the deterministic bounds and of the errors. None when x = 0.
pub fn node_extra_bits(r: &OpResults, o: &Outcome, base: &Outcome, v: usize) -> Option<(f64, f64)> {
    let x = r.reference.value_f64(v);
    Some((
        extra_bits(o.bounds.det[v], base.bounds.det[v], x)?,
        extra_bits(o.errors[v].abs, base.errors[v].abs, x)?,
    ))
}

fn is_vectorial(a: Algorithm) -> bool {
    matches!(a, Algorithm::Vectorial | Algorithm::VectorialSeqscan)
}

/// Evaluates every instance of the grid (in parallel) against the exact reference.
pub fn evaluate_grid(params: &GridParams, backend: &dyn Backend) -> Result<Grid, Error> {
    let start = Instant::now();
    let mut jobs = Vec::new();
    for (ti, topology) in params.topologies.iter().enumerate() {
        for (ci, &cond) in params.conds.iter().enumerate() {
            for k in 0..params.trees {
                jobs.push((ti, ci, k, params.instance_seed(topology, cond, k)));
            }
        }
    }
    type Part = (Vec<(CellKey, Cell)>, Violations);
    let parts: Vec<Result<Part, Error>> = jobs
        .par_iter()
        .map(|&(ti, ci, k, seed)| {
            let spec = InstanceSpec {
                topology: params.topologies[ti],
                n: params.nodes,
                weights: params.weights,
                target_cond: params.conds[ci],
                child_order: params.child_order,
                seed,
            };
            let instance = spec.generate()?;
            let achieved = experiment::achieved_cond(&instance.weights);
            let results = experiment::evaluate(
                &instance,
                &params.ops,
                &params.algos,
                ReferenceKind::Exact,
                backend,
            )?;
            let context = format!(
                "{} κ={} tree {k} (seed {seed}, n={})",
                spec.topology,
                sci(spec.target_cond),
                spec.n
            );
            let bad = violations(&context, &results);
            let mut cells = Vec::new();
            for r in &results {
                let base = baseline_outcome(r);
                for o in &r.outcomes {
                    let s = &o.bound_summary;
                    let mut cell = Cell {
                        trees: 1,
                        nodes: o.values.len(),
                        max_lost_bits: o.summary.max_lost_bits,
                        max_bound_lost_bits: s.max_bound_lost_bits,
                        tightness: o
                            .errors
                            .iter()
                            .zip(&o.bounds.det)
                            .map(|(e, &b)| tightness(e.abs, b) as f32)
                            .collect(),
                        bound_violations: s.bound_violations,
                        running_violations: s.running_violations,
                        prob_violations: s.prob_violations,
                        achieved_conds: vec![achieved],
                        ..Cell::default()
                    };
                    if let (true, Some(base)) = (is_vectorial(o.algorithm), base) {
                        for v in 0..o.values.len() {
                            if let Some((pred, meas)) = node_extra_bits(r, o, base, v) {
                                cell.extra_compared += 1;
                                if (pred - meas).abs() <= 1.0 {
                                    cell.extra_agree += 1;
                                }
                            }
                        }
                    }
                    cells.push(((ti, ci, r.op, o.algorithm), cell));
                }
            }
            Ok((cells, bad))
        })
        .collect();
    let mut cells: BTreeMap<CellKey, Cell> = BTreeMap::new();
    let mut all_bad = Violations::default();
    for part in parts {
        let (part_cells, bad) = part?;
        all_bad.extend(bad);
        for (key, cell) in part_cells {
            cells.entry(key).or_default().merge(cell);
        }
    }
    Ok(Grid {
        params: params.clone(),
        cells,
        violations: all_bad,
        wall_s: start.elapsed().as_secs_f64(),
    })
}

/// One row of `bounds-table.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    pub topology: String,
    pub target_cond: f64,
    pub achieved_cond_median: f64,
    pub op: String,
    pub algorithm: String,
    pub trees: usize,
    pub nodes: usize,
    /// Most bits lost by any node (measured against the exact reference).
    pub max_lost_bits: f64,
    /// Most bits the deterministic bound allows any node to lose: lost_bits(bound / |x|).
    pub max_bound_lost_bits: f64,
    pub median_tightness: f64,
    pub max_tightness: f64,
    pub bound_violations: usize,
    pub running_violations: usize,
    pub prob_violations: usize,
    /// Vectorial algorithms: fraction of nodes whose predicted and measured extra lost bits
    /// over parallel agree within 1 bit (empty for the others).
    pub extra_bits_agreement: Option<f64>,
    pub extra_bits_nodes: usize,
}

/// Pooled over every cell of one algorithm (or one algorithm and op).
#[derive(Debug, Clone, Serialize)]
pub struct AlgoSummary {
    pub algorithm: String,
    pub op: Option<String>,
    pub nodes: usize,
    pub median_tightness: f64,
    pub max_tightness: f64,
    pub extra_bits_agreement: Option<f64>,
    pub extra_bits_nodes: usize,
}

/// What `bounds-table.json` holds.
#[derive(Debug, Serialize)]
pub struct TableReport {
    pub tool: &'static str,
    pub version: &'static str,
    pub command_line: Vec<String>,
    pub params: GridParams,
    pub backend: String,
    pub lambda: f64,
    pub reference: &'static str,
    pub rows: Vec<TableRow>,
    pub per_algorithm: Vec<AlgoSummary>,
    pub per_algorithm_and_op: Vec<AlgoSummary>,
    pub wall_s: f64,
}

/// The rows and pooled summaries of an evaluated grid.
pub fn report(grid: &mut Grid, backend: &str) -> TableReport {
    let p = grid.params.clone();
    let mut rows = Vec::new();
    for (&(ti, ci, op, algo), cell) in grid.cells.iter_mut() {
        let (median_tightness, max_tightness) = cell.tightness_stats();
        let mut conds = cell.achieved_conds.clone();
        conds.sort_by(f64::total_cmp);
        rows.push(TableRow {
            topology: p.topologies[ti].to_string(),
            target_cond: p.conds[ci],
            achieved_cond_median: conds.get(conds.len() / 2).copied().unwrap_or(0.0),
            op: op.to_string(),
            algorithm: algo.to_string(),
            trees: cell.trees,
            nodes: cell.nodes,
            max_lost_bits: cell.max_lost_bits,
            max_bound_lost_bits: cell.max_bound_lost_bits,
            median_tightness,
            max_tightness,
            bound_violations: cell.bound_violations,
            running_violations: cell.running_violations,
            prob_violations: cell.prob_violations,
            extra_bits_agreement: cell.agreement(),
            extra_bits_nodes: cell.extra_compared,
        });
    }
    let pooled = |algo: Algorithm, op: Option<Op>| {
        let mut t: Vec<f32> = Vec::new();
        let (mut agree, mut compared) = (0, 0);
        for (&(_, _, o, a), cell) in &grid.cells {
            if a == algo && op.is_none_or(|x| x == o) {
                t.extend_from_slice(&cell.tightness);
                agree += cell.extra_agree;
                compared += cell.extra_compared;
            }
        }
        let (median_tightness, max_tightness) = median_max(&mut t);
        AlgoSummary {
            algorithm: algo.to_string(),
            op: op.map(|o| o.to_string()),
            nodes: t.len(),
            median_tightness,
            max_tightness,
            extra_bits_agreement: (compared > 0).then(|| agree as f64 / compared as f64),
            extra_bits_nodes: compared,
        }
    };
    let per_algorithm = p.algos.iter().map(|&a| pooled(a, None)).collect();
    let per_algorithm_and_op = p
        .algos
        .iter()
        .flat_map(|&a| p.ops.iter().map(move |&o| (a, o)))
        .map(|(a, o)| pooled(a, Some(o)))
        .collect();
    TableReport {
        tool: "treefix-accuracy",
        version: env!("CARGO_PKG_VERSION"),
        command_line: std::env::args().collect(),
        params: p,
        backend: backend.to_string(),
        lambda: LAMBDA,
        reference: "exact",
        rows,
        per_algorithm,
        per_algorithm_and_op,
        wall_s: grid.wall_s,
    }
}

/// The readable table: one block per target condition number, one line per topology and op,
/// per algorithm "measured/allowed max lost bits" and the median tightness.
pub fn render(rep: &TableReport) -> String {
    let p = &rep.params;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "bounds table: weights {}, n = {}, {} tree(s) per cell, child order {}, reference exact, λ = {}",
        p.weights, p.nodes, p.trees, p.child_order, rep.lambda
    );
    let _ = writeln!(
        s,
        "per algorithm: max lost bits measured / max allowed by the deterministic bound, median tightness (|error| / bound)"
    );
    for &cond in &p.conds {
        let _ = writeln!(s, "\nκ target {}", sci(cond));
        let mut header = format!("{:<18} {:<8} {:>8}", "topology", "op", "κ med");
        for a in &p.algos {
            let _ = write!(header, " | {:<19}", a.name());
        }
        let _ = writeln!(s, "{header}");
        for t in &p.topologies {
            for op in &p.ops {
                let here: Vec<&TableRow> = rep
                    .rows
                    .iter()
                    .filter(|r| {
                        r.topology == t.to_string()
                            && r.target_cond == cond
                            && r.op == op.to_string()
                    })
                    .collect();
                let Some(first) = here.first() else { continue };
                let mut line = format!(
                    "{:<18} {:<8} {:>8}",
                    t.to_string(),
                    op.name(),
                    sci(first.achieved_cond_median)
                );
                for a in &p.algos {
                    match here.iter().find(|r| r.algorithm == a.name()) {
                        Some(r) => {
                            let _ = write!(
                                line,
                                " | {:>5.1}/{:>5.1} {:>7}",
                                r.max_lost_bits,
                                r.max_bound_lost_bits,
                                sci(r.median_tightness)
                            );
                        }
                        None => {
                            let _ = write!(line, " | {:<19}", "");
                        }
                    }
                }
                let _ = writeln!(s, "{line}");
            }
        }
    }
    let _ = writeln!(
        s,
        "\ntightness (|error| / deterministic bound) over all cells and nodes"
    );
    let _ = writeln!(
        s,
        "{:<18} {:<8} {:>10} {:>10} {:>10} {:>22}",
        "algorithm", "op", "nodes", "median", "max", "extra bits agree ±1"
    );
    for a in rep.per_algorithm.iter().chain(&rep.per_algorithm_and_op) {
        let agree = match a.extra_bits_agreement {
            Some(f) => format!("{:.1}% of {}", 100.0 * f, a.extra_bits_nodes),
            None => "-".into(),
        };
        let _ = writeln!(
            s,
            "{:<18} {:<8} {:>10} {:>10} {:>10} {:>22}",
            a.algorithm,
            a.op.as_deref().unwrap_or("both"),
            a.nodes,
            sci(a.median_tightness),
            sci(a.max_tightness),
            agree
        );
    }
    let _ = writeln!(
        s,
        "extra bits: predicted log2(bound_vec / bound_par) vs measured log2(err_vec / err_par), both floored at u·|x|"
    );
    let bad: usize = rep
        .rows
        .iter()
        .map(|r| r.bound_violations + r.running_violations)
        .sum();
    let prob: usize = rep.rows.iter().map(|r| r.prob_violations).sum();
    let nodes: usize = rep.rows.iter().map(|r| r.nodes).sum();
    let _ = writeln!(
        s,
        "deterministic-bound violations: {bad}; probabilistic-bound (λ = {}) violations: {prob} of {nodes} node checks",
        rep.lambda
    );
    s
}

/// Writes `bounds-table.csv`, `bounds-table.json` and `bounds-table.txt` into `dir`.
pub fn write(dir: &Path, rep: &TableReport, text: &str) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    let csv_path = dir.join("bounds-table.csv");
    let mut w = csv::Writer::from_path(&csv_path).map_err(Error::csv(&csv_path))?;
    for r in &rep.rows {
        w.serialize(r).map_err(Error::csv(&csv_path))?;
    }
    w.flush().map_err(Error::io(&csv_path))?;
    let json_path = dir.join("bounds-table.json");
    let json = serde_json::to_string_pretty(rep).map_err(Error::json(&json_path))?;
    std::fs::write(&json_path, json + "\n").map_err(Error::io(&json_path))?;
    let txt_path = dir.join("bounds-table.txt");
    std::fs::write(&txt_path, text).map_err(Error::io(&txt_path))?;
    Ok(())
}

/// `reports/bounds-table-<UTC timestamp>`.
pub fn default_dir() -> PathBuf {
    PathBuf::from(format!(
        "reports/bounds-table-{}",
        chrono::Utc::now().format("%Y%m%d-%H%M%S")
    ))
}

/// The default topologies of the table (every family, default parameters).
pub fn default_topologies() -> Vec<Topology> {
    Topology::all_defaults()
}
