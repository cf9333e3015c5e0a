//! `DIR/nodes-sample.csv`: a bounded, deterministic sample of per-node errors for the report's
//! per-node scatter. For every tree × algorithm × op it keeps an even stride of about
//! [`PER_OUTCOME`] vertices plus the worst node, so its size does not grow with `--nodes`.

use super::logs as files;
use crate::experiment::Outcome;
use crate::{Error, output};
use analysis::Reference;
pub use analysis::records::nodes_sample::{FILE, NodeRecord};
use std::collections::HashSet;
use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Write};
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
            bound_rel: (x > 0.0).then(|| o.bounds[v].det / x),
            worst: u8::from(Some(v) == worst),
        });
    }
    out
}

/// Whether a node's error can be drawn: a finite relative error.
fn sampled(e: &analysis::NodeError) -> bool {
    e.has_rel() && e.rel.is_finite()
}

/// The first field of the line that closes a tree's records in the sample log of a running
/// sweep: `#tree,INDEX,RECORDS`. The log is a plain CSV once the sweep finishes (these lines
/// are left out of `nodes-sample.csv`); until then a tree counts as complete in the sample only
/// where its closing line follows exactly its records, so a log cut short (a power loss, a
/// deleted file) loses whole trees, which a resume computes again.
const CLOSE: &str = "#tree";

/// The sample log of an interrupted sweep, as a resume finds it.
pub struct SampleLog {
    header: Option<csv::StringRecord>,
    /// Every record of a complete tree, in log order, with its tree.
    records: Vec<(usize, csv::StringRecord)>,
    /// The trees whose records are all there, in log order; `None`: every tree (a finished
    /// sweep's `nodes-sample.csv`, written whole from a complete log).
    complete: Option<Vec<usize>>,
}

impl SampleLog {
    /// An empty log (a fresh sweep).
    pub fn empty() -> SampleLog {
        SampleLog {
            header: None,
            records: Vec::new(),
            complete: Some(Vec::new()),
        }
    }

    /// Reads the sample log of the sweep in `dir` (the running one's, else the finished one's).
    /// A running log is read tree by tree, up to the first line that breaks the pattern it was
    /// written in: a record that does not parse or that `belongs` refuses (zeros a crash left,
    /// a byte changed), a record of another tree before the open one is closed, a closing line
    /// whose count differs from the records before it, a tree closed twice. What follows is
    /// left out, whole trees only: a log damaged anywhere keeps the trees before the damage.
    pub fn read(dir: &Path, belongs: &dyn Fn(&NodeRecord) -> bool) -> Result<SampleLog, Error> {
        let Some(path) = files::existing_log(dir, FILE) else {
            return Ok(SampleLog::empty());
        };
        let finished = path == dir.join(FILE);
        let mut bytes = fs::read(&path).map_err(Error::io(&path))?;
        let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        bytes.truncate(end);
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .from_reader(bytes.as_slice());
        let header = reader.headers().ok().cloned();
        let columns = csv::StringRecord::from(NodeRecord::columns().to_vec());
        let Some(header) = header.filter(|h| *h == columns) else {
            // No header, or a damaged one: nothing in the log can be trusted.
            return Ok(SampleLog::empty());
        };
        let mut log = SampleLog {
            header: Some(header),
            records: Vec::new(),
            complete: Some(Vec::new()),
        };
        let closed = log.scan(reader.records(), belongs, finished);
        log.records.truncate(closed);
        if finished {
            log.complete = None;
        }
        Ok(log)
    }

    /// Reads `records` into the log while they follow the pattern [`SampleLog::read`] names
    /// (a `finished` log has no closing lines: a tree ends where the next begins); returns how
    /// many records belong to closed trees.
    fn scan(
        &mut self,
        records: impl Iterator<Item = csv::Result<csv::StringRecord>>,
        belongs: &dyn Fn(&NodeRecord) -> bool,
        finished: bool,
    ) -> usize {
        let header = self.header.clone();
        let complete = self.complete.get_or_insert_with(Vec::new);
        let mut seen = HashSet::new();
        let mut open: Option<(usize, usize)> = None;
        let mut closed_records = 0;
        for rec in records {
            let Ok(rec) = rec else { break };
            if rec.get(0) == Some(CLOSE) {
                let number = |i: usize| rec.get(i).and_then(|t| t.parse::<usize>().ok());
                let (Some(tree), Some(count), 3) = (number(1), number(2), rec.len()) else {
                    break;
                };
                // A tree without sampled nodes is closed without records.
                let held = match open {
                    Some((t, k)) if t == tree => k,
                    None if seen.insert(tree) => 0,
                    _ => break,
                };
                if finished || held != count {
                    break;
                }
                complete.push(tree);
                open = None;
                closed_records = self.records.len();
                continue;
            }
            let whole = header.as_ref().is_some_and(|h| h.len() == rec.len());
            let record = rec.deserialize::<NodeRecord>(header.as_ref());
            let Some(r) = record.ok().filter(|r| whole && belongs(r) && printable(r)) else {
                break;
            };
            match open {
                Some((t, ref mut k)) if t == r.tree => *k += 1,
                Some(_) if finished && seen.insert(r.tree) => open = Some((r.tree, 1)),
                None if seen.insert(r.tree) => open = Some((r.tree, 1)),
                _ => break,
            }
            self.records.push((r.tree, rec));
            if finished {
                closed_records = self.records.len();
            }
        }
        closed_records
    }

