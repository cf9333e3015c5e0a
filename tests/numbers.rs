//! Numbers a user can trust: a NaN or infinite result is an infinite loss (never "0 lost
//! bits", never "within" a bound), f32 overflow is reported as such (never as a bound
//! violation), and `score`'s gates and JSON summary say what the table says.

mod common;
use common::{accuracy, scratch, text};

use std::path::PathBuf;
use std::process::Command;

/// The row of `op` in a printed table (its first column).
fn row<'a>(out: &'a str, op: &str, algo: Option<&str>) -> Vec<&'a str> {
    out.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|c| c.first() == Some(&op) && algo.is_none_or(|a| c.get(1) == Some(&a)))
        .unwrap_or_else(|| panic!("no {op} {algo:?} row in\n{out}"))
}

/// A five-vertex tree with integer branch lengths: every rootfix and leaffix is exact in f32.
fn small_tree(dir: &std::path::Path) -> PathBuf {
    let tree = dir.join("t.nwk");
    std::fs::write(&tree, "((a:1,b:2)c:3,d:4)e:5;\n").unwrap();
    tree
}

/// The exact rootfix of `small_tree` (e = 5, c = 8, a = 9, b = 10, d = 9).
const ROOTFIX: [(&str, f32); 5] = [("e", 5.0), ("c", 8.0), ("a", 9.0), ("b", 10.0), ("d", 9.0)];

fn results(dir: &std::path::Path, name: &str, values: &[(&str, f32)]) -> PathBuf {
    let path = dir.join(name);
    let mut s = String::from("vertex,op,result\n");
    for (v, x) in values {
        s += &format!("{v},rootfix,{x}\n");
    }
    std::fs::write(&path, s).unwrap();
    path
}

