//! One process per directory, with real processes: a second `sweep`, `sweep --resume`,
//! `merge` or `report` on a directory another one holds is refused with a one-line error
//! naming the holder's pid (exit 2); processes started at once never mix their files; a
//! `kill -9` leaves no stale lock.
#![cfg(unix)]

mod common;
use common::{accuracy, scratch, stderr};

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_accuracy");

fn spawn(args: &[&str]) -> Child {
    Command::new(BIN)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A sweep of 6 small trees (well under a second).
fn small_sweep(out: &Path, topology: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["sweep", "--quiet", "--nodes", "2000", "--trees", "3"]
        .into_iter()
        .chain([
            "--cond",
            "1e2..1e6",
            "--points",
            "2",
            "--topology",
            topology,
        ])
        .map(String::from)
        .collect();
    args.extend(["--out".into(), out.display().to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Exit 2 and one line naming the holder.
fn assert_locked(o: &Output, dir: &Path, holder: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert_eq!(
        e.trim_end(),
        format!(
            "error: {}: in use by another accuracy process ({holder}); wait for it to end, or use another directory",
            dir.display()
        )
    );
}

/// Waits until the lock file of `dir` names `pid` (the holder has locked it).
fn wait_for_lock(dir: &Path, pid: u32) {
    let start = Instant::now();
    let record = dir.join(".accuracy.lock");
    while !std::fs::read_to_string(&record).is_ok_and(|r| r.starts_with(&format!("{pid} "))) {
        assert!(start.elapsed() < Duration::from_secs(120), "never locked");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_running_sweep_refuses_every_other_command_on_its_directory() {
    let base = scratch("running");
    let dir = base.join("d");
    // Shards to merge into the busy directory.
    let shards: Vec<_> = (1..=2).map(|k| base.join(format!("s{k}"))).collect();
    for (k, s) in shards.iter().enumerate() {
        let args = small_sweep(s, "chain", &["--shard", &format!("{}/2", k + 1)]);
        let o = accuracy(&strs(&args));
        assert!(o.status.success(), "{}", stderr(&o));
    }
    // Long enough to be running for every command below.
    let long = [
        "sweep", "--quiet", "--nodes", "300000", "--trees", "40", "--cond", "1e3", "--out",
    ];
    let mut first = spawn(&[&long[..], &[dir.to_str().unwrap()]].concat());
    let pid = first.id();
    wait_for_lock(&dir, pid);
    let holder = format!("pid {pid}, accuracy sweep");
    let d = dir.to_str().unwrap();
    let again = accuracy(&[&long[..], &[d]].concat());
    assert_locked(&again, &dir, &holder);
    assert_locked(
        &accuracy(&["sweep", "--quiet", "--resume", d]),
        &dir,
        &holder,
    );
    assert_locked(&accuracy(&["report", d]), &dir, &holder);
    let (s1, s2) = (shards[0].to_str().unwrap(), shards[1].to_str().unwrap());
    assert_locked(&accuracy(&["merge", "--quiet", d, s1, s2]), &dir, &holder);
    assert!(
        first.try_wait().unwrap().is_none(),
        "the sweep ended too soon"
    );
    // SIGKILL: the kernel releases the lock; nothing stale is left to refuse the next one.
    first.kill().unwrap();
    first.wait().unwrap();
    let o = accuracy(&["report", d]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("the sweep has not finished"), "{e}");
}

/// The same sweep started twice at once on one --out: one runs, the other is refused (or,
/// started after the first finished, resumes it); never a failure of another kind, and the
/// directory ends as one uninterrupted sweep's.
#[test]
fn two_sweeps_started_at_once_never_mix() {
    let base = scratch("twice");
    let expected = base.join("alone");
    let o = accuracy(&strs(&small_sweep(&expected, "chain", &[])));
    assert!(o.status.success(), "{}", stderr(&o));
    let results = std::fs::read(expected.join("results.csv")).unwrap();
    let mut refused = 0;
    for trial in 0..5 {
        let dir = base.join(format!("t{trial}"));
        let args = small_sweep(&dir, "chain", &[]);
        let children = [spawn(&strs(&args)), spawn(&strs(&args))];
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        for o in &outs {
            let e = stderr(o);
            match o.status.code() {
                Some(0) => {}
                Some(2) => {
                    refused += 1;
                    assert!(
                        e.contains("in use by another accuracy process (pid "),
                        "{e}"
                    );
                }
                _ => panic!("trial {trial}: {:?}: {e}", o.status),
            }
        }
        assert!(outs.iter().any(|o| o.status.success()), "trial {trial}");
        assert!(std::fs::read(dir.join("results.csv")).unwrap() == results);
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
        assert_eq!(summary["trees"], 6);
    }
    eprintln!("{refused} of 5 trials refused the second sweep");
}

/// Two merges of different sweeps into one OUT at once: one is refused (or they run one
/// after the other), and OUT's results.csv, summary.json and report.html always come from
/// one sweep.
#[test]
fn two_merges_into_one_directory_never_mix() {
    let base = scratch("merges");
    let mut parts = Vec::new();
    for topology in ["chain", "star"] {
        let dirs: Vec<String> = (1..=2)
            .map(|k| {
                let d = base.join(format!("{topology}-{k}"));
                let args = small_sweep(&d, topology, &["--shard", &format!("{k}/2")]);
                let o = accuracy(&strs(&args));
                assert!(o.status.success(), "{}", stderr(&o));
                d.display().to_string()
            })
            .collect();
        parts.push(dirs);
    }
    for trial in 0..6 {
        let out = base.join(format!("out{trial}"));
        let o = out.display().to_string();
        let children: Vec<Child> = parts
            .iter()
            .map(|dirs| {
                let mut args = vec!["merge", "--quiet", o.as_str()];
                args.extend(dirs.iter().map(String::as_str));
                spawn(&args)
            })
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        for o in &outs {
            let e = stderr(o);
            match o.status.code() {
                Some(0) => {}
                Some(2) => assert!(e.contains("in use by another accuracy process"), "{e}"),
                _ => panic!("trial {trial}: {:?}: {e}", o.status),
            }
        }
        let results = std::fs::read_to_string(out.join("results.csv")).unwrap();
        let topologies: std::collections::BTreeSet<&str> = results
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).unwrap())
            .collect();
        assert_eq!(topologies.len(), 1, "trial {trial}: {topologies:?}");
        let mine = *topologies.first().unwrap();
        let other = if mine == "chain" { "star" } else { "chain" };
        let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
        assert!(summary.contains(&format!("\"{mine}\"")), "trial {trial}");
        assert!(!summary.contains(&format!("\"{other}\"")), "trial {trial}");
        let report = std::fs::read_to_string(out.join("report.html")).unwrap();
        assert!(report.contains(&format!(">{mine}<")), "trial {trial}");
        assert!(
            !report.contains(&format!(">{other}<")),
            "trial {trial}: a mixed report"
        );
    }
}
