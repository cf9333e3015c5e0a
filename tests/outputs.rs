//! Outputs as the user's data needs them: a sweep or merge directory never overwrites or
//! removes one of the command's inputs; what a killed run leaves (temporary files, named by
//! one rule) the next run there removes; and every input or output error (a full disk, a
//! truncated sweep.json) is a one-line error with exit code 2.
#![cfg(unix)]

mod common;
use common::{accuracy, scratch, stderr};

use std::path::Path;
use std::process::{Command, Output};

const TREE: &str = "((a:1,b:2)c:0.5,(d:3,e:1.5)f:2)g;\n";

/// Exit 2, one line on stderr holding `needle`.
fn one_line_error(o: &Output, what: &str, needle: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {e}");
    assert_eq!(e.lines().count(), 1, "{what}: {e}");
    assert!(
        e.starts_with("error: ") && e.contains(needle),
        "{what}: {e}"
    );
}

/// `sweep --tree TREE --out OUT` (one tree per target; one target unless `extra` says).
fn file_sweep(tree: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "sweep",
        "--quiet",
        "--tree",
        tree.to_str().unwrap(),
        "--format",
        "newick",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    if !extra.contains(&"--cond") {
        args.extend(["--trees", "1", "--cond", "1e2"]);
    }
    accuracy(&args)
}

