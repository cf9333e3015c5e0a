//! Reading a sweep directory into the record types of [`analysis::records`], the same types the
//! sweep writes them with (unknown columns are ignored, columns added later are optional).

use super::{BOUNDS_TABLE_FILE, ReportError};
use analysis::records::bench::BenchRecord;
pub use analysis::records::bounds_table::{TableReport, TableRow};
pub use analysis::records::nodes_sample::NodeRecord;
pub use analysis::records::results::{BOUND_COLUMNS, ResultRow, SOURCE_COLUMNS};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// summary.json's record of the answer's threshold: `{"max_lost_bits": B}`, written by
/// `sweep --max-lost-bits B` so that `accuracy report DIR` renders the same answer.
pub const ANSWER_FIELD: &str = "answer";

/// Everything a report is rendered from.
#[derive(Debug, Clone)]
pub struct ReportData {
    pub dir: PathBuf,
    pub rows: Vec<ResultRow>,
    /// `results.csv`'s header and fields exactly as stored (the report's full results table).
    pub header: Vec<String>,
    pub raw: Vec<Vec<String>>,
    /// The bound columns present in `results.csv`'s header.
    pub bound_columns: Vec<String>,
    /// `nodes-sample.csv`, if the sweep wrote one.
    pub nodes: Option<Vec<NodeRecord>>,
    /// `summary.json`, if present.
    pub summary: Option<Value>,
    /// `sweep.json` (the sweep parameters), if present.
    pub params: Option<Value>,
    /// The per-topology bounds table and where it came from.
    pub bounds_table: Option<(PathBuf, TableReport)>,
    /// A `bench.csv` given with the sweep, and where it came from.
    pub bench: Option<(PathBuf, Vec<BenchRecord>)>,
    /// The answer's threshold of lost bits, where one was given (`report --max-lost-bits`, or
    /// the sweep's, recorded in summary.json); `None`: the default.
    pub max_lost_bits: Option<f64>,
}

impl ReportData {
    /// Reads `dir`. Only `results.csv` is required; `bounds_table` overrides
    /// `dir/bounds-table.json`.
    pub fn load(dir: &Path, inputs: super::Inputs<'_>) -> Result<ReportData, ReportError> {
        let bounds_table = inputs.bounds_table;
        let results = dir.join(analysis::records::results::FILE);
        if !results.is_file() {
            return Err(ReportError::MissingResults { path: results });
        }
        let (rows, header, raw) = read_csv::<ResultRow>(&results)?;
        let bound_columns = BOUND_COLUMNS
            .iter()
            .filter(|c| header.iter().any(|h| h == *c))
            .map(|c| c.to_string())
            .collect();
        let nodes_path = dir.join(analysis::records::nodes_sample::FILE);
        let nodes = if nodes_path.is_file() {
            Some(read_csv::<NodeRecord>(&nodes_path)?.0)
        } else {
            None
        };
        let summary = read_json_opt(&dir.join("summary.json"))?;
        let params = read_json_opt(&dir.join("sweep.json"))?;
        let bt_path = bounds_table
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dir.join(BOUNDS_TABLE_FILE));
        let bounds_table = if bounds_table.is_some() || bt_path.is_file() {
            let t = read_json(&bt_path)?;
            Some((bt_path, t))
        } else {
            None
        };
        let bench = match inputs.bench {
            Some(path) => Some((path.to_path_buf(), read_bench(path)?)),
            None => None,
        };
        let max_lost_bits = inputs.max_lost_bits.or_else(|| {
            summary
                .as_ref()
                .and_then(|s| s.get(ANSWER_FIELD))
                .and_then(|a| a.get("max_lost_bits"))
                .and_then(Value::as_f64)
        });
        Ok(ReportData {
            dir: dir.to_path_buf(),
            bench,
            max_lost_bits,
            rows,
            header,
            raw,
            bound_columns,
            nodes,
            summary,
            params,
            bounds_table,
        })
    }

    /// Whether results.csv has any value in a bound column.
    pub fn has_bounds(&self) -> bool {
        self.rows.iter().any(|r| {
            r.deterministic_violations().is_some()
                || r.prob_violations.is_some()
                || r.median_tightness.is_some()
                || r.max_tightness.is_some()
                || r.max_bound_lost_bits.is_some()
        })
    }

    /// (op, algorithm) pairs in the order of sweep.json (ops outer, algorithms inner), then
    /// any others in order of first appearance.
    pub fn series_keys(&self) -> Vec<(String, String)> {
        let names = |key: &str| -> Vec<String> {
            self.params
                .as_ref()
                .and_then(|p| p.get(key))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut keys: Vec<(String, String)> = Vec::new();
        for op in names("ops") {
            for algo in names("algos") {
                keys.push((op.clone(), algo));
            }
        }
        keys.retain(|(op, a)| self.rows.iter().any(|r| &r.op == op && &r.algorithm == a));
        for r in &self.rows {
            if !keys.iter().any(|(o, a)| *o == r.op && *a == r.algorithm) {
                keys.push((r.op.clone(), r.algorithm.clone()));
            }
        }
        keys
    }

    /// Operations in series order.
    pub fn ops(&self) -> Vec<String> {
        let mut ops: Vec<String> = Vec::new();
        for (op, _) in self.series_keys() {
            if !ops.contains(&op) {
                ops.push(op);
            }
        }
        ops
    }

    /// Topologies (or tree files, [`ResultRow::tree_label`]) in order of first appearance.
    pub fn topologies(&self) -> Vec<String> {
        let mut t: Vec<String> = Vec::new();
        for r in &self.rows {
            if !t.iter().any(|x| *x == r.tree_label()) {
                t.push(r.tree_label().to_string());
            }
        }
        t
    }

    /// A field of summary.json.
    pub fn summary_field(&self, key: &str) -> Option<&Value> {
        self.summary.as_ref().and_then(|s| s.get(key))
    }

    /// A field of sweep.json, falling back to summary.json's copy of the parameters.
    pub fn param(&self, key: &str) -> Option<&Value> {
        self.params
            .as_ref()
            .and_then(|p| p.get(key))
            .or_else(|| self.summary_field("params").and_then(|p| p.get(key)))
    }
}

/// A bench.csv's records (`accuracy bench --out DIR`).
pub fn read_bench(path: &Path) -> Result<Vec<BenchRecord>, ReportError> {
    Ok(read_csv::<BenchRecord>(path)?.0)
}

/// Records as `T`, the header, and the fields as stored.
#[allow(clippy::type_complexity)]
fn read_csv<T: serde::de::DeserializeOwned>(
    path: &Path,
) -> Result<(Vec<T>, Vec<String>, Vec<Vec<String>>), ReportError> {
    let err = |source| ReportError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = csv::Reader::from_path(path).map_err(err)?;
    let headers = reader.headers().map_err(err)?.clone();
    let mut rows = Vec::new();
    let mut raw = Vec::new();
    for rec in reader.records() {
        let rec = rec.map_err(err)?;
        rows.push(rec.deserialize(Some(&headers)).map_err(err)?);
        raw.push(rec.iter().map(str::to_string).collect());
    }
    let header = headers.iter().map(str::to_string).collect();
    Ok((rows, header, raw))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| ReportError::Json {
        path: path.to_path_buf(),
        source,
    })
}

fn read_json_opt(path: &Path) -> Result<Option<Value>, ReportError> {
    if path.is_file() {
        read_json(path).map(Some)
    } else {
        Ok(None)
    }
}
