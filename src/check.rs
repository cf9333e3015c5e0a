//! `accuracy check`: the lost-bits regression suite, so that a change that makes an algorithm
//! lose more bits, or breaks a bound, fails CI instead of going unnoticed.
//!
//! A fixed, seeded grid ([`suite`]) is evaluated against the exact reference; for every
//! (algorithm, op, topology, cond band) the most bits lost by any node — and the most the
//! deterministic bound allows — are compared with the committed baseline
//! (`reports/baseline.json`, written by `accuracy check --update`, never by hand).
//!
//! The check fails (exit 4) when a cell loses more than its baseline plus [`TOLERANCE_BITS`],
//! when its bound allows more than its baseline plus the same tolerance, or when the baseline
//! lacks a cell; any deterministic-bound violation fails it as a bug (exit 3).
//!
//! **Identical inputs.** The baseline records a fingerprint of every instance (its parent
//! array and the bits of its f32 weights). The check compares cells only when every instance
//! is the same; otherwise (a changed generator, or a platform whose libm moves a weight by an
//! ulp) it says so and fails (exit 2: review, then `--update`) — never as a regression. On
//! identical inputs, unchanged code gives bit-identical numbers (IEEE f32 additions in a
//! fixed order, an exact reference), so every difference comes from a change of a kernel's
//! order of additions or of a bound.
//!
//! **Tolerance: [`TOLERANCE_BITS`] = 1 bit.** A cell fails when its worst node loses more
//! than one bit more than the baseline's — an error more than twice as large — or when its
//! deterministic bound allows more than one bit more. One bit is the smallest change that is
//! a loss of precision and not the last-digit noise of a log2; it is a review threshold, not a
//! statistical allowance. A different order of additions draws a new rounding pattern, and a
//! cell's worst node is an extreme statistic (across seeds the max lost bits of a cell
//! spreads by 4.4 bits in the median), so an intended reordering will usually be flagged and
//! then accepted with a reviewed `--update`. The bound's bits are free of rounding noise:
//! they move only with the summation tree and the exact data, which makes them the stable
//! half of the check.
//!
//! `cargo test` runs [`fast_suite`], a sub-grid of the same instances (instance seeds do not
//! depend on the grid's shape), against the same baseline: a subset's maxima cannot exceed the
//! full suite's, so the same comparison applies.

use crate::Error;
use crate::experiment::Backend;
use crate::format::sci;
use crate::grid::{self, GridParams, InstanceInfo};
use crate::{bounds_table, verdict};
use analysis::{Algorithm, Op, ReferenceKind};
use generators::{ChildOrder, Topology, WeightModel};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// Allowed growth of a cell's max lost bits (and of its bound's) over the baseline, in bits.
pub const TOLERANCE_BITS: f64 = 1.0;

/// The committed baseline's default path, relative to the repository root.
pub const DEFAULT_BASELINE: &str = "reports/baseline.json";

/// The condition bands of the suite (gensum targets).
pub const BANDS: [f64; 3] = [1e2, 1e5, 1e8];

/// The full regression suite: every topology family × three cond bands × 2 trees of 20 000
/// vertices, every algorithm, both ops, gensum weights, natural child order.
pub fn suite() -> GridParams {
    GridParams {
        topologies: Topology::all_defaults(),
        conds: BANDS.to_vec(),
        trees: 2,
        nodes: 20_000,
        weights: WeightModel::Gensum,
        ops: Op::ALL.to_vec(),
        algos: Algorithm::ALL.to_vec(),
        child_order: ChildOrder::Natural,
        seed: 4,
    }
}

/// The part `cargo test` runs: the first tree of every cell (same instances as the suite's).
pub fn fast_suite() -> GridParams {
    GridParams {
        trees: 1,
        ..suite()
    }
}

/// One cell of the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub algorithm: String,
    pub op: String,
    pub topology: String,
    pub cond_band: String,
    pub achieved_cond_median: f64,
    pub max_lost_bits: f64,
    pub max_bound_lost_bits: f64,
}

impl Entry {
    fn key(&self) -> (&str, &str, &str, &str) {
        (&self.algorithm, &self.op, &self.topology, &self.cond_band)
    }
}

