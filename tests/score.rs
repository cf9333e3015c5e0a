//! `accuracy score` on kernels we did not write: the order-independent bound, gates on
//! zero-exact nodes, ambiguous vertex keys, missing ops, precision of printed results, `.npy`
//! and standard input, the per-vertex dump; and the library's `score` behind it.

mod common;
use common::{accuracy, scratch, text};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use treefix_accuracy::{Algorithm, Cpu, Op, OrderBound, ScoreOptions, Topology, Tree};

/// A parent-array file `vertex parent weight` of `tree` with weights `w`.
fn parent_file(dir: &Path, tree: &Tree, w: &[f32]) -> PathBuf {
    let path = dir.join("tree.txt");
    let mut s = String::new();
    for (v, x) in w.iter().enumerate() {
        match tree.parent(v as u32) {
            Some(p) => s += &format!("{v} {p} {x}\n"),
            None => s += &format!("{v} -1 {x}\n"),
        }
    }
    std::fs::write(&path, s).unwrap();
    path
}

/// `vertex,op,result` rows, each value printed by `print`.
fn csv_file(dir: &Path, name: &str, op: &str, values: &[f32], print: fn(f32) -> String) -> PathBuf {
    let path = dir.join(name);
    let mut s = String::from("vertex,op,result\n");
    for (v, &x) in values.iter().enumerate() {
        s += &format!("{v},{op},{}\n", print(x));
    }
    std::fs::write(&path, s).unwrap();
    path
}

/// A 1-d `.npy` file of `descr` (`<f4`, `<f2`, `<V2`) and these little-endian element bytes,
/// written by hand after numpy's format (version 1.0).
fn npy_of(descr: &str, len: usize, data: impl IntoIterator<Item = u8>) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({len},), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend(data);
    out
}

/// A 1-d float32 `.npy` file.
fn npy_bytes(values: &[f32]) -> Vec<u8> {
    npy_of(
        "<f4",
        values.len(),
        values.iter().flat_map(|x| x.to_le_bytes()),
    )
}

fn instance(topology: &str, n: usize, cond: f64, seed: u64) -> (Tree, Vec<f32>) {
    let t =
        treefix_accuracy::generate_tree(&topology.parse::<Topology>().unwrap(), n, seed).unwrap();
    let w = treefix_accuracy::gensum(n, cond, seed).unwrap().weights;
    (t, w)
}

/// l[v] = w[v] + l[c_k] + … + l[c_1]: the children in reverse order, in f32.
fn reverse_leaffix(tree: &Tree, w: &[f32]) -> Vec<f32> {
    let mut l = vec![0f32; tree.len()];
    for &v in tree.postorder() {
        let mut acc = w[v as usize];
        for &c in tree.children(v).iter().rev() {
            acc += l[c as usize];
        }
        l[v as usize] = acc;
    }
    l
}

#[test]
fn a_reverse_order_leaffix_is_within_the_order_independent_bound_and_a_scan_is_not() {
    let mut scans_outside = 0;
    for topology in Topology::all_defaults() {
        let name = topology.to_string();
        let (tree, w) = instance(&name, 3000, 1e8, 3);
        let options = ScoreOptions {
            algorithms: vec![Algorithm::SEQUENTIAL],
            ..ScoreOptions::default()
        };
        let reverse = reverse_leaffix(&tree, &w);
        let s = treefix_accuracy::score(&tree, &w, &[(Op::Leaffix, &reverse)], &options, &|_| None)
            .unwrap();
        let o = &s.ops[0];
        assert!(
            o.order_bound(OrderBound::AnyOrder).within,
            "{name}\n{}",
            s.tables()
        );
        assert!(
            s.tables()
                .contains("leaffix: within the order-independent bound")
        );
        let scan = treefix_accuracy::leaffix(&tree, &w, Algorithm::VECTORIAL, &Cpu).unwrap();
        let s = treefix_accuracy::score(&tree, &w, &[(Op::Leaffix, &scan)], &options, &|_| None)
            .unwrap();
        if !s.ops[0].order_bound(OrderBound::AnyOrder).within {
            scans_outside += 1;
            assert!(
                s.tables()
                    .contains("leaffix: OUTSIDE the order-independent bound")
            );
        }
    }
    // The Euler tour's S[close] − S[open − 1] cancels far beyond any order's bound somewhere.
    assert!(scans_outside >= 6, "{scans_outside} of 8 topologies");
}

