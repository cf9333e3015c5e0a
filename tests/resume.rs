//! A sweep killed at any moment (kill -9) and resumed with `--resume DIR` ends with the same
//! results.csv bytes as an uninterrupted run; until it finishes, its logs are
//! `results.csv.partial` and `nodes-sample.csv.partial`, so nothing looks finished.

mod common;
use common::scratch;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ARGS: [&str; 12] = [
    "--cond",
    "1e2..1e8",
    "--points",
    "4",
    "--trees",
    "6",
    "--nodes",
    "3000",
    "--topology",
    "chain,random-recursive",
    "--algos",
    "sequential,parallel,vectorial,vectorial-seqscan",
];

fn sweep(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_accuracy"));
    c.arg("sweep")
        .args(ARGS)
        .arg("--quiet")
        .arg("--out")
        .arg(dir);
    c.stdout(Stdio::null()).stderr(Stdio::piped());
    c
}

fn resume(dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .args(["sweep", "--quiet", "--resume"])
        .arg(dir)
        .output()
        .expect("the binary runs")
}

fn lines(path: &Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

#[test]
fn killed_sweeps_resume_to_the_same_bytes() {
    let full = scratch("full");
    let o = sweep(&full).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let expected = std::fs::read(full.join("results.csv")).unwrap();
    let expected_sample = std::fs::read(full.join("nodes-sample.csv")).unwrap();
    let total = lines(&full.join("results.csv"));
    assert_finished(&full);
    // 2 topologies × 4 targets × 6 trees × 4 algorithms × 2 ops, plus the header.
    assert_eq!(total, 1 + 2 * 4 * 6 * 4 * 2);

    // Kill points: before anything is written, after the header or a few rows, mid-way, near
    // the end; each one killed with SIGKILL (no chance to clean up).
    let mut resumed_partial = 0;
    for (i, at_lines) in [0usize, 1, 9, total / 2, total - 8].into_iter().enumerate() {
        let dir = scratch(&format!("kill-{i}"));
        let mut child = sweep(&dir).spawn().unwrap();
        let results = dir.join("results.csv.partial");
        let start = Instant::now();
        while lines(&results) < at_lines && start.elapsed() < Duration::from_secs(120) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        let _ = child.kill();
        let _ = child.wait();
        let before = lines(&results);
        if before > 1 && before < total {
            resumed_partial += 1;
            // Killed mid-way: nothing has a final name, and `report` says the sweep is
            // unfinished instead of rendering part of it.
            for name in [
                "results.csv",
                "nodes-sample.csv",
                "summary.json",
                "report.html",
            ] {
                assert!(!dir.join(name).exists(), "killed sweep left a final {name}");
            }
            let o = Command::new(env!("CARGO_BIN_EXE_accuracy"))
                .arg("report")
                .arg(&dir)
                .output()
                .unwrap();
            let e = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{e}");
            assert!(
                e.contains("has not finished") && e.lines().count() == 1,
                "{e}"
            );
        }
        if !dir.join("sweep.json").exists() {
            // Killed before the sweep recorded its parameters: nothing to resume, and --resume
            // says so in one line.
            let o = resume(&dir);
            assert_eq!(o.status.code(), Some(2));
            assert!(String::from_utf8_lossy(&o.stderr).contains("no sweep to resume"));
            continue;
        }
        // What a kill during a write leaves (a temporary file beside its target) is removed by
        // the next run; a user's file is not.
        std::fs::write(dir.join(".summary.json.x1Yz2w.tmp"), "{").unwrap();
        std::fs::write(dir.join("notes.tmp"), "mine").unwrap();
        let o = resume(&dir);
        assert!(dir.join("notes.tmp").exists(), "a user's file was removed");
        std::fs::remove_file(dir.join("notes.tmp")).unwrap();
        assert!(
            o.status.success(),
            "kill at {at_lines} lines: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            std::fs::read(dir.join("results.csv")).unwrap() == expected,
            "kill at {at_lines} lines ({before} written): resumed results.csv differs"
        );
        assert!(
            std::fs::read(dir.join("nodes-sample.csv")).unwrap() == expected_sample,
            "kill at {at_lines} lines ({before} written): resumed nodes-sample.csv differs"
        );
        assert_finished(&dir);
    }
    // The kill points must have interrupted real work, or the test proves nothing.
    assert!(
        resumed_partial >= 2,
        "only {resumed_partial} kills hit a partial results.csv"
    );
}

/// A finished sweep's directory: every file under its final name, no log or temporary file
/// left behind.
fn assert_finished(dir: &Path) {
    for name in [
        "sweep.json",
        "results.csv",
        "nodes-sample.csv",
        "summary.json",
    ] {
        assert!(dir.join(name).is_file(), "{}: no {name}", dir.display());
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            !name.ends_with(".partial") && !name.ends_with(".tmp"),
            "{}: {name} left behind",
            dir.display()
        );
    }
}