/// `reports/baseline.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub note: String,
    pub tolerance_bits: f64,
    pub suite: GridParams,
    /// Every instance of the suite with the fingerprint of its inputs.
    pub instances: Vec<InstanceInfo>,
    pub entries: Vec<Entry>,
}

/// What one evaluation of (part of) the suite produced.
pub struct Measured {
    pub entries: Vec<Entry>,
    pub instances: Vec<InstanceInfo>,
    pub violations: verdict::Violations,
    pub wall_s: f64,
}

/// Instances of `measured` that the baseline lacks or holds with other inputs.
pub fn changed_instances(baseline: &Baseline, measured: &[InstanceInfo]) -> Vec<String> {
    measured
        .iter()
        .filter_map(|m| {
            let same = |b: &&InstanceInfo| {
                b.topology == m.topology && b.target_cond == m.target_cond && b.tree == m.tree
            };
            match baseline.instances.iter().find(same) {
                Some(b) if b.fingerprint == m.fingerprint && b.seed == m.seed => None,
                Some(b) => Some(format!(
                    "{} κ={} tree {}: inputs changed (fingerprint {} → {})",
                    m.topology,
                    sci(m.target_cond),
                    m.tree,
                    b.fingerprint,
                    m.fingerprint
                )),
                None => Some(format!(
                    "{} κ={} tree {}: not in the baseline",
                    m.topology,
                    sci(m.target_cond),
                    m.tree
                )),
            }
        })
        .collect()
}

/// The name of a cond band: `1e5`.
pub fn band_name(cond: f64) -> String {
    format!("{cond:e}")
}

/// Evaluates a (sub-)grid of the suite.
pub fn measure(params: &GridParams, backend: &dyn Backend) -> Result<Measured, Error> {
    let mut grid = grid::evaluate_grid(params, backend)?;
    let rep = bounds_table::report(&mut grid, &backend.describe());
    let entries = rep
        .rows
        .iter()
        .map(|r| Entry {
            algorithm: r.algorithm.clone(),
            op: r.op.clone(),
            topology: r.topology.clone(),
            cond_band: band_name(r.target_cond),
            achieved_cond_median: r.achieved_cond_median,
            max_lost_bits: r.max_lost_bits,
            max_bound_lost_bits: r.max_bound_lost_bits,
        })
        .collect();
    Ok(Measured {
        entries,
        instances: grid.instances,
        violations: grid.violations,
        wall_s: grid.wall_s,
    })
}

/// A cell that differs from its baseline by more than the tolerance (or has none).
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub entry: Entry,
    /// The baseline's (max lost bits, max bound lost bits), if it has the cell.
    pub baseline: Option<(f64, f64)>,
    /// Whether it fails the check (a regression or a missing cell), or is an improvement.
    pub fails: bool,
}

/// Cells whose max lost bits or bound bits moved by more than `tol` from the baseline.
pub fn compare(baseline: &Baseline, measured: &[Entry], tol: f64) -> Vec<Difference> {
    let mut out = Vec::new();
    for m in measured {
        match baseline.entries.iter().find(|b| b.key() == m.key()) {
            None => out.push(Difference {
                entry: m.clone(),
                baseline: None,
                fails: true,
            }),
            Some(b) => {
                let worse = m.max_lost_bits > b.max_lost_bits + tol
                    || m.max_bound_lost_bits > b.max_bound_lost_bits + tol;
                let better = m.max_lost_bits < b.max_lost_bits - tol
                    || m.max_bound_lost_bits < b.max_bound_lost_bits - tol;
                if worse || better {
                    out.push(Difference {
                        entry: m.clone(),
                        baseline: Some((b.max_lost_bits, b.max_bound_lost_bits)),
                        fails: worse,
                    });
                }
            }
        }
    }
    out
}

