//! Inputs nobody on the team chose: streams and device files without end, read within the
//! reader's memory limit by every command; a results file with a column more; malformed
//! `.npy` headers and values carrying terminal escapes, quoted on one line, escaped and cut;
//! an option given without the one it needs. Each is one line on stderr and exit 2.
#![cfg(unix)]

mod common;
use common::{scratch, stderr};

use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_accuracy");
const TREE: &str = "((a:1,b:2)c:0.5,(d:3,e:1.5)f:2)g;\n";

/// Exit 2, one line on stderr holding `needle`, no raw control character.
fn one_line_error(o: &Output, what: &str, needle: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {e}");
    assert_eq!(e.lines().count(), 1, "{what}: {e}");
    assert!(
        e.starts_with("error: ") && e.contains(needle),
        "{what}: {e}"
    );
    assert!(
        !e.trim_end().chars().any(char::is_control),
        "{what}: a control character in {e:?}"
    );
}

/// `accuracy ARGS` with `stdin`, under an address-space limit of `kb` KiB (`ulimit -v`).
fn limited(kb: u64, args: &[&str], stdin: Stdio) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kb} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .stdin(stdin)
        .output()
        .unwrap()
}

fn file(path: &str) -> Stdio {
    Stdio::from(std::fs::File::open(path).unwrap())
}

/// A stream has no size to check before it is read: it is read up to the text's share of the
/// memory available and refused there, never to an end that may not come. `stats` goes on
/// past a bad file: its line names the file, and a summary follows.
#[cfg(target_os = "linux")]
#[test]
fn streams_and_device_files_are_read_within_the_memory_limit() {
    const KB: u64 = 600_000;
    let dir = scratch("streams");
    let tree = dir.join("t.nwk");
    std::fs::write(&tree, TREE).unwrap();
    let t = tree.to_str().unwrap();
    let cases: [(&str, Vec<&str>, Stdio); 6] = [
        ("stats /dev/zero", vec!["stats", "/dev/zero"], Stdio::null()),
        ("stats - < /dev/zero", vec!["stats", "-"], file("/dev/zero")),
        (
            "run --tree /dev/zero",
            vec!["run", "-q", "--tree", "/dev/zero"],
            Stdio::null(),
        ),
        (
            "run --tree - < /dev/urandom",
            vec!["run", "-q", "--tree", "-"],
            file("/dev/urandom"),
        ),
        (
            "score --results - < /dev/zero",
            vec!["score", "--tree", t, "--results", "-"],
            file("/dev/zero"),
        ),
        (
            "score --results /dev/urandom",
            vec!["score", "--tree", t, "--results", "/dev/urandom"],
            Stdio::null(),
        ),
    ];
    for (what, args, stdin) in cases {
        let o = limited(KB, &args, stdin);
        let e = stderr(&o);
        let first = e.lines().next().unwrap_or_default();
        assert_eq!(o.status.code(), Some(2), "{what}: {e}");
        assert!(
            first.starts_with("error: ") && first.contains("the input goes on past"),
            "{what}: {e}"
        );
        let expected_lines = if args[0] == "stats" { 2 } else { 1 };
        assert_eq!(e.lines().count(), expected_lines, "{what}: {e}");
    }
}

/// docs/inputs.md: a results file names `vertex`, `op` and `result`, and more columns are
/// refused (a second `vertex` too): a file meant otherwise is never half-read.
#[test]
fn a_results_file_with_a_column_more_is_refused() {
    let dir = scratch("columns");
    let tree = dir.join("t.nwk");
    std::fs::write(&tree, TREE).unwrap();
    for (name, header) in [
        ("extra", "vertex,op,result,extra"),
        ("twice", "vertex,op,result,vertex"),
    ] {
        let path = dir.join(format!("{name}.csv"));
        let mut text = format!("{header}\n");
        for v in 0..7 {
            text += &format!("{v},rootfix,1,0\n");
        }
        std::fs::write(&path, text).unwrap();
        let o = Command::new(BIN)
            .args([
                "score",
                "--tree",
                tree.to_str().unwrap(),
                "--ops",
                "rootfix",
            ])
            .arg("--results")
            .arg(&path)
            .output()
            .unwrap();
        one_line_error(&o, name, "more columns are refused");
    }
}

