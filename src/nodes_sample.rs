//! `DIR/nodes-sample.csv`: a bounded, deterministic sample of per-node errors for the report's
//! per-node scatter. For every tree × algorithm × op it keeps an even stride of about
//! [`PER_OUTCOME`] vertices plus the worst node, so its size does not grow with `--nodes`.

use crate::Error;
use crate::experiment::Outcome;
use crate::sweep::files;
use analysis::Reference;
pub use analysis::records::nodes_sample::{FILE, NodeRecord};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Vertices sampled per tree × algorithm × op (plus the worst one).
pub const PER_OUTCOME: usize = 24;
/// The sampled nodes of one outcome of tree `tree`. Only nodes with a finite relative error are sampled: flagged
/// nodes (exact value 0, computed value not), non-finite results and overflowing nodes are
/// left out; results.csv counts them.
pub fn sample(tree: usize, reference: &Reference, o: &Outcome) -> Vec<NodeRecord> {
    let mut out = Vec::new();
    let n = o.errors.len();
    let stride = n.div_ceil(PER_OUTCOME).max(1);
    let worst = o
        .errors
        .iter()
        .enumerate()
        .filter(|(_, e)| sampled(e))
        .max_by(|a, b| a.1.rel.total_cmp(&b.1.rel).then(b.0.cmp(&a.0)))
        .map(|(v, _)| v);
    for (v, e) in o.errors.iter().enumerate() {
        if !sampled(e) || (v % stride != 0 && Some(v) != worst) {
            continue;
        }
        let x = reference.value_f64(v).abs();
        out.push(NodeRecord {
            tree,
            algorithm: o.algorithm.to_string(),
            op: o.op.to_string(),
            vertex: v as u32,
            cond: reference.cond(v),
            rel_error: e.rel,
            lost_bits: e.lost_bits(),
            bound_rel: (x > 0.0).then(|| o.bounds.det[v] / x),
            worst: u8::from(Some(v) == worst),
        });
    }
    out
}

/// Whether a node's error can be drawn: a finite relative error.
fn sampled(e: &analysis::NodeError) -> bool {
    e.has_rel() && e.rel.is_finite()
}

/// Appends records to the sample of a running sweep (`DIR/nodes-sample.csv.partial`) as trees
/// finish.
pub struct SampleWriter {
    path: PathBuf,
    writer: csv::Writer<fs::File>,
}

impl SampleWriter {
    /// Opens the sample of a sweep in `dir`, keeping only the records of `complete` trees (the
    /// ones the results log kept on resume); a fresh sweep starts an empty file.
    pub fn open(dir: &Path, complete: &HashSet<usize>) -> Result<SampleWriter, Error> {
        let path = files::partial(dir, FILE);
        let mut kept: Vec<csv::StringRecord> = Vec::new();
        let mut header: Option<csv::StringRecord> = None;
        let existing = files::existing_log(dir, FILE).filter(|_| !complete.is_empty());
        if let Some(old) = existing {
            let mut reader = csv::Reader::from_path(&old).map_err(Error::csv(&old))?;
            let h = reader.headers().map_err(Error::csv(&old))?.clone();
            header = Some(h).filter(|h| !h.is_empty());
            for rec in reader.records() {
                // A run killed mid-write leaves a truncated last line: drop it.
                let Ok(rec) = rec else { break };
                let tree = rec.get(0).and_then(|t| t.parse::<usize>().ok());
                if tree.is_some_and(|t| complete.contains(&t)) {
                    kept.push(rec);
                }
            }
        }
        // The kept records replace the log atomically: a kill while they are copied leaves the
        // old log, never one that lost the records of finished trees.
        let tmp = files::temporary_beside(&path)?;
        let mut writer = csv::WriterBuilder::new()
            .has_headers(header.is_none())
            .from_writer(tmp);
        if let Some(h) = &header {
            writer.write_record(h).map_err(Error::csv(&path))?;
        }
        for rec in &kept {
            writer.write_record(rec).map_err(Error::csv(&path))?;
        }
        let tmp = writer
            .into_inner()
            .map_err(|e| Error::io(&path)(e.into_error()))?;
        tmp.as_file().sync_all().map_err(Error::io(&path))?;
        let file = tmp.persist(&path).map_err(|e| Error::io(&path)(e.error))?;
        files::remove_if_present(&dir.join(FILE))?;
        let writer = csv::WriterBuilder::new()
            .has_headers(header.is_none() && kept.is_empty())
            .from_writer(file);
        Ok(SampleWriter { path, writer })
    }

    pub fn write(&mut self, records: &[NodeRecord]) -> Result<(), Error> {
        for r in records {
            self.writer.serialize(r).map_err(Error::csv(&self.path))?;
        }
        self.writer.flush().map_err(Error::io(&self.path))
    }
}