#[test]
fn a_sweep_directory_never_replaces_an_input() {
    let base = scratch("inputs");
    for name in [
        "results.csv",
        "nodes-sample.csv",
        "sweep.json",
        "summary.json",
        "report.html",
        "results.csv.partial",
        "nodes-sample.csv.partial",
        ".accuracy.lock",
    ] {
        let d = base.join(format!("d-{name}"));
        std::fs::create_dir_all(&d).unwrap();
        let tree = d.join(name);
        std::fs::write(&tree, TREE).unwrap();
        let o = file_sweep(&tree, &d, &[]);
        one_line_error(&o, name, "would overwrite an input, a tree file of --tree");
        assert_eq!(std::fs::read_to_string(&tree).unwrap(), TREE, "{name}");
        assert!(!d.join("results.csv.partial").exists() || name == "results.csv.partial");
    }
    // A temporary name: the cleanup of a killed run's files would remove it.
    let d = base.join("temporary");
    std::fs::create_dir_all(&d).unwrap();
    let tree = d.join(".report.html.Ab12Cd.partial");
    std::fs::write(&tree, TREE).unwrap();
    let o = file_sweep(&tree, &d, &[]);
    one_line_error(&o, "temporary", "would remove an input");
    assert_eq!(std::fs::read_to_string(&tree).unwrap(), TREE);
    // A weights file inside the directory.
    let d = base.join("weights");
    std::fs::create_dir_all(&d).unwrap();
    let tree = base.join("t.nwk");
    std::fs::write(&tree, TREE).unwrap();
    let weights = d.join("summary.json");
    std::fs::write(&weights, "a 1\nb 2\n").unwrap();
    let o = file_sweep(&tree, &d, &["--weights-file", weights.to_str().unwrap()]);
    one_line_error(&o, "weights", "the weights file of --weights-file");
    assert_eq!(std::fs::read_to_string(&weights).unwrap(), "a 1\nb 2\n");
    // The same files elsewhere are fine.
    let o = file_sweep(&tree, &base.join("elsewhere"), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_merge_never_replaces_a_shards_file() {
    let base = scratch("merge-inputs");
    let shards: Vec<_> = (1..=2).map(|k| base.join(format!("s{k}"))).collect();
    let tree = base.join("t.nwk");
    std::fs::write(&tree, TREE).unwrap();
    for (k, s) in shards.iter().enumerate() {
        let shard = format!("{}/2", k + 1);
        let o = file_sweep(&tree, s, &["--cond", "1e2,1e4", "--shard", &shard]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    // OUT/results.csv is a hard link of a shard's: writing it would change the shard.
    let out = base.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::hard_link(shards[0].join("summary.json"), out.join("summary.json")).unwrap();
    let before = std::fs::read(shards[0].join("summary.json")).unwrap();
    let o = accuracy(&[
        "merge",
        "--quiet",
        out.to_str().unwrap(),
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
    ]);
    one_line_error(&o, "merge", "would overwrite an input, a file of a shard");
    assert_eq!(
        std::fs::read(shards[0].join("summary.json")).unwrap(),
        before
    );
}

/// What a run killed by SIGKILL leaves (every temporary name of the one rule, and those of
/// earlier versions) is removed by the next command that owns the directory: a resume, a
/// rerun, a merge, a report; a user's own files stay.
#[test]
fn the_next_run_removes_what_a_killed_one_left() {
    let base = scratch("stale");
    let d = base.join("d");
    let args = [
        "--quiet", "--nodes", "300", "--trees", "2", "--cond", "1e2", "--out",
    ];
    let sweep = |extra: &[&str]| {
        let mut a = vec!["sweep"];
        a.extend(args);
        a.push(d.to_str().unwrap());
        a.extend(extra);
        accuracy(&a)
    };
    let o = sweep(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stale = [
        ".report.html.Ab12Cd.partial",
        ".report.q1W2e3.partial",
        ".summary.json.x1Yz2w.partial",
        ".sweep.json.x1Yz2w.tmp",
        ".results.csv.partial.zZ9yY8.partial",
        ".nodes-sample.csv.aaaaaa.partial",
    ];
    let mine = ["notes.tmp", ".report.html.bak", "results.csv.old"];
    let plant = |dir: &Path| {
        for f in stale.iter().chain(&mine) {
            std::fs::write(dir.join(f), "x").unwrap();
        }
    };
    let check = |dir: &Path, what: &str| {
        for f in stale {
            assert!(!dir.join(f).exists(), "{what} left {f}");
        }
        for f in mine {
            assert!(dir.join(f).exists(), "{what} removed {f}");
        }
    };
    plant(&d);
    let o = accuracy(&["sweep", "--quiet", "--resume", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    check(&d, "sweep --resume");
    plant(&d);
    let o = sweep(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    check(&d, "sweep rerun");
    plant(&d);
    let o = accuracy(&["report", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    check(&d, "report");
    let s = base.join("s");
    let o = Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .args(["sweep", "--quiet", "--nodes", "300", "--trees", "2"])
        .args(["--cond", "1e2", "--shard", "1/1", "--out"])
        .arg(&s)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = base.join("out");
    std::fs::create_dir_all(&out).unwrap();
    plant(&out);
    let o = accuracy(&[
        "merge",
        "--quiet",
        out.to_str().unwrap(),
        s.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    check(&out, "merge");
}

/// `sh -c 'trap "" XFSZ; ulimit -f BLOCKS; exec accuracy ARGS'`: every file past the size
/// limit fails to grow (EFBIG), as on a full disk, instead of the process being killed.
fn size_limited(blocks: u32, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {blocks} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_accuracy"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn input_and_output_errors_exit_2() {
    let base = scratch("exit-codes");
    let d = base.join("d");
    let sweep_args = |out: &Path| -> Vec<String> {
        [
            "sweep", "--quiet", "--nodes", "500", "--trees", "20", "--cond", "1e2..1e6",
        ]
        .into_iter()
        .map(String::from)
        .chain(["--out".to_string(), out.display().to_string()])
        .collect()
    };
    let a = sweep_args(&d);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    // A sweep on a full disk: its logs cannot grow.
    let o = size_limited(64, &a);
    one_line_error(&o, "sweep on a full disk", "write failed: File too large");
    // A merge whose output cannot be written.
    let s = base.join("s");
    let full = accuracy(
        &{
            let mut v = sweep_args(&s);
            v.extend(["--shard".into(), "1/1".into()]);
            v.iter().map(|x| x.to_string()).collect::<Vec<_>>()
        }
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
    );
    assert!(full.status.success(), "{}", stderr(&full));
    let out = base.join("out");
    let o = size_limited(
        64,
        &[
            "merge",
            "--quiet",
            out.to_str().unwrap(),
            s.to_str().unwrap(),
        ],
    );
    one_line_error(&o, "merge on a full disk", "write failed: File too large");
    // A truncated sweep.json.
    let text = std::fs::read_to_string(s.join("sweep.json")).unwrap();
    std::fs::write(s.join("sweep.json"), &text[..text.len() / 2]).unwrap();
    let o = accuracy(&["sweep", "--quiet", "--resume", s.to_str().unwrap()]);
    one_line_error(&o, "truncated sweep.json", "sweep.json: EOF while parsing");
    // A shard whose results.csv is not CSV of results.
    std::fs::write(s.join("sweep.json"), text).unwrap();
    std::fs::write(s.join("results.csv"), "tree,x\n1,\"unclosed\n").unwrap();
    let o = accuracy(&[
        "merge",
        "--quiet",
        base.join("out2").to_str().unwrap(),
        s.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// Every JSON file a command writes says which version of its format it is, first.
#[test]
fn json_files_start_with_their_format_version() {
    let dir = scratch("format-version");
    let out = dir.join("s");
    let o = accuracy(&[
        "sweep",
        "--quiet",
        "--nodes",
        "200",
        "--trees",
        "1",
        "--cond",
        "1e3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run_json = dir.join("run.json");
    let o = accuracy(&[
        "run",
        "--quiet",
        "--topology",
        "star",
        "--nodes",
        "1e2",
        "--json",
        run_json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for path in [out.join("sweep.json"), out.join("summary.json"), run_json] {
        let text = std::fs::read_to_string(&path).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let first = text.trim_start_matches(['{', ' ', '\n']).split(':').next();
        assert_eq!(
            (first, value["format_version"].as_u64()),
            (
                Some("\"format_version\""),
                Some(u64::from(treefix_accuracy::FORMAT_VERSION))
            ),
            "{}",
            path.display()
        );
    }
}

/// A symbolic link to a file that carries a temporary's name inside `--out` is that file: the
/// cleanup of a killed run's temporaries would remove the tree it points to. Refused before
/// anything is touched, for every temporary name of the one rule.
#[test]
fn an_input_linked_to_a_temporary_name_is_never_removed() {
    let base = scratch("linked-temporary");
    for temporary in [".results.csv.AbCdEf.partial", ".report.html.AbCdEf.partial"] {
        let d = base.join(format!("d{temporary}"));
        std::fs::create_dir_all(&d).unwrap();
        let target = d.join(temporary);
        std::fs::write(&target, TREE).unwrap();
        let link = base.join(format!("x{temporary}.nwk"));
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let o = file_sweep(&link, &d, &[]);
        one_line_error(&o, temporary, "would remove an input");
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            TREE,
            "{temporary}"
        );
    }
}

/// The cleanup itself compares what it removes with the command's inputs: a report rendered
/// with a bench file that is a temporary's name in the sweep directory keeps it.
#[test]
fn the_cleanup_keeps_an_input_that_carries_a_temporary_name() {
    let base = scratch("cleanup-input");
    let d = base.join("d");
    let o = accuracy(&[
        "sweep",
        "--quiet",
        "--nodes",
        "200",
        "--trees",
        "1",
        "--cond",
        "1e2",
        "--out",
        d.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bench = d.join(".report.html.Zz9Yy8.partial");
    let text = "topology,n,op,algorithm,backend,ns_per_vertex\n";
    std::fs::write(&bench, text).unwrap();
    let link = base.join("bench.csv");
    std::os::unix::fs::symlink(&bench, &link).unwrap();
    let out = base.join("r.html");
    let o = accuracy(&[
        "report",
        d.to_str().unwrap(),
        "--bench",
        link.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    // Rendered, or refused for the bench file's content: either way an ordinary end.
    assert!(matches!(o.status.code(), Some(0 | 2)), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&bench).unwrap(), text);
}

/// A merge's directory holds the whole sweep's files and no sweep.json: a sweep started
/// there would replace them. Refused, as a merge into a sweep's directory is, and the merged
/// files stay as they were.
#[test]
fn a_sweep_never_replaces_a_merged_directory() {
    let base = scratch("merged");
    let tree = base.join("t.nwk");
    std::fs::write(&tree, TREE).unwrap();
    let mut shards = Vec::new();
    for k in 1..=2 {
        let s = base.join(format!("s{k}"));
        let shard = format!("{k}/2");
        let o = file_sweep(&tree, &s, &["--cond", "1e2,1e4", "--shard", &shard]);
        assert!(o.status.success(), "{}", stderr(&o));
        shards.push(s);
    }
    let m = base.join("m7");
    let o = accuracy(&[
        "merge",
        "--quiet",
        m.to_str().unwrap(),
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let files = [
        "results.csv",
        "nodes-sample.csv",
        "summary.json",
        "report.html",
    ];
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(m.join(f)).unwrap())
        .collect();
    let o = file_sweep(&tree, &m, &["--cond", "1e3"]);
    one_line_error(
        &o,
        "sweep --out MERGED",
        "holds results.csv but no sweep.json",
    );
    let o = accuracy(&[
        "sweep",
        "--quiet",
        "--nodes",
        "300",
        "--trees",
        "1",
        "--cond",
        "1e2",
        "--out",
        m.to_str().unwrap(),
    ]);
    one_line_error(&o, "a generated sweep", "a merged sweep");
    for (f, b) in files.iter().zip(&before) {
        assert_eq!(&std::fs::read(m.join(f)).unwrap(), b, "{f} changed");
    }
}