#[test]
fn a_zero_exact_node_with_a_nonzero_result_fails_the_lost_bits_gate() {
    let dir = scratch("zero");
    let tree = dir.join("t.txt");
    // Leaffix: 9, 0 (= 0 + 1 − 1), 1, −1, 4.
    std::fs::write(&tree, "0 -1 5\n1 0 0\n2 1 1\n3 1 -1\n4 0 4\n").unwrap();
    let r = dir.join("r.csv");
    std::fs::write(
        &r,
        "vertex,op,result\n0,leaffix,9\n1,leaffix,1e-30\n2,leaffix,1\n3,leaffix,-1\n4,leaffix,4\n",
    )
    .unwrap();
    let o = accuracy(&[
        "score",
        "--ops",
        "leaffix",
        "--tree",
        tree.to_str().unwrap(),
        "--results",
        r.to_str().unwrap(),
        "--max-lost-bits",
        "60",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(
        err.contains("leaffix: 1 node(s) lose more than --max-lost-bits 60 (max inf; 1 with exact value 0 and a non-zero result)"),
        "{err}"
    );
}

#[test]
fn a_label_of_two_vertices_is_ambiguous_not_a_second_result() {
    let dir = scratch("ambiguous");
    let tree = dir.join("t.nwk");
    std::fs::write(&tree, "((x:1,x:2)c:3,d:4)e:5;\n").unwrap();
    let r = dir.join("r.csv");
    std::fs::write(
        &r,
        "vertex,op,result\ne,rootfix,5\nc,rootfix,8\nx,rootfix,9\nx,rootfix,10\nd,rootfix,9\n",
    )
    .unwrap();
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
    assert!(
        err.contains("r.csv:4: vertex 'x' is ambiguous: the label of vertices 2 and 3"),
        "{err}"
    );
    // Numbers (preorder of the file) name them.
    std::fs::write(
        &r,
        "vertex,op,result\ne,rootfix,5\nc,rootfix,8\n2,rootfix,9\n3,rootfix,10\nd,rootfix,9\n",
    )
    .unwrap();
    let o = accuracy(&[
        "score",
        "--ops",
        "rootfix",
        "--tree",
        tree.to_str().unwrap(),
        "--results",
        r.to_str().unwrap(),
        "--max-ulps",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

#[test]
fn an_op_without_results_is_an_error_unless_ops_names_one_and_op_names_ignore_case() {
    let dir = scratch("ops");
    let (tree, w) = instance("random-recursive", 50, 1e3, 1);
    let t = parent_file(&dir, &tree, &w);
    let exact = treefix_accuracy::exact(&tree, &w, Op::Rootfix).unwrap();
    let r = csv_file(&dir, "r.csv", "RootFix", &exact, |x| format!("{x}"));
    let run = |extra: &[&str]| {
        let mut args = vec![
            "score",
            "--tree",
            t.to_str().unwrap(),
            "--results",
            r.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        accuracy(&args)
    };
    let o = run(&[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("r.csv: no leaffix results; to score rootfix alone, give --ops rootfix"),
        "{err}"
    );
    let o = run(&["--ops", "ROOTFIX", "--max-ulps", "0"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = run(&["--ops", "leaffix"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no leaffix results (--ops leaffix)"));
}

#[test]
fn results_printed_with_six_digits_are_refused_and_nine_are_scored() {
    let dir = scratch("digits");
    let (tree, w) = instance("random-recursive", 400, 1e6, 2);
    let t = parent_file(&dir, &tree, &w);
    let values = treefix_accuracy::rootfix(&tree, &w, Algorithm::SEQUENTIAL, &Cpu).unwrap();
    // C's %.6g.
    let six = csv_file(&dir, "six.csv", "rootfix", &values, |x| {
        format!("{:.5e}", x as f64)
    });
    let nine = csv_file(&dir, "nine.csv", "rootfix", &values, |x| {
        format!("{:.8e}", x as f64)
    });
    let score = |r: &Path, extra: &[&str]| {
        let mut args = vec![
            "score",
            "--ops",
            "rootfix",
            "--tree",
            t.to_str().unwrap(),
            "--results",
            r.to_str().unwrap(),
            "--max-ulps",
            "0",
        ];
        args.extend_from_slice(extra);
        accuracy(&args)
    };
    let o = score(&six, &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("printed with too few digits") && err.contains("%.9g"),
        "{err}"
    );
    // Accepted on request: loudly, and the rounding to 6 digits moves most values.
    let o = score(&six, &["--accept-low-precision"]);
    assert!(text(&o.stderr).contains("warning: "), "{}", text(&o.stderr));
    assert_eq!(
        o.status.code(),
        Some(4),
        "the 6-digit values are off by many ulps"
    );
    // Nine digits are the kernel's own values: the sequential twin is correctly rounded…
    // or not, but no digit was lost: the same as the library's judgement of the f32 values.
    let o = score(&nine, &["--json", "-"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = treefix_accuracy::score(
        &tree,
        &w,
        &[(Op::Rootfix, &values)],
        &ScoreOptions {
            max_ulps: Some(0),
            ..ScoreOptions::default()
        },
        &|_| None,
    )
    .unwrap();
    assert_eq!(doc["ops"][0]["max_ulps"], s.ops[0].max_ulps.unwrap());
    assert_eq!(doc["precision"]["warning"], serde_json::Value::Null);
}

#[test]
fn npy_and_standard_input_give_the_numbers_of_the_csv() {
    let dir = scratch("npy");
    let (tree, w) = instance("prufer", 300, 1e7, 5);
    let t = parent_file(&dir, &tree, &w);
    let values = treefix_accuracy::leaffix(&tree, &w, Algorithm::VECTORIAL, &Cpu).unwrap();
    let csv = csv_file(&dir, "l.csv", "leaffix", &values, |x| format!("{x}"));
    let npy = dir.join("l.npy");
    std::fs::write(&npy, npy_bytes(&values)).unwrap();
    let json = |results: &str, stdin: Option<Vec<u8>>| -> serde_json::Value {
        let mut c = Command::new(env!("CARGO_BIN_EXE_accuracy"));
        c.args([
            "score",
            "--ops",
            "leaffix",
            "--tree",
            t.to_str().unwrap(),
            "--results",
            results,
            "--json",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(&stdin.unwrap_or_default()).unwrap();
        drop(input);
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{results}: {}", text(&o.stderr));
        let mut doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        doc["ops"].take()
    };
    let from_csv = json(csv.to_str().unwrap(), None);
    assert_eq!(json(&format!("leaffix={}", npy.display()), None), from_csv);
    assert_eq!(json("leaffix=-", Some(npy_bytes(&values))), from_csv);
    assert_eq!(json("-", Some(std::fs::read(&csv).unwrap())), from_csv);
    // An .npy without its op, or of another length, is a one-line error.
    let o = accuracy(&[
        "score",
        "--tree",
        t.to_str().unwrap(),
        "--results",
        npy.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("say which, as rootfix="),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(&npy, npy_bytes(&values[..10])).unwrap();
    let o = accuracy(&[
        "score",
        "--tree",
        t.to_str().unwrap(),
        "--results",
        &format!("leaffix={}", npy.display()),
    ]);
    assert!(
        text(&o.stderr).contains("shape [10], but the tree has 300 vertices"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn the_dump_has_every_vertex_with_its_error_and_flags() {
    let dir = scratch("dump");
    let tree = dir.join("t.txt");
    std::fs::write(&tree, "0 -1 5\n1 0 0\n2 1 1\n3 1 -1\n4 0 4\n").unwrap();
    let r = dir.join("r.csv");
    std::fs::write(
        &r,
        "vertex,op,result\n0,leaffix,9\n1,leaffix,0.5\n2,leaffix,1\n3,leaffix,nan\n4,leaffix,4\n",
    )
    .unwrap();
    let o = accuracy(&[
        "score",
        "--ops",
        "leaffix",
        "--tree",
        tree.to_str().unwrap(),
        "--results",
        r.to_str().unwrap(),
        "--dump",
        "-",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut rd = csv::Reader::from_reader(&o.stdout[..]);
    let header: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    let col = |h: &str| header.iter().position(|x| x == h).unwrap();
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 5);
    let flags: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                &r[col("flagged")],
                &r[col("nonfinite")],
                &r[col("over_any_order")],
            )
        })
        .collect();
    assert_eq!(
        flags,
        [
            ("0", "0", "0"),
            ("1", "0", "1"),
            ("0", "0", "0"),
            ("0", "1", "1"),
            ("0", "0", "0")
        ]
    );
    assert_eq!(&rows[1][col("lost_bits")], "inf");
    assert_eq!(&rows[1][col("reference_f32")], "0");
    // The tables went to stderr, the dump alone to stdout.
    assert!(text(&o.stderr).contains("which error bounds"));
}

#[test]
fn results_in_f16_and_bf16_are_graded_in_their_format() {
    use treefix_accuracy::{Arithmetic, Precision};
    let dir = scratch("formats");
    let (tree, _) = instance("prufer", 400, 1e3, 9);
    for (storage, descr) in [(Precision::F16, "<f2"), (Precision::Bf16, "<V2")] {
        // Magnitudes up to 40: subtree sums in the thousands, where f16 keeps 1 or 2 bits
        // of a fraction.
        let w: Vec<f32> = (0..400)
            .map(|i| storage.round_f32(((i * 7919 % 1013) as f32 - 400.0) * 0.0397))
            .collect();
        let t = parent_file(&dir, &tree, &w);
        let arith = Arithmetic::same(storage);
        let values = treefix_accuracy::treefix_in(
            &tree,
            &w,
            (Op::Leaffix, arith),
            Algorithm::SEQUENTIAL,
            &treefix_accuracy::Cpu,
        )
        .unwrap();
        let bits: Vec<u16> = values
            .iter()
            .map(|&x| match storage {
                Precision::F16 => half::f16::from_f32(x).to_bits(),
                _ => half::bf16::from_f32(x).to_bits(),
            })
            .collect();
        let npy = dir.join("l.npy");
        std::fs::write(
            &npy,
            npy_of(descr, bits.len(), bits.iter().flat_map(|b| b.to_le_bytes())),
        )
        .unwrap();
        // Printed with the format's own round-trip digits, as numpy prints a float16.
        let csv = csv_file(&dir, "l.csv", "leaffix", &values, |x| {
            format!("{:.4e}", x as f64)
        });
        let score = |results: &str, precision: &str| {
            accuracy(&[
                "score",
                "--ops",
                "leaffix",
                "--tree",
                t.to_str().unwrap(),
                "--results",
                results,
                "--precision",
                precision,
                "--json",
                "-",
            ])
        };
        let npy_arg = format!("leaffix={}", npy.display());
        let json = |o: std::process::Output| -> serde_json::Value {
            assert!(o.status.success(), "{storage}: {}", text(&o.stderr));
            serde_json::from_slice(&o.stdout).unwrap()
        };
        let name = storage.to_string();
        let from_npy = json(score(&npy_arg, &name));
        let from_csv = json(score(csv.to_str().unwrap(), &name));
        assert_eq!(from_npy["ops"], from_csv["ops"], "{storage}");
        let op = &from_npy["ops"][0];
        assert_eq!(from_npy["arithmetic"], serde_json::json!(name));
        // Graded against the exact treefix rounded to the format, in its ulps.
        let exact = treefix_accuracy::exact_in(&tree, &w, Op::Leaffix, storage).unwrap();
        let far = (0..values.len())
            .map(|v| (storage.ordinal(values[v] as f64) - storage.ordinal(exact[v] as f64)).abs())
            .max()
            .unwrap();
        assert!(far > 0, "{storage}: the sums in {storage} lose something");
        assert_eq!(op["max_ulps"], serde_json::json!(far), "{storage}");
        let worst_rel = op["max_rel_error"].as_f64().unwrap();
        assert_eq!(
            op["max_lost_bits"].as_f64().unwrap(),
            storage.lost_bits(worst_rel)
        );
        // The correctly rounded results, 0 ulps away.
        let exact_csv = csv_file(&dir, "x.csv", "leaffix", &exact, |x| format!("{x}"));
        let x = json(score(exact_csv.to_str().unwrap(), &name));
        assert_eq!(x["ops"][0]["max_ulps"], serde_json::json!(0));
        // The results are sequential's in this format: within its bounds in it, whose
        // bits are out of the format's p.
        let j = json(accuracy(&[
            "score",
            "--ops",
            "leaffix",
            "--tree",
            t.to_str().unwrap(),
            "--results",
            &npy_arg,
            "--precision",
            &name,
            "--algos",
            "sequential",
            "--json",
            "-",
        ]));
        let verdict = &j["ops"][0]["algorithms"][0];
        assert_eq!(verdict["algorithm"], serde_json::json!("sequential"));
        assert_eq!(
            verdict["within"],
            serde_json::json!(true),
            "{storage}: {verdict}"
        );
        let bits = verdict["max_bound_lost_bits"].as_f64().unwrap();
        assert!(
            bits >= op["max_lost_bits"].as_f64().unwrap() && bits < 24.0,
            "{storage}: the bound allows {bits} bits"
        );
    }
    // A value that is no f16 value, printed with more digits than an f16 has, is refused.
    let t = dir.join("tree.txt");
    let bad = csv_file(&dir, "bad.csv", "leaffix", &vec![0.1; 400], |x| {
        format!("{x:.9}")
    });
    let o = accuracy(&[
        "score",
        "--ops",
        "leaffix",
        "--tree",
        t.to_str().unwrap(),
        "--results",
        bad.to_str().unwrap(),
        "--precision",
        "f16",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("is no f16 value"),
        "{}",
        text(&o.stderr)
    );
    // A bfloat16 .npy is read as such only when the format is named.
    let npy = dir.join("l.npy");
    let o = accuracy(&[
        "score",
        "--ops",
        "leaffix",
        "--tree",
        t.to_str().unwrap(),
        "--results",
        &format!("leaffix={}", npy.display()),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--precision bf16"),
        "{}",
        text(&o.stderr)
    );
    // vectorial-compensated adds f32 pairs: its bounds do not judge a kernel adding in bf16.
    let o = accuracy(&[
        "score",
        "--ops",
        "leaffix",
        "--tree",
        t.to_str().unwrap(),
        "--results",
        &format!("leaffix={}", npy.display()),
        "--precision",
        "bf16",
        "--algos",
        "all",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("vectorial-compensated adds in f32 only"),
        "{}",
        text(&o.stderr)
    );
}
