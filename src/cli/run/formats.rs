//! `run --precision F [--accumulate A]` in a format other than f32: every algorithm's twin in
//! that arithmetic, measured against the exact treefix rounded to the storage format (lost
//! bits out of its p, distance in its ulps), beside what its four bounds in that arithmetic
//! allow (bits out of the same p) and how many nodes exceed any of them.

use super::{RunArgs, subject};
use analysis::measure_in::{bounds_in, measure_in};
use analysis::orders::Walker;
use analysis::{Reference, ReferenceKind};
use generators::Arithmetic;
use treefix_accuracy::Device;
use treefix_accuracy::Error;
use treefix_accuracy::error::Flagged;
use treefix_accuracy::experiment::achieved_cond;
use treefix_accuracy::format::sci;
use treefix_accuracy::inputs::WeightChoice;

pub fn run(a: &RunArgs, arith: Arithmetic) -> Result<(), Error> {
    refuse_f32_only(a, arith)?;
    let s = subject_in(a, arith.storage)?;
    let storage = arith.storage;
    let backend = a.measure.backend()?;
    if storage == generators::Precision::F64 {
        if backend.device == Device::Gpu {
            treefix_accuracy::gpu::check_arithmetic(arith)?;
        }
        return run_f64(a, &s);
    }
    let backend = &*backend.backend;
    let mut text = header(&s, arith);
    let walker = Walker::new(&s.tree);
    let mut skipped = Vec::new();
    let mut violations = 0;
    let mut flagged = Vec::new();
    let mut mismatches = Vec::new();
    for &op in &a.ops.ops {
        let reference = Reference::compute(ReferenceKind::Exact, &s.tree, &s.weights, op);
        for &algo in &a.algos.algos {
            if !algo.runs_in(arith) {
                if !skipped.contains(&algo.name()) {
                    skipped.push(algo.name());
                }
                continue;
            }
            let values = algo.twin_in(&walker, &s.weights, op, arith);
            if backend.device() == Device::Gpu && algo.has_gpu_kernel() {
                let got = backend.compute_in(&s.tree, &s.weights, algo, (op, arith))?;
                mismatches.extend(differ(&got, &values, &format!("{op} {algo}")));
            }
            let m = measure_in(&reference, &values, storage);
            let b = bounds_in(&reference, (&walker, &s.weights, op), algo, arith, &values);
            for x in &b.violations {
                flagged.push(format!(
                    "{op} {algo} vertex {}: error {} above its {} bound {}",
                    x.vertex,
                    sci(x.abs_error),
                    x.bound_kind,
                    sci(x.bound)
                ));
            }
            violations += violated(&b);
            let e = &m.summary;
            text += &format!(
                "{:<8} {:<21} {:>10} {:>10} {:>10} {:>8.2} {:>8} {:>10.2} {:>10.2} {:>10} {:>9} {:>8}\n",
                op.name(),
                algo.name(),
                sci(e.max_rel_error),
                sci(e.median_rel_error),
                sci(e.p99_rel_error),
                e.max_lost_bits,
                m.max_ulps,
                b.max_bound_lost_bits,
                b.max_sharp_lost_bits,
                violated(&b),
                e.nonfinite_nodes,
                e.beyond_range_nodes
            );
        }
    }
    if !skipped.is_empty() {
        text += &format!(
            "not run: {} (adds in f32 only, not in {})\n",
            skipped.join(", "),
            arith.accumulate
        );
    }
    text += &format!(
        "max bits: of {}'s {} (lost bits out of its precision); ulps of {}; bound bits: the most the a priori bounds allow, out of the same {}; violations: nodes outside a deterministic bound (a priori, sharp or running: a bug if not 0)\n",
        storage,
        storage.p(),
        storage,
        storage.p()
    );
    if backend.device() == Device::Gpu {
        text += &format!(
            "GPU kernels ({}) equal their twins in {} bit for bit\n",
            backend.describe(),
            arith.describe()
        );
    }
    if !mismatches.is_empty() {
        return Err(Error::GpuMismatch(Flagged {
            count: mismatches.len(),
            lines: mismatches,
        }));
    }
    print!("{text}");
    if violations > 0 {
        return Err(Error::BoundViolation(Flagged {
            count: violations,
            lines: flagged,
        }));
    }
    Ok(())
}

/// What `run` writes only in f32 (`--dump`, `--json`, a reference other than the exact one).
fn refuse_f32_only(a: &RunArgs, arith: Arithmetic) -> Result<(), Error> {
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
    Ok(())
}