/// The table of differences.
pub fn render_differences(diffs: &[Difference], tol: f64) -> String {
    let mut s = String::new();
    if diffs.is_empty() {
        let _ = writeln!(
            s,
            "no cell differs from the baseline by more than {tol} bit"
        );
        return s;
    }
    let _ = writeln!(
        s,
        "{:<21} {:<8} {:<18} {:>6} {:>8} | {:>15} {:>15} | status",
        "algorithm", "op", "topology", "band", "κ med", "lost bits", "bound bits"
    );
    for d in diffs {
        let e = &d.entry;
        let (lost, bound) = match d.baseline {
            Some((bl, bb)) => (
                format!("{bl:.2} → {:.2}", e.max_lost_bits),
                format!("{bb:.2} → {:.2}", e.max_bound_lost_bits),
            ),
            None => (
                format!("? → {:.2}", e.max_lost_bits),
                format!("? → {:.2}", e.max_bound_lost_bits),
            ),
        };
        let status = match (d.fails, d.baseline.is_some()) {
            (true, true) => format!("REGRESSION (> baseline + {tol} bit)"),
            (true, false) => "MISSING from the baseline".into(),
            (false, _) => "improved (consider `accuracy check --update`)".into(),
        };
        let _ = writeln!(
            s,
            "{:<21} {:<8} {:<18} {:>6} {:>8} | {:>15} {:>15} | {status}",
            e.algorithm,
            e.op,
            e.topology,
            e.cond_band,
            sci(e.achieved_cond_median),
            lost,
            bound
        );
    }
    s
}

pub fn read_baseline(path: &Path) -> Result<Baseline, Error> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    serde_json::from_str(&text).map_err(Error::json(path))
}

/// `accuracy check --update`: writes the baseline from the code's own output.
pub fn write_baseline(path: &Path, m: Measured) -> Result<(), Error> {
    let b = Baseline {
        note: "Generated by `accuracy check --update` from the code's output; never edit by hand."
            .into(),
        tolerance_bits: TOLERANCE_BITS,
        suite: suite(),
        instances: m.instances,
        entries: m.entries,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(Error::output(dir))?;
    }
    let json = crate::versioned_json(&b).map_err(Error::json(path))?;
    // Complete or absent: a baseline cut short would fail every later check.
    crate::output::write_file(path, (json + "\n").as_bytes())
}

/// What a check found: the report to show whatever the verdict, and the verdict.
#[derive(Debug)]
pub struct Checked {
    pub report: String,
    /// Exit 3 on a bound violation (after which `--update` has written nothing), exit 4 on a
    /// regression, exit 2 when the baseline's instances differ from the suite's.
    pub verdict: Result<(), Error>,
}

/// Runs the whole suite; with `update` rewrites the baseline, otherwise compares with it.
/// An error: the suite could not run or its baseline could not be read or written.
pub fn run(baseline_path: &Path, update: bool, backend: &dyn Backend) -> Result<Checked, Error> {
    let params = suite();
    let m = measure(&params, backend)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "check suite: {} topologies × {} bands × {} trees of {} vertices, {} weights, {} cells, {:.1} s",
        params.topologies.len(),
        params.conds.len(),
        params.trees,
        params.nodes,
        params.weights,
        m.entries.len(),
        m.wall_s
    );
    let checked = |report, verdict| Ok(Checked { report, verdict });
    if m.violations.count > 0 {
        let verdict = verdict::fail_on_violations(&m.violations, ReferenceKind::Exact);
        return checked(out, verdict.map(|_| ()));
    }
    if update {
        write_baseline(baseline_path, m)?;
        let _ = writeln!(out, "wrote {}", baseline_path.display());
        return checked(out, Ok(()));
    }
    let baseline = read_baseline(baseline_path)?;
    if baseline.suite != params {
        return Err(Error::Usage(format!(
            "{}: was written for another suite; run `accuracy check --update` after reviewing the change",
            baseline_path.display()
        )));
    }
    let changed = changed_instances(&baseline, &m.instances);
    if !changed.is_empty() {
        for line in &changed {
            let _ = writeln!(out, "  {line}");
        }
        return checked(
            out,
            Err(Error::Usage(format!(
                "{}: {} instance(s) differ from the baseline's (listed above), so the cells are not comparable; \
             review the generator change, then run `accuracy check --update`",
                baseline_path.display(),
                changed.len()
            ))),
        );
    }
    let diffs = compare(&baseline, &m.entries, TOLERANCE_BITS);
    out.push_str(&render_differences(&diffs, TOLERANCE_BITS));
    let failures = diffs.iter().filter(|d| d.fails).count();
    if failures > 0 {
        return checked(out, Err(Error::Regression(failures)));
    }
    let _ = writeln!(
        out,
        "ok: no deterministic-bound violation, no cell above its baseline + {TOLERANCE_BITS} bit"
    );
    checked(out, Ok(()))
}
