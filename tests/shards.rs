//! `sweep --shard K/N` and `merge`: a sweep run in parts and merged has the bytes of the
//! unsharded sweep; a missing, duplicated or foreign part is a one-line error.

mod common;
use common::{accuracy, scratch};

use std::path::{Path, PathBuf};
use std::process::Output;

/// 2 topologies × 3 targets × 3 trees × 2 child orders = 36 trees.
const ARGS: [&str; 14] = [
    "--topology",
    "chain,random-recursive",
    "--cond",
    "1e2..1e8",
    "--points",
    "3",
    "--trees",
    "3",
    "--nodes",
    "400",
    "--child-order",
    "natural,light-first",
    "--algos",
    "sequential,parallel,vectorial,contraction",
];

fn sweep(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sweep", "--quiet", "--out", out.to_str().unwrap()];
    args.extend(ARGS);
    args.extend(extra);
    accuracy(&args)
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Exit code 2 and exactly one line on stderr, starting with "error:" and holding `needles`.
fn one_line_error(o: &Output, needles: &[&str]) {
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    let lines: Vec<&str> = e.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(lines.len(), 1, "{e}");
    for n in needles {
        assert!(lines[0].contains(n), "no '{n}' in: {e}");
    }
}

fn merge(out: &Path, dirs: &[&Path]) -> Output {
    let mut args = vec!["merge", "--quiet", out.to_str().unwrap()];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    accuracy(&args)
}

#[test]
fn three_shards_merge_to_the_bytes_of_the_whole_sweep() {
    let base = scratch("three");
    let whole = base.join("whole");
    ok(&sweep(&whole, &[]));
    let shards: Vec<PathBuf> = (1..=3).map(|k| base.join(format!("shard-{k}"))).collect();
    for (k, dir) in shards.iter().enumerate() {
        ok(&sweep(dir, &["--shard", &format!("{}/3", k + 1)]));
    }
    // Each part holds its own trees: tree i in part i mod 3 + 1, with the whole sweep's seeds.
    let whole_rows = std::fs::read_to_string(whole.join("results.csv")).unwrap();
    for (k, dir) in shards.iter().enumerate() {
        let rows = std::fs::read_to_string(dir.join("results.csv")).unwrap();
        let mine: Vec<&str> = whole_rows
            .lines()
            .skip(1)
            .filter(|l| l.split(',').next().unwrap().parse::<usize>().unwrap() % 3 == k)
            .collect();
        assert_eq!(
            rows.lines().skip(1).collect::<Vec<_>>(),
            mine,
            "shard {}",
            k + 1
        );
        let json = std::fs::read_to_string(dir.join("sweep.json")).unwrap();
        assert!(
            json.contains(&format!("\"shard\": \"{}/3\"", k + 1)),
            "{json}"
        );
    }
    // Merged in any order: the whole sweep's bytes.
    let out = base.join("merged");
    ok(&merge(&out, &[&shards[2], &shards[0], &shards[1]]));
    for name in ["results.csv", "nodes-sample.csv"] {
        assert!(
            std::fs::read(out.join(name)).unwrap() == std::fs::read(whole.join(name)).unwrap(),
            "merged {name} differs from the unsharded sweep's"
        );
    }
    assert!(out.join("report.html").is_file());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["trees"], 36);
    let merged = summary["merged"].as_array().unwrap();
    assert_eq!(
        merged
            .iter()
            .map(|m| m["shard"].clone())
            .collect::<Vec<_>>(),
        ["1/3", "2/3", "3/3"]
    );
    let walls: f64 = merged
        .iter()
        .map(|m| m["timings"]["wall_s"].as_f64().unwrap())
        .sum();
    // Sums of decimal values read back: equal to rounding.
    let wall = summary["timings"]["wall_s"].as_f64().unwrap();
    assert!((wall - walls).abs() <= 1e-12 * walls, "{wall} ≠ Σ {walls}");
    assert!(summary["params"].get("shard").is_none());
    for entry in std::fs::read_dir(&out).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".tmp"), "{name} left behind");
    }

    // A missing, duplicated or foreign shard, an input as OUT: one line, exit 2, no output.
    let bad = base.join("bad");
    one_line_error(
        &merge(&bad, &[&shards[0], &shards[2]]),
        &["shard 2/3", "trees 1, 4, 7", "missing"],
    );
    one_line_error(
        &merge(&bad, &[&shards[0], &shards[1], &shards[2], &shards[1]]),
        &["shard-2", "shard 2/3", "trees 1, 4, 7"],
    );
    let foreign = base.join("foreign");
    ok(&sweep(&foreign, &["--shard", "2/3", "--seed", "7"]));
    one_line_error(
        &merge(&bad, &[&shards[0], &foreign, &shards[2]]),
        &["foreign", "another sweep", "trees 1, 4, 7", "seed"],
    );
    let four = base.join("four");
    ok(&sweep(&four, &["--shard", "2/4"]));
    one_line_error(
        &merge(&bad, &[&shards[0], &four, &shards[2]]),
        &["four", "shard 2/4", "trees 1, 5, 9"],
    );
    one_line_error(
        &merge(&whole, &[&shards[0], &shards[1], &shards[2], &whole]),
        &["also an input"],
    );
    assert!(!bad.exists(), "a failed merge wrote {}", bad.display());
    // The whole sweep is its own single part.
    ok(&merge(&base.join("whole-again"), &[&whole]));
    assert!(
        std::fs::read(base.join("whole-again/results.csv")).unwrap()
            == std::fs::read(whole.join("results.csv")).unwrap()
    );
}

