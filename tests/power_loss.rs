//! A power loss, simulated by cutting a killed sweep's logs as a crash can leave them: the
//! node sample deleted or cut short, the results log cut inside a line or followed by zeros.
//! The resume keeps only the trees complete in both logs and ends with the bytes of an
//! uninterrupted sweep, results.csv and nodes-sample.csv alike.

mod common;
use common::{scratch, stderr};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ARGS: [&str; 10] = [
    "--cond",
    "1e2..1e8",
    "--points",
    "4",
    "--trees",
    "8",
    "--nodes",
    "3000",
    "--topology",
    "chain,random-recursive",
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

fn lines(path: &Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

const SAMPLE_LOG: &str = "nodes-sample.csv.partial";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Keeps all but the last `bytes` bytes of `path`.
fn cut(path: &Path, bytes: usize) {
    let b = std::fs::read(path).unwrap();
    std::fs::write(path, &b[..b.len().saturating_sub(bytes)]).unwrap();
}

#[test]
fn a_resume_after_a_power_loss_keeps_only_trees_complete_in_both_logs() {
    let base = scratch("power");
    let full = base.join("full");
    let o = sweep(&full).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let results = std::fs::read(full.join("results.csv")).unwrap();
    let sample = std::fs::read(full.join("nodes-sample.csv")).unwrap();
    let total = lines(&full.join("results.csv"));

    // Killed half way: both logs hold finished trees.
    let killed = base.join("killed");
    let mut child = sweep(&killed).spawn().unwrap();
    let log = killed.join("results.csv.partial");
    let start = Instant::now();
    while lines(&log) < total / 2 && start.elapsed() < Duration::from_secs(300) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(lines(&log) < total, "the kill came too late");

    type Fault = fn(&Path);
    let faults: [(&str, Fault); 5] = [
        ("sample log deleted", |d| {
            std::fs::remove_file(d.join(SAMPLE_LOG)).unwrap()
        }),
        ("sample log's last 1000 bytes cut", |d| {
            cut(&d.join(SAMPLE_LOG), 1000)
        }),
        ("sample log cut to its header", |d| {
            let text = std::fs::read_to_string(d.join(SAMPLE_LOG)).unwrap();
            let header = text.lines().next().unwrap().to_string() + "\n";
            std::fs::write(d.join(SAMPLE_LOG), header).unwrap();
        }),
        ("results log cut inside a line", |d| {
            cut(&d.join("results.csv.partial"), 77)
        }),
        ("zeros after the results log", |d| {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(d.join("results.csv.partial"))
                .unwrap();
            f.write_all(&[0u8; 4096]).unwrap();
        }),
    ];
    for (what, fault) in faults {
        let dir = base.join(what.replace(' ', "-"));
        copy_dir(&killed, &dir);
        fault(&dir);
        let o = Command::new(env!("CARGO_BIN_EXE_accuracy"))
            .args(["sweep", "--quiet", "--resume"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        assert!(
            std::fs::read(dir.join("results.csv")).unwrap() == results,
            "{what}: results.csv differs from the uninterrupted sweep's"
        );
        assert!(
            std::fs::read(dir.join("nodes-sample.csv")).unwrap() == sample,
            "{what}: nodes-sample.csv differs from the uninterrupted sweep's"
        );
    }
}
