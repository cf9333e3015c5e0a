//! `results.csv`: one row per tree × algorithm × op (`accuracy sweep`).
//!
//! The first 18 columns have been there since the first sweep; every column added later is an
//! `Option` with `#[serde(default)]`, so files written before it still read (as `None`), and
//! new columns go at the end so the bytes of the existing ones never change.

use super::fields::field_names;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The file's name in a sweep directory.
pub const FILE: &str = "results.csv";

/// One row of `results.csv`: one tree × algorithm × op.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRow {
    /// Index of the tree in the sweep (its seed is derived from the sweep seed and this index).
    pub tree: usize,
    /// Topology family with parameters (`chain`, `kary:4`).
    pub topology: String,
    pub n: usize,
    pub height: u32,
    pub child_order: String,
    pub weights: String,
    pub seed: u64,
    pub target_cond: f64,
    pub achieved_cond: f64,
    pub algorithm: String,
    pub op: String,
    pub backend: String,
    pub reference: String,
    pub max_rel_error: f64,
    pub median_rel_error: f64,
    pub p99_rel_error: f64,
    pub max_lost_bits: f64,
    /// Nodes whose exact value is 0 but whose computed value is not (no relative error).
    pub flagged_nodes: usize,
    /// Nodes whose error exceeds the a priori deterministic bound (a bug if > 0: exit 3).
    #[serde(default)]
    pub bound_violations: Option<usize>,
    /// Nodes whose error exceeds the sharp a priori bound (a bug if > 0: exit 3).
    #[serde(default)]
    pub sharp_violations: Option<usize>,
    /// Nodes whose error exceeds the a posteriori running error bound (a bug if > 0: exit 3).
    #[serde(default)]
    pub running_violations: Option<usize>,
    /// Nodes whose error exceeds the probabilistic bound (λ = analysis::bounds::LAMBDA).
    #[serde(default)]
    pub prob_violations: Option<usize>,
    /// Median and max over the nodes of |error| / deterministic bound.
    #[serde(default)]
    pub median_tightness: Option<f64>,
    #[serde(default)]
    pub max_tightness: Option<f64>,
    /// Largest bits lost allowed by the deterministic bound: lost_bits(bound / |x|).
    #[serde(default)]
    pub max_bound_lost_bits: Option<f64>,
    /// Nodes where the GPU result differs from its CPU twin's (a bug if > 0); empty where no
    /// GPU kernel ran.
    #[serde(default)]
    pub gpu_mismatches: Option<usize>,
    /// Largest absolute error among the flagged nodes (whose exact value is 0).
    #[serde(default)]
    pub max_flagged_abs_error: Option<f64>,
    /// The tree file's name, for trees read from a file (`topology` then names no family).
    #[serde(default)]
    pub source: Option<String>,
    /// SHA-256 of that file's bytes (hex).
    #[serde(default)]
    pub source_sha256: Option<String>,
    /// Nodes whose result is NaN or ±∞ where the exact value's f32 rounding is finite: each
    /// an infinite loss (then `max_lost_bits` is `inf`).
    #[serde(default)]
    pub nonfinite_nodes: Option<usize>,
    /// Nodes where f32 overflows: the exact value lies beyond f32's range, or a partial sum
    /// of the algorithm's order did. Left out of the bound checks, which assume no overflow.
    #[serde(default)]
    pub overflow_nodes: Option<usize>,
    /// Largest distance in f32 ulps from the correctly rounded result (the exact value rounded
    /// to nearest f32): 0 for a correctly rounded algorithm; `inf` for a NaN result, or an
    /// infinite one where the rounding is finite (or the reverse).
    #[serde(default)]
    pub max_ulps: Option<f64>,
}

/// The columns the bounds work added (absent from older files: the report then says "not
/// available in this run"). In file order; `tests::column_groups_match_the_struct` checks them
/// against serde's field names.
pub const BOUND_COLUMNS: [&str; 7] = [
    "bound_violations",
    "sharp_violations",
    "running_violations",
    "prob_violations",
    "median_tightness",
    "max_tightness",
    "max_bound_lost_bits",
];

/// The columns added with GPU checking and tree files, in file order (checked likewise).
pub const SOURCE_COLUMNS: [&str; 4] = [
    "gpu_mismatches",
    "max_flagged_abs_error",
    "source",
    "source_sha256",
];

/// The columns added when non-finite results and overflow were told apart (checked likewise).
pub const FINITENESS_COLUMNS: [&str; 2] = ["nonfinite_nodes", "overflow_nodes"];

/// The column added with the correctly rounded references (checked likewise).
pub const ULPS_COLUMNS: [&str; 1] = ["max_ulps"];