#[test]
fn resume_refuses_other_parameters() {
    let o = Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .args(["sweep", "--resume", "x", "--nodes", "10"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be used with"));
}

/// A sweep on a tree file given by a relative path resumes from any working directory, and
/// after the project holding the file and the sweep moved; a changed file is still refused.
#[test]
fn resume_from_anywhere() {
    let root = scratch("anywhere");
    let proj = root.join("proj");
    std::fs::create_dir_all(proj.join("data")).unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("generators/tests/data");
    std::fs::copy(data.join("3elt.mtx.gz"), proj.join("data/t.mtx.gz")).unwrap();
    let file_sweep = |out: &str| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_accuracy"));
        c.current_dir(&proj)
            .args(["sweep", "--quiet", "--tree", "data/t.mtx.gz"])
            .args(["--cond", "1e2..1e8", "--points", "4", "--trees", "6"])
            .args(["--algos", "sequential,parallel,vectorial,vectorial-seqscan"])
            .args(["--out", out])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        c
    };
    let resume_in = |cwd: &Path, dir: &Path| {
        Command::new(env!("CARGO_BIN_EXE_accuracy"))
            .current_dir(cwd)
            .args(["sweep", "--quiet", "--resume"])
            .arg(dir)
            .output()
            .unwrap()
    };
    let o = file_sweep("full").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let expected = std::fs::read(proj.join("full/results.csv")).unwrap();
    let total = lines(&proj.join("full/results.csv"));

    // A finished sweep, resumed from another directory.
    let o = resume_in(&root, Path::new("proj/full"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read(proj.join("full/results.csv")).unwrap() == expected);

    // A killed sweep, resumed from / after the project moved: its absolute paths are gone.
    let mut child = file_sweep("killed").spawn().unwrap();
    let log = proj.join("killed/results.csv.partial");
    let start = Instant::now();
    while lines(&log) < total / 3 && start.elapsed() < Duration::from_secs(120) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let _ = child.kill();
    let _ = child.wait();
    let before = lines(&log);
    assert!(
        before > 1 && before < total,
        "the kill missed the run ({before} of {total} lines)"
    );
    let moved = root.join("moved");
    std::fs::rename(&proj, &moved).unwrap();
    let o = resume_in(Path::new("/"), &moved.join("killed"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        std::fs::read(moved.join("killed/results.csv")).unwrap() == expected,
        "resumed results.csv differs from the uninterrupted run's"
    );
    assert_finished(&moved.join("killed"));

    // A sweep killed before its first tree reached the log (sweep.json only), resumed from /.
    let early = moved.join("early");
    std::fs::create_dir_all(&early).unwrap();
    let params = std::fs::read_to_string(moved.join("full/sweep.json")).unwrap();
    std::fs::write(early.join("sweep.json"), params).unwrap();
    let o = resume_in(Path::new("/"), &early);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        std::fs::read(early.join("results.csv")).unwrap() == expected,
        "a sweep resumed from its parameters alone differs from the uninterrupted run's"
    );

    // The file found relative to the sweep directory is still checked against its SHA-256.
    std::fs::copy(data.join("HB_494_bus.mtx.gz"), moved.join("data/t.mtx.gz")).unwrap();
    let o = resume_in(Path::new("/"), &moved.join("full"));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("SHA-256 changed"), "{e}");
}
