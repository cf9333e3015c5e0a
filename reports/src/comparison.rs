//! Every algorithm against the others, per op, as numbers for a small table: the findings
//! name at most three algorithms in a sentence and leave the full comparison to it.

use super::data::{ReportData, ResultRow};

pub(crate) fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

pub(crate) fn median(mut v: Vec<f64>) -> Option<f64> {
    analysis::stats::median(&mut v)
}

/// Least-squares slope of y over x.
pub(crate) fn slope(pts: &[(f64, f64)]) -> Option<f64> {
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx < 1e-9 { None } else { Some(sxy / sxx) }
}

/// The threshold of the "high κ" comparison: the largest power of ten at or below the median
/// achieved condition number, so at least half of the trees are compared.
pub fn high_cond_threshold(rows: &[&ResultRow]) -> Option<f64> {
    let m = median(
        rows.iter()
            .map(|r| r.achieved_cond)
            .filter(|c| c.is_finite() && *c > 0.0)
            .collect(),
    )?;
    Some(10f64.powi(m.log10().floor() as i32))
}

/// One algorithm on one op.
#[derive(Debug, Clone)]
pub struct Entry {
    pub algorithm: String,
    /// Mean over trees of the per-tree max lost bits, all trees.
    pub mean_bits: Option<f64>,
    /// The same over the trees with κ ≥ the comparison's threshold, and their count.
    pub mean_bits_high: Option<(f64, usize)>,
    /// Least-squares growth of the lost bits per decade of κ (trees with κ > 1 and a loss).
    pub growth: Option<f64>,
}

/// Every algorithm of one op.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub op: String,
    pub threshold: Option<f64>,
    pub entries: Vec<Entry>,
}

/// One comparison per op, algorithms in series order.
pub fn comparisons(data: &ReportData) -> Vec<Comparison> {
    let keys = data.series_keys();
    data.ops()
        .into_iter()
        .map(|op| {
            let here: Vec<&ResultRow> = data.rows.iter().filter(|r| r.op == op).collect();
            let threshold = high_cond_threshold(&here);
            let entries = keys
                .iter()
                .filter(|(o, _)| *o == op)
                .map(|(_, algo)| {
                    let mine: Vec<&&ResultRow> =
                        here.iter().filter(|r| &r.algorithm == algo).collect();
                    let all: Vec<f64> = mine.iter().map(|r| r.max_lost_bits).collect();
                    let high: Vec<f64> = threshold
                        .map(|t| {
                            mine.iter()
                                .filter(|r| r.achieved_cond >= t)
                                .map(|r| r.max_lost_bits)
                                .collect()
                        })
                        .unwrap_or_default();
                    let pts: Vec<(f64, f64)> = mine
                        .iter()
                        .filter(|r| {
                            r.achieved_cond > 1.0
                                && r.achieved_cond.is_finite()
                                && r.max_lost_bits > 0.0
                        })
                        .map(|r| (r.achieved_cond.log10(), r.max_lost_bits))
                        .collect();
                    let spread = pts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max)
                        - pts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
                    Entry {
                        algorithm: algo.clone(),
                        mean_bits: (!all.is_empty()).then(|| mean(&all)),
                        mean_bits_high: (!high.is_empty()).then(|| (mean(&high), high.len())),
                        growth: if spread >= 1.0 { slope(&pts) } else { None },
                    }
                })
                .collect();
            Comparison {
                op,
                threshold,
                entries,
            }
        })
        .collect()
}