impl ResultRow {
    /// Every column of `results.csv`, in file order.
    pub fn columns() -> &'static [&'static str] {
        field_names::<ResultRow>()
    }

    /// Nodes above any deterministic bound (a priori, sharp, running), if the run has them.
    pub fn deterministic_violations(&self) -> Option<usize> {
        let v = [
            self.bound_violations,
            self.sharp_violations,
            self.running_violations,
        ];
        v.iter()
            .any(Option::is_some)
            .then(|| v.iter().flatten().sum())
    }

    /// What the tree was: its file's name when read from one, else its topology family,
    /// followed by its child order unless natural.
    pub fn tree_label(&self) -> Cow<'_, str> {
        let base = self.source.as_deref().unwrap_or(&self.topology);
        match self.child_order.as_str() {
            // Another child order is another Euler tour: its own series in tables and figures.
            "" | "natural" => Cow::Borrowed(base),
            order => Cow::Owned(format!("{base} ({order})")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> ResultRow {
        ResultRow {
            tree: 3,
            topology: "chain".into(),
            n: 100,
            height: 99,
            child_order: "natural".into(),
            weights: "gensum".into(),
            seed: 7,
            target_cond: 1e3,
            achieved_cond: 1.5e3,
            algorithm: crate::Algorithm::with_role(crate::algorithms::PaperRole::Algorithm2)
                .to_string(),
            op: "leaffix".into(),
            backend: "cpu".into(),
            reference: "exact".into(),
            max_rel_error: 1e-5,
            median_rel_error: 1e-7,
            p99_rel_error: 1e-6,
            max_lost_bits: 7.5,
            flagged_nodes: 1,
            bound_violations: Some(0),
            sharp_violations: Some(0),
            running_violations: Some(0),
            prob_violations: Some(2),
            median_tightness: Some(0.01),
            max_tightness: Some(0.5),
            max_bound_lost_bits: Some(20.25),
            gpu_mismatches: Some(0),
            max_flagged_abs_error: Some(3e-9),
            source: Some("tree.txt".into()),
            source_sha256: Some("ab".repeat(32)),
            nonfinite_nodes: Some(0),
            overflow_nodes: Some(1),
            max_ulps: Some(3.0),
        }
    }

    fn write(rows: &[ResultRow]) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        for r in rows {
            w.serialize(r).unwrap();
        }
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    /// `text` with the named columns removed.
    fn drop_columns(text: &str, drop: &[&str]) -> String {
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let header = r.headers().unwrap().clone();
        let keep: Vec<usize> = (0..header.len())
            .filter(|&i| !drop.contains(&&header[i]))
            .collect();
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(keep.iter().map(|&i| &header[i])).unwrap();
        for rec in r.records() {
            let rec = rec.unwrap();
            w.write_record(keep.iter().map(|&i| &rec[i])).unwrap();
        }
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    fn read(text: &str) -> Result<Vec<ResultRow>, csv::Error> {
        csv::Reader::from_reader(text.as_bytes())
            .deserialize()
            .collect()
    }

    #[test]
    fn column_groups_match_the_struct() {
        let cols = ResultRow::columns();
        assert_eq!(
            cols.len(),
            18 + BOUND_COLUMNS.len()
                + SOURCE_COLUMNS.len()
                + FINITENESS_COLUMNS.len()
                + ULPS_COLUMNS.len()
        );
        // The header the writer produces is serde's field list.
        let text = write(&[row()]);
        assert_eq!(text.lines().next().unwrap(), cols.join(","));
        // The groups are contiguous, in file order, at the end.
        assert_eq!(cols[18..25], BOUND_COLUMNS);
        assert_eq!(cols[25..29], SOURCE_COLUMNS);
        assert_eq!(cols[29..31], FINITENESS_COLUMNS);
        assert_eq!(cols[31..], ULPS_COLUMNS);
    }

    #[test]
    fn later_columns_are_optional_and_the_first_18_required() {
        let full = write(&[row()]);
        // A file written before the bounds work (18 columns) reads, with None where absent.
        let old: Vec<&str> = BOUND_COLUMNS
            .iter()
            .chain(&SOURCE_COLUMNS)
            .chain(&FINITENESS_COLUMNS)
            .chain(&ULPS_COLUMNS)
            .copied()
            .collect();
        let rows = read(&drop_columns(&full, &old)).unwrap();
        assert_eq!(rows[0].bound_violations, None);
        assert_eq!(rows[0].max_bound_lost_bits, None);
        assert_eq!(rows[0].source, None);
        assert_eq!(rows[0].deterministic_violations(), None);
        assert_eq!(rows[0].tree_label(), "chain");
        // Every optional column can go alone; every one of the first 18 cannot.
        for (i, c) in ResultRow::columns().iter().enumerate() {
            let res = read(&drop_columns(&full, &[c]));
            assert_eq!(res.is_ok(), i >= 18, "dropping {c}: {res:?}");
        }
    }

    #[test]
    fn round_trip_and_empty_optional_cells() {
        let r = row();
        let one = std::slice::from_ref(&r);
        assert_eq!(read(&write(one)).unwrap(), one);
        assert_eq!(r.deterministic_violations(), Some(0));
        assert_eq!(r.tree_label(), "tree.txt");
        let mut none = r;
        none.gpu_mismatches = None;
        none.source = None;
        none.source_sha256 = None;
        none.nonfinite_nodes = None;
        none.overflow_nodes = None;
        none.max_ulps = None;
        let text = write(&[none.clone()]);
        assert!(
            text.lines().nth(1).unwrap().ends_with(",3e-9,,,,,"),
            "{text}"
        );
        assert_eq!(read(&text).unwrap(), [none]);
    }
}
