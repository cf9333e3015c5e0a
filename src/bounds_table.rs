//! `accuracy bounds-table`: the topology explained. For every topology, condition number,
//! operation and algorithm: the most bits measured lost, the most the deterministic bound
//! allows, how tight the bound is, and whether the bounds predict the extra bits the
//! vectorial algorithm loses over parallel: whether a bound, computed before running, explains
//! what a topology costs each algorithm.
//!
//! The grid it evaluates is `crate::grid`; violations end it with exit code 3 (`crate::verdict`).

use crate::Error;
use crate::format::sci;
use crate::grid::{Grid, PREDICTORS, agreement, median_max, percentile};
use crate::output::{self, OutputFile};
use analysis::bounds::LAMBDA;
pub use analysis::records::bounds_table::{
    Agreement, AlgoSummary, GridParams, TableReport, TableRow,
};
use analysis::{Algorithm, Op};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The rows and pooled summaries of an evaluated grid.
pub fn report(grid: &mut Grid, backend: &str) -> TableReport {
    let p = grid.params.clone();
    let mut rows = Vec::new();
    for (&(ti, ci, op, algo), cell) in grid.cells.iter_mut() {
        let (median_tightness, max_tightness) = median_max(&mut cell.tightness);
        let (median_sharp_tightness, max_sharp_tightness) = median_max(&mut cell.sharp_tightness);
        let det = agreement(&mut cell.extra_diff[0]);
        let sharp = agreement(&mut cell.extra_diff[1]);
        let mut conds = cell.achieved_conds.clone();
        rows.push(TableRow {
            topology: p.topologies[ti].to_string(),
            target_cond: p.conds[ci],
            achieved_cond_median: analysis::stats::median(&mut conds).unwrap_or(0.0),
            op: op.to_string(),
            algorithm: algo.to_string(),
            trees: cell.trees,
            nodes: cell.nodes,
            max_lost_bits: cell.max_lost_bits,
            p50_lost_bits: percentile(&mut cell.lost_bits, 0.5),
            p90_lost_bits: percentile(&mut cell.lost_bits, 0.9),
            p99_lost_bits: percentile(&mut cell.lost_bits, 0.99),
            max_bound_lost_bits: cell.max_bound_lost_bits,
            p50_bound_lost_bits: percentile(&mut cell.bound_lost_bits, 0.5),
            p99_bound_lost_bits: percentile(&mut cell.bound_lost_bits, 0.99),
            max_sharp_lost_bits: cell.max_sharp_lost_bits,
            median_tightness,
            max_tightness,
            median_sharp_tightness,
            max_sharp_tightness,
            bound_violations: cell.bound_violations,
            sharp_violations: cell.sharp_violations,
            running_violations: cell.running_violations,
            prob_violations: cell.prob_violations,
            extra_bits_agreement: det.map(|a| a.0),
            extra_bits_median_offset: det.map(|a| a.1),
            sharp_extra_bits_agreement: sharp.map(|a| a.0),
            sharp_extra_bits_median_offset: sharp.map(|a| a.1),
            extra_bits_nodes: cell.extra_diff[0].len(),
        });
    }
    let pooled = |algo: Algorithm, op: Option<Op>| {
        let (mut t, mut st): (Vec<f32>, Vec<f32>) = (Vec::new(), Vec::new());
        let mut diffs: [Vec<f32>; 4] = Default::default();
        for (&(_, _, o, a), cell) in &grid.cells {
            if a == algo && op.is_none_or(|x| x == o) {
                t.extend_from_slice(&cell.tightness);
                st.extend_from_slice(&cell.sharp_tightness);
                for (d, c) in diffs.iter_mut().zip(&cell.extra_diff) {
                    d.extend_from_slice(c);
                }
            }
        }
        let (median_tightness, max_tightness) = median_max(&mut t);
        let (median_sharp_tightness, max_sharp_tightness) = median_max(&mut st);
        let extra_bits_nodes = diffs[0].len();
        AlgoSummary {
            algorithm: algo.to_string(),
            op: op.map(|o| o.to_string()),
            nodes: t.len(),
            median_tightness,
            max_tightness,
            median_sharp_tightness,
            max_sharp_tightness,
            extra_bits: diffs
                .iter_mut()
                .zip(PREDICTORS)
                .map(|(d, name)| {
                    agreement(d).map(|(within_1_bit, median_offset)| Agreement {
                        predictor: name.into(),
                        within_1_bit,
                        median_offset,
                    })
                })
                .collect(),
            extra_bits_nodes,
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
        tool: "treefix-accuracy".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command_line: std::env::args().collect(),
        params: p,
        backend: backend.to_string(),
        lambda: LAMBDA,
        reference: "exact".into(),
        rows,
        per_algorithm,
        per_algorithm_and_op,
        wall_s: grid.wall_s,
    }
}

/// The readable table: one block per target condition number, one line per topology and op,
/// per algorithm the max lost bits measured, allowed by the a priori bound and by the sharp
/// bound, and the median tightness of the a priori bound.
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
        "per algorithm: max lost bits  meas = measured, bound = allowed by the a priori bound Σγ_{{d_i}}|t_i|,\n\
         sharp = allowed by the sharp a priori bound (u·|exact partial sum| per rounding); tight = median |error|/bound"
    );
    for &cond in &p.conds {
        cells(rep, cond, &mut s);
    }
    tightness(rep, &mut s);
    extra_bits(rep, &mut s);
    let bad: usize = rep
        .rows
        .iter()
        .map(|r| r.bound_violations + r.sharp_violations + r.running_violations)
        .sum();
    let prob: usize = rep.rows.iter().map(|r| r.prob_violations).sum();
    let nodes: usize = rep.rows.iter().map(|r| r.nodes).sum();
    let _ = writeln!(
        s,
        "\ndeterministic-bound violations: {bad}; probabilistic-bound (λ = {}) violations: {prob}; of {nodes} node checks",
        rep.lambda
    );
    s
}

