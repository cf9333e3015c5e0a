//! `run --precision F [--accumulate A]` in a format other than f32: every algorithm's twin in
//! that arithmetic, measured against the exact treefix rounded to the storage format (lost
//! bits out of its p, distance in its ulps). Our bounds are written for f32 additions, so
//! this table has no bound columns.

use super::{RunArgs, subject};
use analysis::measure_in::measure_in;
use analysis::orders::Walker;
use analysis::{Reference, ReferenceKind};
use generators::Arithmetic;
use treefix_accuracy::Error;
use treefix_accuracy::experiment::achieved_cond;
use treefix_accuracy::format::sci;
use treefix_accuracy::inputs::WeightChoice;

pub fn run(a: &RunArgs, arith: Arithmetic) -> Result<(), Error> {
    for (flag, given) in [("--dump", a.dump.is_some()), ("--json", a.json.is_some())] {
        if given {
            return Err(Error::Usage(format!(
                "{flag} writes f32 runs only so far; without it, run --precision prints the table"
            )));
        }
    }
    if a.measure.reference != ReferenceKind::Exact {
        return Err(Error::Usage(format!(
            "--reference {}: in {} the reference is the exact treefix",
            a.measure.reference.name(),
            arith.storage
        )));
    }
    let mut s = subject(a)?;
    let storage = arith.storage;
    // The kernel reads weights of its storage format: generated ones scaled into its range
    // and rounded (κ checked); a file's own must be its values already.
    let drawn = match a.instance.weights {
        WeightChoice::Model(m) if a.file_weights.weights_file.is_none() => Some(m),
        _ => None,
    };
    match drawn {
        Some(m) => {
            s.weights = generators::weights::in_format(std::mem::take(&mut s.weights), storage);
            m.check_reach(a.cond, &s.weights, storage)
                .map_err(|e| Error::Usage(e.to_string()))?;
        }
        None => {
            if let Some((v, x)) = storage.first_outside(&s.weights) {
                return Err(Error::Usage(format!(
                    "the weight of vertex {v}, {x}, is no {storage} value: give the weights the kernel reads"
                )));
            }
        }
    }
    let mut text = format!(
        "{} height={} in {} achieved κ={} seed={}\n",
        s.title,
        s.tree.height(),
        arith.describe(),
        sci(achieved_cond(&s.weights)),
        s.seed
    );
    text += &format!(
        "{:<8} {:<21} {:>10} {:>10} {:>10} {:>8} {:>8} {:>9} {:>8}\n",
        "op",
        "algorithm",
        "max rel",
        "median",
        "p99",
        "max bits",
        "max ulps",
        "nonfinite",
        "overflow"
    );
    let walker = Walker::new(&s.tree);
    let mut skipped = Vec::new();
    for &op in &a.ops.ops {
        let reference = Reference::compute(ReferenceKind::Exact, &s.tree, &s.weights, op);
        for &algo in &a.algos.algos {
            if !algo.runs_in(arith) {
                skipped.push(algo.name());
                continue;
            }
            let values = algo.twin_in(&walker, &s.weights, op, arith);
            let m = measure_in(&reference, &values, storage);
            let e = &m.summary;
            text += &format!(
                "{:<8} {:<21} {:>10} {:>10} {:>10} {:>8.2} {:>8} {:>9} {:>8}\n",
                op.name(),
                algo.name(),
                sci(e.max_rel_error),
                sci(e.median_rel_error),
                sci(e.p99_rel_error),
                e.max_lost_bits,
                m.max_ulps,
                e.nonfinite_nodes,
                e.beyond_range_nodes
            );
        }
    }
    skipped.dedup();
    if !skipped.is_empty() {
        text += &format!(
            "not run: {} (adds in f32 only, not in {})\n",
            skipped.join(", "),
            arith.accumulate
        );
    }
    text += &format!(
        "max bits: of {}'s {} (lost bits out of its precision); ulps of {}; bounds: f32 only\n",
        storage,
        storage.p(),
        storage
    );
    print!("{text}");
    Ok(())
}