#[test]
fn a_nan_result_is_an_infinite_loss_and_outside_every_bound() {
    let dir = scratch("nan");
    let tree = small_tree(&dir);
    let mut values = ROOTFIX;
    values[2].1 = f32::NAN;
    let r = results(&dir, "r.csv", &values);
    let json = dir.join("score.json");
    let o = accuracy(&[
        "score",
        "--ops",
        "rootfix",
        "--tree",
        tree.to_str().unwrap(),
        "--results",
        r.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--algos",
        "all",
    ]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    // op, max rel, median, p99, max bits, max ulps, flagged, flagged abs, nonfinite, …
    let errors = row(&out, "rootfix", None);
    assert_eq!(errors[4], "inf", "max bits: {out}");
    assert_eq!(errors[5], "inf", "max ulps: {out}");
    assert_eq!(errors[8], "1", "nonfinite: {out}");
    assert!(
        errors.ends_with(&["(a)"]),
        "the NaN node is the worst: {out}"
    );
    let within = out
        .lines()
        .find(|l| l.starts_with("rootfix ") && l.ends_with("within"));
    assert_eq!(within, None, "a NaN result called within a bound: {out}");
    assert!(out.contains("outside"), "{out}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let op = &doc["ops"][0];
    assert_eq!(op["max_lost_bits"], "inf");
    assert_eq!(op["max_ulps"], "inf");
    assert_eq!(op["nonfinite_nodes"], 1);
    assert_eq!(op["worst"]["label"], "a");
    let verdicts = op["algorithms"].as_array().unwrap();
    assert_eq!(verdicts.len(), analysis::Algorithm::ALL.len());
    assert!(verdicts.iter().all(|a| a["within"] == false));
    // A gate on lost bits fails on it, with exit code 4.
    let o = accuracy(&[
        "score",
        "--ops",
        "rootfix",
        "--tree",
        tree.to_str().unwrap(),
        "--results",
        r.to_str().unwrap(),
        "--max-lost-bits",
        "30",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("1 node(s) lose more than --max-lost-bits 30"),
        "{err}"
    );
}

#[test]
fn gates_pass_on_correct_results_and_fail_one_ulp_off() {
    let dir = scratch("gates");
    let tree = small_tree(&dir);
    let score = |values: &[(&str, f32)], gate: &[&str]| {
        let r = results(&dir, "r.csv", values);
        let json = dir.join("s.json");
        let mut args = vec![
            "score",
            "--ops",
            "rootfix",
            "--tree",
            tree.to_str().unwrap(),
            "--results",
            r.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ];
        args.extend_from_slice(gate);
        let o = accuracy(&args);
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (o.status.code(), doc, text(&o.stderr))
    };
    let (code, doc, _) = score(&ROOTFIX, &["--max-ulps", "0", "--max-lost-bits", "0"]);
    assert_eq!(code, Some(0));
    assert_eq!(doc["passed"], true);
    assert_eq!(doc["ops"][0]["max_ulps"], 0);
    assert_eq!(doc["ops"][0]["nodes_over_max_ulps"], 0);
    let mut off = ROOTFIX;
    off[1].1 = f32::from_bits(8f32.to_bits() + 1);
    let (code, doc, err) = score(&off, &["--max-ulps", "0"]);
    assert_eq!(code, Some(4), "{err}");
    assert_eq!(doc["passed"], false, "the JSON is written before the exit");
    assert_eq!(doc["ops"][0]["max_ulps"], 1);
    assert!(
        err.contains("1 node(s) lie more than --max-ulps 0"),
        "{err}"
    );
    let (code, _, err) = score(&off, &["--max-ulps", "1"]);
    assert_eq!(code, Some(0), "{err}");
    // One ulp of 8 is 2^-23 of it: 1 bit lost, within a gate of 1, over one of 0.5.
    let (code, doc, _) = score(&off, &["--max-lost-bits", "1"]);
    assert_eq!(
        (code, doc["ops"][0]["max_lost_bits"].as_f64()),
        (Some(0), Some(1.0))
    );
    let (code, _, _) = score(&off, &["--max-lost-bits", "0.5"]);
    assert_eq!(code, Some(4));
}

/// `--json` onto an input is refused before anything runs; the input is untouched.
#[test]
fn the_json_summary_may_not_overwrite_an_input() {
    let dir = scratch("json-input");
    let tree = small_tree(&dir);
    let r = results(&dir, "r.csv", &ROOTFIX);
    let before = std::fs::read(&r).unwrap();
    let o = accuracy(&[
        "score",
        "--ops",
        "rootfix",
        "--tree",
        tree.to_str().unwrap(),
        "--results",
        r.to_str().unwrap(),
        "--json",
        r.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("would overwrite an input, the results file of --results"),
        "{err}"
    );
    assert_eq!(std::fs::read(&r).unwrap(), before);
}

#[test]
fn a_results_file_with_an_extra_column_is_a_one_line_error() {
    let dir = scratch("extra");
    let tree = small_tree(&dir);
    let r = dir.join("r.csv");
    std::fs::write(&r, "vertex,op,result\ne,rootfix,5\nc,rootfix,8,9\n").unwrap();
    let o = accuracy(&[
        "score",
        "--ops",
        "rootfix",
        "--tree",
        tree.to_str().unwrap(),
        "--results",
        r.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("r.csv:3: 4 fields, but the header has 3"),
        "{err}"
    );
}

/// `(a:3e38,b:3e38):3e38;`: the root's leaffix and both leaves' rootfix are beyond f32's range,
/// and the Euler tour's prefix overflows before the leaves' leaffix (exactly 3e38) is read.
#[test]
fn overflow_is_reported_as_such_not_as_a_bug() {
    let dir = scratch("overflow");
    let tree = dir.join("big.nwk");
    std::fs::write(&tree, "(a:3e38,b:3e38):3e38;\n").unwrap();
    let dump = dir.join("dump.csv");
    let o = accuracy(&[
        "run",
        "--tree",
        tree.to_str().unwrap(),
        "--weights",
        "file",
        "--dump",
        dump.to_str().unwrap(),
    ]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(
        !err.contains("VIOLATED") && !out.contains("VIOLATED"),
        "{err}"
    );
    // op, algorithm, max rel, median, p99, max bits, flagged, nonfinite, overflow.
    let par = row(&out, "leaffix", Some("parallel"));
    assert_eq!((par[5], par[7], par[8]), ("0.00", "0", "1"), "{out}");
    let vec = row(&out, "leaffix", Some("vectorial"));
    assert_eq!((vec[5], vec[7], vec[8]), ("inf", "2", "3"), "{out}");
    assert!(
        out.contains("leaffix vectorial: 3 node(s) overflow f32 (1 exact value(s) beyond f32's range, 2 with a partial sum of the order beyond it)"),
        "{out}"
    );
    // The dump says which node overflowed, and why.
    let mut r = csv::Reader::from_path(&dump).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let (op, algo, v, nonfinite, overflow) = (
        col("op"),
        col("algorithm"),
        col("vertex"),
        col("nonfinite"),
        col("overflow"),
    );
    let mut seen = Vec::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        if &rec[op] == "leaffix" && &rec[algo] == "vectorial" {
            seen.push((
                rec[v].to_string(),
                rec[nonfinite].to_string(),
                rec[overflow].to_string(),
            ));
        }
    }
    let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(
        seen,
        [
            s("0", "0", "beyond-range"),
            s("1", "1", "partial-sum"),
            s("2", "1", "partial-sum")
        ]
    );
}

/// A full disk behind stdout is a one-line error with exit code 2, never a panic.
#[test]
#[cfg(target_os = "linux")]
fn a_full_stdout_is_a_one_line_error() {
    for args in [
        &["gen", "--n", "1000", "--cond", "10"][..],
        &["run", "--topology", "chain", "--nodes", "10"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_accuracy"))
            .args(args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("error: stdout: write failed:"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
