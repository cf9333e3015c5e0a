//! `run --dump`: the per-node CSV, written outcome by outcome as each is evaluated, into a
//! file made visible only when complete (or to standard output). Its columns are
//! [`DumpRow`]'s fields.

use super::Subject;
use crate::cli::is_stdout;
use analysis::records::dump::DumpRow;
use analysis::{ErrorClass, Reference};
use std::path::{Path, PathBuf};
use treefix_accuracy::experiment::Outcome;
use treefix_accuracy::format::{f32_shortest, f64_shortest};
use treefix_accuracy::{Error, grid, output};

/// Where the dump goes: a file made visible when complete, or standard output (`-`).
enum DumpTarget {
    File(output::OutputFile),
    Stdout(std::io::Stdout),
}

impl std::io::Write for DumpTarget {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            DumpTarget::File(f) => f.write(buf),
            DumpTarget::Stdout(o) => o.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            DumpTarget::File(f) => f.flush(),
            DumpTarget::Stdout(o) => o.flush(),
        }
    }
}

/// The per-node CSV being written: one row per op × algorithm × vertex.
pub(super) struct Dump {
    path: PathBuf,
    writer: csv::Writer<std::io::BufWriter<DumpTarget>>,
    /// This op's baseline: its deterministic bounds and absolute errors, which the vectorial
    /// algorithms' extra bits are measured against.
    pub(super) baseline: Option<Baseline>,
    /// This op's Σ|E| up to each vertex's read (κ of the scan).
    pub(super) scan_prefix: Option<Vec<f64>>,
}

pub(super) struct Baseline {
    pub(super) det: Vec<f64>,
    pub(super) abs: Vec<f64>,
}

impl Dump {
    pub(super) fn create(path: &Path) -> Result<Dump, Error> {
        let target = if is_stdout(path) {
            DumpTarget::Stdout(std::io::stdout())
        } else {
            DumpTarget::File(output::OutputFile::create(path)?)
        };
        // The header is written here, so an empty run still gets one.
        let mut writer = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(std::io::BufWriter::new(target));
        writer
            .write_record(DumpRow::columns())
            .map_err(output::csv_error(path))?;
        Ok(Dump {
            path: path.to_path_buf(),
            writer,
            baseline: None,
            scan_prefix: None,
        })
    }

    /// One outcome's rows.
    // A vertex indexes a dozen per-node arrays at once: a range loop reads best.
    #[allow(clippy::needless_range_loop)]
    pub(super) fn outcome(&mut self, s: &Subject, r: &Reference, o: &Outcome) -> Result<(), Error> {
        let tree = &s.tree;
        let path = &self.path;
        let scan_prefix = self
            .scan_prefix
            .get_or_insert_with(|| analysis::metrics::scan_abs_prefix(tree, &s.weights, o.op));
        let base = self
            .baseline
            .as_ref()
            .filter(|_| o.algorithm.is_vectorial());
        let mut overflowed = o.bounds.overflowed.iter().copied().peekable();
        for v in 0..tree.len() {
            let overflow = if r.beyond_f32(v) {
                overflowed.next_if_eq(&(v as u32));
                "beyond-range"
            } else if overflowed.next_if_eq(&(v as u32)).is_some() {
                "partial-sum"
            } else {
                ""
            };
            let e = &o.errors[v];
            let correct = r.rounded_f32(v);
            let exact = r.value_f64(v);
            let x = exact.abs();
            let extra = base.and_then(|b| {
                grid::node_extra_bits(exact, (o.bounds[v].det, e.abs), (b.det[v], b.abs[v]))
            });
            let row = DumpRow {
                vertex: v,
                parent: tree.parent(v as u32),
                depth: tree.depth(v as u32),
                weight: f32_shortest(s.weights[v]),
                op: o.op.to_string(),
                algorithm: o.algorithm.to_string(),
                result: f32_shortest(o.values[v]),
                reference: r.value_string(v),
                rel_error: match e.class {
                    ErrorClass::Flagged => "flagged".into(),
                    _ => format!("{:e}", e.rel),
                },
                lost_bits: format!("{:.3}", e.lost_bits()),
                cond: format!("{:e}", r.cond(v)),
                bound: f64_shortest(o.bounds[v].det),
                sharp_bound: f64_shortest(o.bounds[v].sharp),
                prob_bound: f64_shortest(o.bounds[v].prob),
                running_bound: f64_shortest(o.bounds[v].running),
                cond_scan: f64_shortest(scan_prefix[v] / x),
                pred_extra_bits: extra.map(|(p, _)| format!("{p:.3}")).unwrap_or_default(),
                meas_extra_bits: extra.map(|(_, m)| format!("{m:.3}")).unwrap_or_default(),
                abs_error: format!("{:e}", e.abs),
                label: s
                    .file
                    .as_ref()
                    .and_then(|f| f.file.labels.get(v as u32))
                    .map(|l| l.to_string())
                    .unwrap_or_default(),
                nonfinite: u8::from(e.nonfinite()),
                overflow: overflow.to_string(),
                reference_f32: f32_shortest(correct),
                ulps: analysis::metrics::ulps(o.values[v], correct)
                    .map_or_else(|| "inf".into(), |d| d.to_string()),
            };
            self.writer
                .serialize(row)
                .map_err(output::csv_error(path))?;
        }
        Ok(())
    }

    /// Makes the complete file visible (standard output: flushes it).
    pub(super) fn commit(self) -> Result<(), Error> {
        let path = &self.path;
        let target = self
            .writer
            .into_inner()
            .map_err(|e| Error::write(path)(e.into_error()))?
            .into_inner()
            .map_err(|e| Error::write(path)(e.into_error()))?;
        match target {
            DumpTarget::File(file) => file.commit(),
            DumpTarget::Stdout(mut out) => {
                std::io::Write::flush(&mut out).map_err(Error::write("<stdout>"))
            }
        }
    }
}
