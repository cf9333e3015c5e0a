//! A power loss, simulated by damaging a killed sweep's logs as a crash can leave them: the
//! node sample deleted, cut short, or damaged in the middle (a zeroed block, a changed byte,
//! an edited closing count), the results log cut inside a line, zeroed in the middle or
//! followed by zeros. The resume keeps only the trees before the first damage, complete in
//! both logs, computes the rest in order, and ends with the bytes of an uninterrupted sweep,
//! results.csv and nodes-sample.csv alike.

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

/// Writes `bytes` over `path` at `offset`, in place (the file keeps its length).
fn overwrite(path: &Path, offset: usize, bytes: &[u8]) {
    let mut b = std::fs::read(path).unwrap();
    b[offset..offset + bytes.len()].copy_from_slice(bytes);
    std::fs::write(path, b).unwrap();
}

/// The 4 KiB block in the middle of `path` (a disk writes whole blocks, a crash can zero one).
fn middle_block(path: &Path) -> usize {
    std::fs::metadata(path).unwrap().len() as usize / 2 / 4096 * 4096
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
    let sample_len = std::fs::metadata(killed.join(SAMPLE_LOG)).unwrap().len();
    assert!(sample_len > 16384, "a sample log of {sample_len} bytes");

    type Fault = fn(&Path);
    let faults: [(&str, Fault); 10] = [
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
        // Damage inside the sample log, with complete trees after it: those trees are
        // computed again in order, never appended after the trees that follow them.
        ("a zeroed block in the sample log", |d| {
            let log = d.join(SAMPLE_LOG);
            overwrite(&log, middle_block(&log), &[0; 4096])
        }),
        ("8 KiB of zeros in the sample log", |d| {
            let log = d.join(SAMPLE_LOG);
            overwrite(&log, middle_block(&log) - 4096, &[0; 8192])
        }),
        ("a byte of the sample log replaced by #", |d| {
            let log = d.join(SAMPLE_LOG);
            overwrite(&log, middle_block(&log) + 1, b"#")
        }),
        ("a tree's closing count edited", |d| {
            let log = d.join(SAMPLE_LOG);
            let text = std::fs::read_to_string(&log).unwrap();
            let close = text.match_indices("\n#tree,").nth(3).unwrap().0 + 1;
            let line = &text[close..close + text[close..].find('\n').unwrap()];
            let count: usize = line.rsplit(',').next().unwrap().parse().unwrap();
            let edited = line.replace(&format!(",{count}"), &format!(",{}", count + 1));
            std::fs::write(&log, text.replacen(line, &edited, 1)).unwrap();
        }),
        ("a zeroed block in the results log", |d| {
            let log = d.join("results.csv.partial");
            overwrite(&log, middle_block(&log), &[0; 4096])
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