/// One block of the table: the cells of target κ `cond`, a line per topology and op.
fn cells(rep: &TableReport, cond: f64, s: &mut String) {
    let p = &rep.params;
    let _ = writeln!(s, "\nκ target {}", sci(cond));
    let mut header = format!("{:<17} {:<7} {:>7}", "topology", "op", "κ med");
    let mut sub = format!("{:<17} {:<7} {:>7}", "", "", "");
    for a in &p.algos {
        let _ = write!(header, " | {:<24}", a.name());
        let _ = write!(
            sub,
            " | {:>5} {:>5} {:>5} {:>7}",
            "meas", "bound", "sharp", "tight"
        );
    }
    let _ = writeln!(s, "{header}");
    let _ = writeln!(s, "{sub}");
    for t in &p.topologies {
        for op in &p.ops {
            let here: Vec<&TableRow> = rep
                .rows
                .iter()
                .filter(|r| {
                    r.topology == t.to_string() && r.target_cond == cond && r.op == op.to_string()
                })
                .collect();
            let Some(first) = here.first() else { continue };
            let mut line = format!(
                "{:<17} {:<7} {:>7}",
                t.to_string(),
                op.name(),
                sci(first.achieved_cond_median)
            );
            for a in &p.algos {
                match here.iter().find(|r| r.algorithm == a.name()) {
                    Some(r) => {
                        let _ = write!(
                            line,
                            " | {:>5.1} {:>5.1} {:>5.1} {:>7}",
                            r.max_lost_bits,
                            r.max_bound_lost_bits,
                            r.max_sharp_lost_bits,
                            sci(r.median_tightness)
                        );
                    }
                    None => {
                        let _ = write!(line, " | {:<24}", "");
                    }
                }
            }
            let _ = writeln!(s, "{line}");
        }
    }
}

/// The tightness of the bounds over all cells and nodes, per algorithm and per algorithm × op.
fn tightness(rep: &TableReport, s: &mut String) {
    let _ = writeln!(s, "\ntightness |error| / bound over all cells and nodes");
    let _ = writeln!(
        s,
        "{:<21} {:<8} {:>9} | {:>8} {:>8} | {:>8} {:>8}",
        "algorithm", "op", "nodes", "bound med", "max", "sharp med", "max"
    );
    for a in rep.per_algorithm.iter().chain(&rep.per_algorithm_and_op) {
        let _ = writeln!(
            s,
            "{:<21} {:<8} {:>9} | {:>9} {:>8} | {:>9} {:>8}",
            a.algorithm,
            a.op.as_deref().unwrap_or("both"),
            a.nodes,
            sci(a.median_tightness),
            sci(a.max_tightness),
            sci(a.median_sharp_tightness),
            sci(a.max_sharp_tightness)
        );
    }
}

/// The extra lost bits of each algorithm over parallel: predicted against measured.
fn extra_bits(rep: &TableReport, s: &mut String) {
    let _ = writeln!(
        s,
        "\nextra lost bits over parallel, per node (x ≠ 0): predicted log2(B_vec/B_par) vs measured \
         log2(|err_vec|/|err_par|),\nboth floored at u·|x|; 'agree' = within 1 bit, 'offset' = median predicted − measured"
    );
    let mut header = format!("{:<21} {:<8} {:>9}", "algorithm", "op", "nodes");
    for name in PREDICTORS {
        let _ = write!(header, " | {:>7} {:>6}", format!("{name} agree"), "offset");
    }
    let _ = writeln!(s, "{header}");
    for a in rep.per_algorithm.iter().chain(&rep.per_algorithm_and_op) {
        if a.extra_bits_nodes == 0 {
            continue;
        }
        let mut line = format!(
            "{:<21} {:<8} {:>9}",
            a.algorithm,
            a.op.as_deref().unwrap_or("both"),
            a.extra_bits_nodes
        );
        for (g, name) in a.extra_bits.iter().zip(PREDICTORS) {
            let width = name.len() + 6;
            match g {
                Some(g) => {
                    let _ = write!(
                        line,
                        " | {:>width$} {:>6.2}",
                        format!("{:.1}%", 100.0 * g.within_1_bit),
                        g.median_offset
                    );
                }
                None => {
                    let _ = write!(line, " | {:>width$} {:>6}", "-", "-");
                }
            }
        }
        let _ = writeln!(s, "{line}");
    }
}

/// Writes `bounds-table.csv`, `bounds-table.json` and `bounds-table.txt` into `dir`, each
/// complete or absent (`crate::output`).
pub fn write(dir: &Path, rep: &TableReport, text: &str) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(Error::output(dir))?;
    let csv_path = dir.join("bounds-table.csv");
    let mut w = csv::Writer::from_writer(OutputFile::create(&csv_path)?);
    for r in &rep.rows {
        w.serialize(r).map_err(output::csv_error(&csv_path))?;
    }
    w.into_inner()
        .map_err(|e| Error::write(&csv_path)(e.into_error()))?
        .commit()?;
    let json_path = dir.join("bounds-table.json");
    let json = crate::versioned_json(rep).map_err(Error::json(&json_path))?;
    output::write_file(&json_path, (json + "\n").as_bytes())?;
    output::write_file(&dir.join("bounds-table.txt"), text.as_bytes())
}

/// `reports/bounds-table-<UTC timestamp>`.
pub fn default_dir() -> PathBuf {
    PathBuf::from(format!(
        "reports/bounds-table-{}",
        chrono::Utc::now().format("%Y%m%d-%H%M%S")
    ))
}