    /// The trees whose every record is in the log, in log order (`None`: every tree).
    pub fn complete_trees(&self) -> Option<&[usize]> {
        self.complete.as_deref()
    }
}

/// Whether a record's text fields hold no control character: a NUL or an escape byte inside
/// a name is damage, never something the sweep wrote.
fn printable(r: &NodeRecord) -> bool {
    [&r.algorithm, &r.op]
        .iter()
        .all(|s| !s.chars().any(char::is_control))
}

/// Appends records to the sample of a running sweep (`DIR/nodes-sample.csv.partial`) as trees
/// finish; each tree's records, then its closing line, reach the disk (flushed, then synced)
/// before its rows reach the results log.
pub struct SampleWriter {
    path: PathBuf,
    writer: csv::Writer<fs::File>,
}

impl SampleWriter {
    /// Starts the sample log of the sweep in `dir` again from `log`, keeping the records of
    /// the `kept` trees (those complete in both logs, in job order), each followed by its
    /// closing line as a running sweep writes them; a fresh sweep starts an empty log.
    pub fn open(dir: &Path, log: SampleLog, kept: &[usize]) -> Result<SampleWriter, Error> {
        let path = files::partial(dir, FILE);
        // The kept records replace the log atomically: a kill while they are copied leaves the
        // old log, never one that lost the records of finished trees.
        let tmp = output::OutputFile::create(&path)?;
        let mut writer = csv::WriterBuilder::new()
            .flexible(true)
            .has_headers(false)
            .from_writer(tmp);
        let header = match &log.header {
            Some(h) => h.clone(),
            None => csv::StringRecord::from(NodeRecord::columns().to_vec()),
        };
        writer
            .write_record(&header)
            .map_err(output::csv_error(&path))?;
        let mut by_tree = std::collections::HashMap::<usize, Vec<&csv::StringRecord>>::new();
        for (tree, rec) in &log.records {
            by_tree.entry(*tree).or_default().push(rec);
        }
        // A kept tree may have no sampled node at all: it is closed too.
        for &tree in kept {
            let records = by_tree.remove(&tree).unwrap_or_default();
            for rec in &records {
                writer
                    .write_record(*rec)
                    .map_err(output::csv_error(&path))?;
            }
            close(&mut writer, tree, records.len()).map_err(output::csv_error(&path))?;
        }
        let tmp = writer
            .into_inner()
            .map_err(|e| Error::write(&path)(e.into_error()))?;
        tmp.commit()?;
        files::remove_if_present(&dir.join(FILE))?;
        let file = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(Error::io(&path))?;
        let writer = csv::WriterBuilder::new()
            .flexible(true)
            .has_headers(false)
            .from_writer(file);
        Ok(SampleWriter { path, writer })
    }

    /// Appends the records of `tree`, closes it, and syncs the log.
    pub fn write(&mut self, tree: usize, records: &[NodeRecord]) -> Result<(), Error> {
        let fail = output::csv_error(&self.path);
        for r in records {
            self.writer
                .serialize(r)
                .map_err(output::csv_error(&self.path))?;
        }
        close(&mut self.writer, tree, records.len()).map_err(fail)?;
        self.writer.flush().map_err(Error::write(&self.path))?;
        self.writer
            .get_ref()
            .sync_data()
            .map_err(Error::write(&self.path))
    }
}

fn close<W: Write>(w: &mut csv::Writer<W>, tree: usize, count: usize) -> csv::Result<()> {
    w.write_record([CLOSE, &tree.to_string(), &count.to_string()])
}

/// Gives the sample log of a finished sweep its final name: `nodes-sample.csv`, the log
/// without its closing lines, written whole; then the log is removed.
pub fn finish(dir: &Path) -> Result<(), Error> {
    let log = files::partial(dir, FILE);
    if !log.is_file() {
        return Ok(());
    }
    let path = dir.join(FILE);
    let reader = BufReader::new(fs::File::open(&log).map_err(Error::io(&log))?);
    let mut out = BufWriter::new(output::OutputFile::create(&path)?);
    let close = format!("{CLOSE},");
    for line in reader.split(b'\n') {
        let line = line.map_err(Error::io(&log))?;
        if !line.starts_with(close.as_bytes()) {
            out.write_all(&line).map_err(Error::write(&path))?;
            out.write_all(b"\n").map_err(Error::write(&path))?;
        }
    }
    out.into_inner()
        .map_err(|e| Error::write(&path)(e.into_error()))?
        .commit()?;
    files::remove_if_present(&log)
}
