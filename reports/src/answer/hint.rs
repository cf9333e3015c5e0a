//! The command that prices the answer on a GPU: a bench of the sweep's own topologies, ops
//! and sizes (a bench of other trees prices other work: parallel on a star is twelve times
//! cheaper than on a chain), then the report with it. One command for every op, given where
//! an op's price is not yet from GPU kernels of the sweep's trees.

use super::super::data::ReportData;
use super::super::fmt::shell_quote;
use super::OpAnswer;
use analysis::Algorithm;
use serde_json::Value;

/// The two commands, in one line, or `None` when every op's price already compares GPU
/// kernels on all of the sweep's trees (or no algorithm that matters has a kernel).
pub fn bench_hint(data: &ReportData, answers: &[OpAnswer]) -> Option<String> {
    let unpriced = answers
        .iter()
        .any(|a| !a.costs.gpu || !a.costs.bench_lacks.is_empty());
    if !unpriced {
        return None;
    }
    let algos = kernels(answers);
    if algos.is_empty() {
        return None;
    }
    let ops: Vec<&str> = answers.iter().map(|a| a.op.as_str()).collect();
    let mut args = vec![
        "accuracy".to_string(),
        "bench".into(),
        "--algos".into(),
        algos.join(","),
    ];
    let files = file_paths(data);
    if files.is_empty() {
        let (topologies, sizes) = generated(answers);
        args.extend(["--topology".into(), topologies.join(",")]);
        args.extend(["--nodes".into(), sizes.join(",")]);
    } else {
        for f in files {
            args.extend(["--tree".into(), f]);
        }
    }
    let dir = data.dir.display().to_string();
    let dir = dir.trim_end_matches('/');
    let bench = if dir.is_empty() || dir == "." {
        "bench".to_string()
    } else {
        format!("{dir}-bench")
    };
    args.extend(["--ops".into(), ops.join(",")]);
    args.extend(["--out".into(), bench.clone()]);
    let bench_cmd: Vec<String> = args.iter().map(|a| shell_quote(a)).collect();
    Some(format!(
        "GPU price on these trees: `{}` then `accuracy report {} --bench {}`.",
        bench_cmd.join(" "),
        shell_quote(dir),
        shell_quote(&format!("{bench}/bench.csv"))
    ))
}

/// The algorithms whose price the answer quotes (each op's choice, the fastest it is compared
/// with, each κ band's choice) and the paper's Algorithm 2, those with a GPU kernel.
fn kernels(answers: &[OpAnswer]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for a in answers {
        let quoted = a
            .pick
            .into_iter()
            .chain(a.costs.fastest())
            .chain(a.bands.iter().filter_map(|b| b.pick))
            .chain(
                a.by_topology
                    .iter()
                    .flat_map(|(_, p)| p.iter().filter_map(|b| b.pick)),
            );
        for i in quoted {
            names.push(a.algorithms[i].clone());
        }
    }
    names.push(
        Algorithm::with_role(analysis::algorithms::PaperRole::Algorithm2)
            .name()
            .to_string(),
    );
    let mut out: Vec<String> = Vec::new();
    for n in names {
        let kernel = n.parse::<Algorithm>().is_ok_and(Algorithm::has_gpu_kernel);
        if kernel && !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// The generated topologies and sizes of the sweep, in order of first appearance.
fn generated(answers: &[OpAnswer]) -> (Vec<String>, Vec<String>) {
    let (mut topologies, mut sizes) = (Vec::new(), Vec::new());
    for (t, n) in answers.iter().flat_map(|a| &a.costs.trees) {
        if !topologies.contains(t) {
            topologies.push(t.clone());
        }
        let n = n.to_string();
        if !sizes.contains(&n) {
            sizes.push(n);
        }
    }
    (topologies, sizes)
}

/// The tree files of a sweep of files (sweep.json's `files`), as it recorded their paths.
fn file_paths(data: &ReportData) -> Vec<String> {
    data.param("files")
        .and_then(Value::as_array)
        .map(|files| {
            files
                .iter()
                .filter_map(|f| f.get("path").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
