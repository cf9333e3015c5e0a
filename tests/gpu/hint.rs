//! The answer's GPU price as a reader gets it: the command the sweep prints, run as written,
//! benches the sweep's own topology, ops and size, and the report then prices each op with
//! the ratio of those very rows of bench.csv.

use super::GpuTest;
use analysis::records::bench::BenchRecord;
use std::path::Path;
use std::process::Command;
use treefix_accuracy::gpu::Gpu;

/// This module's tests: name and body.
pub(super) const TESTS: &[(&str, GpuTest)] = &[(
    "hint_run_as_written_prices_the_sweeps_trees",
    hint_run_as_written_prices_the_sweeps_trees,
)];

/// `accuracy ARGS` in `dir`; its standard output, after checking it succeeded.
fn accuracy(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "accuracy {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// "2.9×" as the answer shows a ratio.
fn shown(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.1}×")
    } else {
        format!("{r:.0}×")
    }
}

fn hint_run_as_written_prices_the_sweeps_trees(_: &Gpu) {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-hint");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let sweep = accuracy(
        &root,
        &[
            "sweep",
            "--cond",
            "1e2,1e8",
            "--trees",
            "1",
            "--nodes",
            "3000",
            "--topology",
            "chain",
            "--out",
            "s",
        ],
    );
    let hint = sweep
        .lines()
        .find_map(|l| l.strip_prefix("GPU price on these trees: "))
        .unwrap_or_else(|| panic!("no GPU price command in:\n{sweep}"));
    let (bench, report) = hint.trim_end_matches('.').split_once(" then ").unwrap();
    let mut answer = String::new();
    for command in [bench, report] {
        let words: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(words[0], "accuracy", "{command}");
        answer = accuracy(&root, &words[1..]);
    }
    let rows: Vec<BenchRecord> = csv::Reader::from_path(root.join("s-bench/bench.csv"))
        .unwrap()
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap();
    // Every timed tree is the sweep's: chain at 3000 vertices, both ops.
    let timed: Vec<&BenchRecord> = rows.iter().filter(|r| !r.op.is_empty()).collect();
    assert!(timed.iter().all(|r| r.topology == "chain" && r.n == 3000));
    assert!(!answer.contains("GPU price on these trees"), "{answer}");
    for op in ["rootfix", "leaffix"] {
        let sentence = answer
            .lines()
            .find(|l| l.starts_with(&format!("{op}: use ")))
            .unwrap_or_else(|| panic!("no {op} answer in:\n{answer}"));
        let pick = sentence[format!("{op}: use ").len()..]
            .split(" — ")
            .next()
            .unwrap();
        let time = |a: &str| {
            timed
                .iter()
                .find(|r| r.op == op && r.algorithm == a && !r.backend.starts_with("cpu"))
                .map(|r| r.compute_s)
        };
        let kernels = ["parallel", "vectorial", "vectorial-exact"];
        let fastest = kernels
            .into_iter()
            .min_by(|a, b| time(a).unwrap().total_cmp(&time(b).unwrap()))
            .unwrap();
        let expected = if pick == fastest {
            "the fastest of the GPU kernels.".to_string()
        } else {
            let r = time(pick).unwrap() / time(fastest).unwrap();
            format!("{} the time of {fastest} as GPU kernels.", shown(r))
        };
        assert!(
            sentence.ends_with(&expected),
            "{sentence} (expected {expected})"
        );
    }
}