/// More parts than trees: the extra parts are empty sweeps, and the merge is still whole.
#[test]
fn more_shards_than_trees() {
    let base = scratch("many");
    let small = ["--points", "1", "--trees", "2", "--nodes", "50", "--quiet"];
    let run = |out: &Path, shard: Option<&str>| {
        let mut args = vec!["sweep", "--out", out.to_str().unwrap()];
        args.extend(small);
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        ok(&accuracy(&args));
    };
    let whole = base.join("whole");
    run(&whole, None);
    let dirs: Vec<PathBuf> = (1..=3).map(|k| base.join(format!("s{k}"))).collect();
    for (k, d) in dirs.iter().enumerate() {
        run(d, Some(&format!("{}/3", k + 1)));
    }
    let out = base.join("merged");
    let refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    ok(&merge(&out, &refs));
    assert!(
        std::fs::read(out.join("results.csv")).unwrap()
            == std::fs::read(whole.join("results.csv")).unwrap()
    );
}

#[test]
fn bad_shard_specs_and_other_parts_are_one_line_errors() {
    for bad in ["0/4", "5/4", "a/b", "1/0", "3", "-1/4"] {
        let spec = format!("--shard={bad}");
        let o = accuracy(&["sweep", &spec, "--out", "/nonexistent/never"]);
        one_line_error(&o, &[&format!("invalid shard '{bad}'")]);
    }
    let base = scratch("parts");
    let dir = base.join("p");
    let small = ["--points", "1", "--trees", "2", "--nodes", "50"];
    let run = |extra: &[&str]| {
        let mut args = vec!["sweep", "--quiet", "--out", dir.to_str().unwrap()];
        args.extend(small);
        args.extend(extra);
        accuracy(&args)
    };
    ok(&run(&["--shard", "1/2"]));
    one_line_error(
        &run(&["--shard", "2/2"]),
        &["holds shard 1/2", "not shard 2/2"],
    );
    one_line_error(&run(&[]), &["holds shard 1/2", "not the whole sweep"]);
    let d = dir.to_str().unwrap();
    one_line_error(
        &accuracy(&["sweep", "--quiet", "--resume", d, "--shard", "1/3"]),
        &["holds shard 1/2", "not shard 1/3"],
    );
    ok(&accuracy(&[
        "sweep", "--quiet", "--resume", d, "--shard", "1/2",
    ]));
    ok(&accuracy(&["sweep", "--quiet", "--resume", d]));
    // An unfinished shard cannot be merged.
    std::fs::rename(dir.join("results.csv"), dir.join("results.csv.partial")).unwrap();
    one_line_error(
        &merge(&base.join("m"), &[&dir]),
        &["has not finished", "--resume"],
    );
}