/// A message quotes what a file holds on one line, control characters escaped (a terminal
/// shows `\u{1b}`, never obeys it) and long text cut.
#[test]
fn malformed_headers_and_values_are_quoted_on_one_short_line() {
    let dir = scratch("quoted");
    let tree = dir.join("t.nwk");
    std::fs::write(&tree, TREE).unwrap();
    let escapes = "\x1b[31m".repeat(3000);
    let cases = [
        ("syntax.npy", "{'descr': <<<<<<<<".to_string()),
        (
            "escapes.npy",
            format!("{{'descr': '{escapes}', 'fortran_order': False, 'shape': (7,), }}"),
        ),
        // The header parser's time doubles with each nested brace (20 would take days).
        (
            "braces.npy",
            format!(
                "{{'descr': '<f4', 'fortran_order': False, 'shape': (7,{}), }}",
                "{".repeat(20)
            ),
        ),
        (
            "dtype.npy",
            format!(
                "{{'descr': '|V{}', 'fortran_order': False, 'shape': (7,), }}",
                3
            ),
        ),
    ];
    for (name, header) in &cases {
        let path = dir.join(name);
        std::fs::write(&path, common::npy::npy_file(1, header, &[])).unwrap();
        let t0 = std::time::Instant::now();
        let o = Command::new(BIN)
            .args([
                "score",
                "--tree",
                tree.to_str().unwrap(),
                "--ops",
                "rootfix",
            ])
            .arg("--results")
            .arg(format!("rootfix={}", path.display()))
            .output()
            .unwrap();
        one_line_error(&o, name, name);
        assert!(o.stderr.len() < 600, "{name}: {} bytes", o.stderr.len());
        assert!(t0.elapsed().as_secs() < 10, "{name}: {:?}", t0.elapsed());
    }
    let csv = dir.join("escape.csv");
    std::fs::write(
        &csv,
        format!("vertex,op,result\n\x1b[31mX{},rootfix,1\n", "y".repeat(500)),
    )
    .unwrap();
    let o = Command::new(BIN)
        .args(["score", "--tree", tree.to_str().unwrap(), "--results"])
        .arg(&csv)
        .output()
        .unwrap();
    one_line_error(&o, "a CSV value", "unknown vertex '\\u{1b}[31mX");
    assert!(o.stderr.len() < 300, "{} bytes", o.stderr.len());
}

/// `--weights-file` names where the weights of a tree file come from: without `--tree` there
/// is none, and `run` refuses it as `sweep` does, instead of ignoring it.
#[test]
fn a_weights_file_without_a_tree_file_is_refused() {
    for command in ["run", "sweep"] {
        let o = Command::new(BIN)
            .args([command, "--topology", "chain", "--nodes", "100"])
            .args(["--weights-file", "/nonexistent"])
            .output()
            .unwrap();
        one_line_error(&o, command, "--weights-file goes with");
    }
}

/// Mutated `.npy` files (header text, length field, version, data cut short) never panic: a
/// result of the tree's length, or a one-line error of at most 600 bytes without a control
/// character. Seeded; the long-run driver is `examples/fuzz_npy.rs`.
#[test]
fn mutated_npy_files_are_read_or_refused_on_one_line() {
    use common::npy::{audit, header, mutated, npy_file};
    use treefix_accuracy::score::results::read_npy;
    let n = 7;
    let values: Vec<f32> = (0..n).map(|v| v as f32 * 0.5).collect();
    let bases: Vec<Vec<u8>> = [1, 2, 3]
        .into_iter()
        .map(|version| npy_file(version, &header(n), &values))
        .collect();
    let mut rng = generators::rng(31);
    let (mut read, mut refused) = (0, 0);
    for case in 0..4000 {
        let input = mutated(&mut rng, &bases[case % bases.len()]);
        let r = std::panic::catch_unwind(|| read_npy("r.npy", &input, n));
        let r = r.unwrap_or_else(|_| panic!("case {case}: a panic on {input:?}"));
        if let Some(problem) = audit(&r, n) {
            panic!("case {case}: {problem}");
        }
        if r.is_ok() { read += 1 } else { refused += 1 }
    }
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
}
