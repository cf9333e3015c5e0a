//! The `accuracy` binary at the edges of its machine: too little memory, a closed pipe, a full
//! disk, an interrupted dump, an output path that is one of its inputs.
#![cfg(unix)]

mod common;
use common::{accuracy, scratch, stderr};

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_accuracy");

/// An address-space limit (`ulimit -v`, KiB) under which small runs work and the sizes
/// below cannot.
#[cfg(target_os = "linux")]
const LIMIT_KB: &str = "4000000";

/// `accuracy ARGS` under `ulimit -v LIMIT_KB`.
#[cfg(target_os = "linux")]
fn limited(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {LIMIT_KB} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .output()
        .expect("sh runs")
}

/// One line on stderr, exit 2, no panic or backtrace.
fn assert_one_line_error(o: &Output, what: &str, contains: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {e}");
    assert_eq!(e.lines().count(), 1, "{what}: {e}");
    assert!(
        e.starts_with("error: ") && e.contains(contains),
        "{what}: {e}"
    );
    assert!(
        !e.contains("panicked") && !e.contains("backtrace"),
        "{what}: {e}"
    );
}

// `ulimit -v` is enforced by Linux (macOS accepts it and ignores it).
#[cfg(target_os = "linux")]
#[test]
fn a_tree_too_large_for_memory_is_refused_before_it_is_allocated() {
    let o = limited(&["run", "--topology", "star", "--nodes", "2147483648"]);
    assert_one_line_error(&o, "run", "error: run: needs about ");
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            " GB for 2147483648 vertices (star, {} algorithms, 2 ops); ",
            analysis::Algorithm::ALL.len()
        )) && e.trim_end().ends_with(" GB available (ulimit -v)"),
        "{e}"
    );
    let dir = scratch("too-large");
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    for (what, args) in [
        ("gen", &["gen", "--n", "10000000000", "--cond", "1e5"][..]),
        (
            "bounds-table",
            &["bounds-table", "--nodes", "2147483648", "--out", out],
        ),
        (
            "sweep",
            &["sweep", "--nodes", "2147483648", "--quiet", "--out", out],
        ),
    ] {
        let o = limited(args);
        assert_one_line_error(&o, what, &format!("error: {what}: needs about "));
    }
    assert!(
        !dir.join("out").exists(),
        "a refused command wrote its output"
    );
    // The same limit leaves room for an ordinary run.
    let o = limited(&["run", "--topology", "chain", "--nodes", "1000"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[cfg(target_os = "linux")]
#[test]
fn a_matrix_market_size_line_beyond_memory_is_refused_even_in_stats() {
    let dir = scratch("huge-mtx");
    let f = dir.join("huge.mtx");
    std::fs::write(
        &f,
        "%%MatrixMarket matrix coordinate pattern symmetric\n2147483647 2147483647 1\n2 1\n",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let o = limited(&["stats", "--forest", "virtual-root", f]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("huge.mtx:2:1: 2147483648 vertices need about 154.6 GB of memory to read"),
        "{e}"
    );
    assert!(
        !e.contains("panicked") && !e.contains("memory allocation"),
        "{e}"
    );
    let o = limited(&["run", "--tree", f, "--forest", "virtual-root"]);
    assert_one_line_error(&o, "run --tree", "huge.mtx:2:1: 2147483648 vertices need");
}

/// Peak RSS (bytes) of `accuracy ARGS`, from the kernel's accounting of the child.
// The child is reaped by wait4, which std's `Child` does not see.
#[allow(clippy::zombie_processes)]
fn peak_rss(args: &[&str]) -> u64 {
    let child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for the child it reaps.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    // ru_maxrss is in KiB on Linux, bytes on macOS.
    let scale = if cfg!(target_os = "macos") { 1 } else { 1024 };
    usage.ru_maxrss as u64 * scale
}

/// The memory model against a measured peak: a stale model (the code got leaner or hungrier)
/// fails here, loudly. Update `treefix_accuracy::memory::model` with the commands written
/// there. Two regimes: a run the allocator keeps its freed pages for (10^6 vertices), and one
/// whose estimate passes `memory::EAGER_PURGE_FROM`, where they go back at once (2^22).
#[test]
fn the_model_bounds_a_measured_peak() {
    use analysis::{Algorithm, Op, ReferenceKind};
    use treefix_accuracy::memory;
    let algos = Algorithm::ALL;
    let eval = memory::Evaluation {
        algos: &algos,
        ops: Op::ALL.len(),
        reference: ReferenceKind::Exact,
        gpu: false,
    };
    for (topology, n, eager) in [("chain", 1_000_000u64, false), ("profile", 1 << 22, true)] {
        let estimate = memory::run(n, topology, &eval, false, false, memory::threads());
        assert_eq!(estimate.eager, eager, "{n} vertices: {estimate:?}");
        let measured = peak_rss(&["run", "--topology", topology, "--nodes", &n.to_string()]);
        let ratio = estimate.bytes as f64 / measured as f64;
        eprintln!(
            "{topology}, {n} vertices: estimate {} B, measured peak {measured} B: ratio {ratio:.2}",
            estimate.bytes
        );
        assert!(
            (1.0..=2.0).contains(&ratio),
            "the memory model is stale: it estimates {} B for a run of {n} vertices whose peak \
             RSS was {measured} B (ratio {ratio:.2}, expected 1 to 2); re-measure memory::model",
            estimate.bytes
        );
    }
}

/// `accuracy ARGS` with stdout a pipe whose reader has already gone.
fn into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(BIN)
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn rows(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count()
}

#[test]
fn a_closed_pipe_ends_a_command_quietly_with_its_files_complete() {
    let dir = scratch("pipe");
    let dump = dir.join("d.csv");
    let o = into_closed_pipe(&[
        "run",
        "--topology",
        "chain",
        "--nodes",
        "500",
        "--dump",
        dump.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.signal(), Some(libc::SIGPIPE), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    assert_eq!(rows(&dump), 1 + 2 * analysis::Algorithm::ALL.len() * 500);

    let sweep = dir.join("sweep");
    let o = into_closed_pipe(&[
        "sweep",
        "--nodes",
        "100",
        "--trees",
        "1",
        "--cond",
        "1e2,1e5",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.signal(), Some(libc::SIGPIPE), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    let algorithms = analysis::Algorithm::main_job().len();
    assert_eq!(rows(&sweep.join("results.csv")), 1 + 2 * 2 * algorithms);
    let html = std::fs::read_to_string(sweep.join("report.html")).unwrap();
    assert!(html.trim_end().ends_with("</html>"));

    let table = dir.join("table");
    let tree = dir.join("t.nwk");
    std::fs::write(&tree, "((a:1,b:2)c:0.5,d:3)e;\n").unwrap();
    for args in [
        &["gen", "--n", "100000", "--cond", "1e5"][..],
        &["stats", tree.to_str().unwrap()],
        &[
            "bounds-table",
            "--nodes",
            "100",
            "--trees",
            "1",
            "--cond",
            "1e2",
            "--topology",
            "chain",
            "--out",
            table.to_str().unwrap(),
        ],
    ] {
        let o = into_closed_pipe(args);
        let e = stderr(&o);
        assert_eq!(o.status.signal(), Some(libc::SIGPIPE), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{args:?}: {e}");
    }
    assert!(rows(&table.join("bounds-table.csv")) > 1);
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_a_one_line_error() {
    let o = accuracy(&[
        "run",
        "--topology",
        "chain",
        "--nodes",
        "100",
        "--dump",
        "/dev/full",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    let last = e.lines().last().unwrap_or("");
    assert_eq!(
        last,
        "error: /dev/full: write failed: No space left on device (os error 28)"
    );
    assert!(!e.contains("panicked"), "{e}");
    // The same for a report page.
    let sweep = scratch("full-disk");
    let s = sweep.to_str().unwrap();
    let o = accuracy(&[
        "sweep", "--nodes", "50", "--trees", "1", "--cond", "1e2", "--quiet", "--out", s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = accuracy(&["report", s, "--out", "/dev/full"]);
    assert_one_line_error(
        &o,
        "report",
        "/dev/full: write failed: No space left on device",
    );
}

#[test]
fn an_output_that_is_an_input_is_refused_before_anything_runs() {
    let dir = scratch("clobber");
    let tree = dir.join("t.tre");
    let text = "((a:1,b:2)c:0.5,d:3)e;\n";
    std::fs::write(&tree, text).unwrap();
    let t = tree.to_str().unwrap();
    // Another spelling of the same file.
    let same = format!("{}/./t.tre", dir.display());
    let o = accuracy(&["run", "--tree", t, "--dump", &same]);
    assert_one_line_error(
        &o,
        "run",
        "would overwrite an input, the tree file of --tree",
    );
    assert_eq!(std::fs::read_to_string(&tree).unwrap(), text);

    let weights = dir.join("w.txt");
    std::fs::write(&weights, "a 1\nb 2\n").unwrap();
    let w = weights.to_str().unwrap();
    let o = accuracy(&["run", "--tree", t, "--weights-file", w, "--dump", w]);
    assert_one_line_error(&o, "run", "the weights file of --weights-file");
    assert_eq!(std::fs::read_to_string(&weights).unwrap(), "a 1\nb 2\n");

    // `report DIR --out DIR/results.csv` would replace the sweep's results with the page.
    let sweep = dir.join("sweep");
    let s = sweep.to_str().unwrap();
    let o = accuracy(&[
        "sweep", "--nodes", "50", "--trees", "1", "--cond", "1e2", "--quiet", "--out", s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let results = sweep.join("results.csv");
    let before = std::fs::read(&results).unwrap();
    let o = accuracy(&["report", s, "--out", results.to_str().unwrap()]);
    assert_one_line_error(&o, "report", "would overwrite an input");
    assert_eq!(std::fs::read(&results).unwrap(), before);
}

/// Ctrl-C (or kill -9) while the dump is being written: its name holds nothing, or a complete
/// file; after Ctrl-C no temporary file is left either. A dump that ends before the signal
/// arrives proves nothing about interruptions, so such a try is checked (complete, exit 0) and
/// made again on a tree twice as large, until one is interrupted.
#[test]
fn an_interrupted_dump_leaves_no_truncated_file() {
    for sig in [libc::SIGINT, libc::SIGKILL] {
        let interrupted = (0..4).any(|doubling| interrupt_dump(sig, 200_000 << doubling));
        assert!(
            interrupted,
            "signal {sig}: every dump ended before the signal arrived"
        );
    }
}

/// A dump of an `n`-vertex chain, sent `sig` once its temporary file holds 1 MiB: whether the
/// signal interrupted it (otherwise the dump was complete and the command succeeded).
fn interrupt_dump(sig: libc::c_int, n: usize) -> bool {
    let dir = scratch(&format!("interrupted-{sig}-{n}"));
    let dump = dir.join("d.csv");
    let mut child = Command::new(BIN)
        .args(["run", "--topology", "chain", "--nodes", &n.to_string()])
        .args(["--ops", "rootfix", "--algos", "sequential,parallel"])
        .args(["--dump", dump.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the dump is being written (its temporary file holds some rows).
    let start = std::time::Instant::now();
    let partial = || {
        std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
            .map(|e| e.metadata().map_or(0, |m| m.len()))
            .max()
    };
    while partial().is_none_or(|len| len < 1 << 20) && !dump.exists() {
        assert!(start.elapsed().as_secs() < 300, "the dump never started");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, sig) };
    let status = child.wait().unwrap();
    if dump.exists() {
        // The dump was complete before the signal arrived.
        assert!(status.success());
        assert_eq!(rows(&dump), 1 + 2 * n);
        false
    } else {
        assert_eq!(status.signal(), Some(sig));
        if sig == libc::SIGINT {
            assert_eq!(partial(), None, "a temporary file left behind");
        }
        true
    }
}