/// The run's first line and the table's header.
fn header(s: &super::Subject, arith: Arithmetic) -> String {
    let mut text = format!(
        "{} height={} in {} achieved κ={} seed={}\n",
        s.title,
        s.tree.height(),
        arith.describe(),
        sci(achieved_cond(&s.weights)),
        s.seed
    );
    text += &format!(
        "{:<8} {:<21} {:>10} {:>10} {:>10} {:>8} {:>8} {:>10} {:>10} {:>10} {:>9} {:>8}\n",
        "op",
        "algorithm",
        "max rel",
        "median",
        "p99",
        "max bits",
        "max ulps",
        "bound bits",
        "sharp bits",
        "violations",
        "nonfinite",
        "overflow"
    );
    text
}

/// The vertices where a GPU kernel's values are not its twin's bits (NaNs alike: IEEE leaves
/// their payload to the hardware), one line each.
fn differ(got: &[f32], twin: &[f32], what: &str) -> Vec<String> {
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    (0..twin.len())
        .filter(|&v| !same(got[v], twin[v]))
        .map(|v| format!("{what} vertex {v}: GPU {:e}, twin {:e}", got[v], twin[v]))
        .collect()
}

/// `run --precision f64`: every algorithm whose order runs on f64 weights, storing and adding
/// f64 (on the CPU: WGSL has no f64), measured against the exact treefix rounded to f64: lost
/// bits out of 53, f64 ulps. Generated weights are drawn in f64 from the run's seed (53 bits
/// each; gensum's hit κ to f64's precision); a file's are its f32 values. Our bounds are not
/// walked on f64 weights: no bound columns.
fn run_f64(a: &RunArgs, s: &super::Subject) -> Result<(), Error> {
    let w: Vec<f64> = match a.instance.weights {
        WeightChoice::Model(m) if a.file_weights.weights_file.is_none() => m
            .weights_f64(s.tree.len(), a.cond, &mut generators::rng(s.seed))
            .map_err(|e| Error::Usage(format!("{m} weights in f64: {e}")))?,
        _ => s.weights.iter().map(|&x| f64::from(x)).collect(),
    };
    let mut text = format!(
        "{} height={} in f64 achieved κ={} seed={}\n{:<8} {:<21} {:>10} {:>10} {:>10} {:>8} {:>12} {:>9}\n",
        s.title,
        s.tree.height(),
        sci(analysis::exact::cond_f64(&w)),
        s.seed,
        "op",
        "algorithm",
        "max rel",
        "median",
        "p99",
        "max bits",
        "max ulps",
        "nonfinite"
    );
    let walker = Walker::new(&s.tree);
    let mut skipped = Vec::new();
    // Each twin graded as `score --precision f64` grades a kernel.
    let options = treefix_accuracy::ScoreOptions {
        arithmetic: generators::Arithmetic::same(generators::Precision::F64),
        ..Default::default()
    };
    for &op in &a.ops.ops {
        for &algo in &a.algos.algos {
            let Some(values) = algo.twin_f64(&walker, &w, op) else {
                if !skipped.contains(&algo.name()) {
                    skipped.push(algo.name());
                }
                continue;
            };
            let scored =
                treefix_accuracy::score_f64(&s.tree, &w, &[(op, &values)], &options, &|_| None)?;
            let e = scored.get(op).expect("the op graded");
            text += &format!(
                "{:<8} {:<21} {:>10} {:>10} {:>10} {:>8.2} {:>12} {:>9}\n",
                op.name(),
                algo.name(),
                sci(e.max_rel_error),
                sci(e.median_rel_error),
                sci(e.p99_rel_error),
                e.max_lost_bits,
                treefix_accuracy::score::print::ulps_text(e.max_ulps),
                e.nonfinite_nodes
            );
        }
    }
    if !skipped.is_empty() {
        text += &format!(
            "not run: {} (their orders read f32 weights)\n",
            skipped.join(", ")
        );
    }
    text += "max bits: of f64's 53 (lost bits out of its precision); ulps of f64; our algorithms' bounds are not walked on f64 weights\n";
    print!("{text}");
    Ok(())
}

/// The tree and weights of `run`, the weights values of `storage`: generated ones scaled into
/// its range and rounded (κ checked), a file's own its values already (the kernel reads them).
fn subject_in(a: &RunArgs, storage: generators::Precision) -> Result<super::Subject, Error> {
    let mut s = subject(a)?;
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
    Ok(s)
}

/// Nodes outside a deterministic bound: a priori, sharp or running (the probabilistic one may
/// fail with the small probability it promises, and is not counted).
fn violated(b: &analysis::bounds::BoundSummary) -> usize {
    b.bound_violations + b.sharp_violations + b.running_violations
}
