//! Trees users bring, through the `accuracy` binary: run, sweep, stats and score on real files
//! (copies in generators/tests/data with their provenance), and every bad input a one-line
//! error with exit code 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn accuracy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("generators/tests/data")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("inputs-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn run_on_a_newick_tree_with_its_branch_lengths() {
    let dir = scratch("run");
    let dump = dir.join("nodes.csv");
    let o = accuracy(&[
        "run",
        "--tree",
        &data("ape_bird_families.nwk"),
        "--weights",
        "file",
        "--dump",
        dump.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.starts_with("ape_bird_families.nwk (newick, sha256 "),
        "{out}"
    );
    assert!(out.contains("n=272"), "{out}");
    // 272 vertices × 2 ops × every algorithm; leaves keep their names in the label column.
    let csv = std::fs::read_to_string(&dump).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 272 * 2 * analysis::Algorithm::ALL.len()
    );
    assert!(
        csv.lines()
            .skip(1)
            .any(|l| l.ends_with(",Struthionidae,0,")),
        "no leaf label"
    );
}

#[test]
fn sweep_over_files_names_them() {
    let dir = scratch("sweep");
    let o = accuracy(&[
        "sweep",
        "--tree",
        &data("unifrac_crawford.tre"),
        "--tree",
        &data("HB_494_bus.mtx.gz"),
        "--cond",
        "1e3,1e9",
        "--trees",
        "2",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    // 2 files × 2 targets × 2 draws × 3 algorithms × 2 ops.
    assert_eq!(csv.lines().count(), 1 + 2 * 2 * 2 * 3 * 2);
    assert!(csv.contains(",unifrac_crawford.tre,730,"));
    assert!(csv.contains(",HB_494_bus.mtx.gz,494,"));
    // Resuming re-reads the files; a changed file is refused.
    let copy = dir.join("tree.nwk");
    std::fs::copy(data("ape_bird_families.nwk"), &copy).unwrap();
    let out2 = dir.join("own");
    let args = [
        "sweep",
        "--tree",
        copy.to_str().unwrap(),
        "--weights",
        "file",
        "--quiet",
        "--out",
        out2.to_str().unwrap(),
    ];
    let o = accuracy(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The file's own weights: one tree, one row per algorithm × op.
    let rows = std::fs::read_to_string(out2.join("results.csv")).unwrap();
    assert_eq!(rows.lines().count(), 1 + 3 * 2);
    std::fs::write(&copy, "((a:1,b:2):3,c:4);\n").unwrap();
    let o = accuracy(&["sweep", "--quiet", "--resume", out2.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("SHA-256 changed"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn stats_prints_table_one() {
    let o = accuracy(&[
        "stats",
        &data("ape_bird_families.nwk"),
        &data("biopython_bats.nex"),
        &data("HB_494_bus.mtx.gz"),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let row = |name: &str| -> Vec<String> {
        out.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}: {out}"))
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    // file, format, vertices, leaves (counts from the data's own README).
    assert_eq!(row("ape_bird_families.nwk")[1..4], ["newick", "272", "137"]);
    assert_eq!(row("biopython_bats.nex")[1..4], ["nexus", "1315", "658"]);
    assert_eq!(row("HB_494_bus.mtx.gz")[1..3], ["mtx", "494"]);
    // mean branching = vertices / levels.
    let r = row("HB_494_bus.mtx.gz");
    let (n, levels, mean): (f64, f64, f64) = (
        r[2].parse().unwrap(),
        r[5].parse().unwrap(),
        r[6].parse().unwrap(),
    );
    assert!((n / levels - mean).abs() <= 0.05, "{r:?}");
}

/// A results file computed by a small implementation written here (not the toolkit's): a
/// recursive rootfix accumulated in f64 and rounded once, which no f32 algorithm beats, and a
/// sloppy one that drops the low 8 bits of every partial sum, which must fall outside every
/// algorithm's a priori bound.
#[test]
fn score_judges_an_independent_implementation() {
    let dir = scratch("score");
    // A random tree as a parent array, weights generated by the toolkit (gensum, κ 1e6).
    let n = 400usize;
    let mut parents = String::from("# vertex parent\n");
    let mut state = 12345u64;
    let mut parent = vec![usize::MAX; n];
    for (v, p) in parent.iter_mut().enumerate().skip(1) {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *p = (state >> 33) as usize % v;
    }
    for (v, p) in parent.iter().enumerate() {
        if *p == usize::MAX {
            parents += &format!("{v} -1\n");
        } else {
            parents += &format!("{v} {p}\n");
        }
    }
    let tree = dir.join("tree.txt");
    std::fs::write(&tree, parents).unwrap();
    let generated = accuracy(&["gen", "--n", &n.to_string(), "--cond", "1e6", "--seed", "4"]);
    assert!(generated.status.success());
    let w: Vec<f32> = text(&generated.stdout)
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let weights = dir.join("weights.txt");
    let wtext: String = w
        .iter()
        .enumerate()
        .map(|(v, x)| format!("{v} {x}\n"))
        .collect();
    std::fs::write(&weights, wtext).unwrap();

    let rootfix = |sloppy: bool| -> Vec<f32> {
        let mut r = vec![0f64; n];
        for v in 0..n {
            let up = if parent[v] == usize::MAX {
                0.0
            } else {
                r[parent[v]]
            };
            let s = up + w[v] as f64;
            r[v] = if sloppy {
                f64::from_bits(s.to_bits() & !((1u64 << 37) - 1)) // 16-bit mantissa
            } else {
                s
            };
        }
        r.iter().map(|&x| x as f32).collect()
    };
    let score = |values: &[f32], name: &str| -> String {
        let path = dir.join(name);
        let mut csv = String::from("vertex,op,result\n");
        for (v, x) in values.iter().enumerate() {
            csv += &format!("{v},rootfix,{x}\n");
        }
        std::fs::write(&path, csv).unwrap();
        let o = accuracy(&[
            "score",
            "--tree",
            tree.to_str().unwrap(),
            "--weights-file",
            weights.to_str().unwrap(),
            "--results",
            path.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let verdict = |out: &str, algo: &str| -> String {
        out.lines()
            .find(|l| l.starts_with("rootfix") && l.split_whitespace().nth(1) == Some(algo))
            .unwrap()
            .split_whitespace()
            .last()
            .unwrap()
            .to_string()
    };
    let good = score(&rootfix(false), "good.csv");
    let bad = score(&rootfix(true), "bad.csv");
    for algo in ["sequential", "parallel", "vectorial", "vectorial-seqscan"] {
        assert_eq!(verdict(&good, algo), "within", "{good}");
        assert_eq!(verdict(&bad, algo), "outside", "{bad}");
    }
    // Its own line reports the lost bits: the f64 one loses at most the final rounding's bit.
    let bits = |out: &str| -> f64 {
        out.lines()
            .find(|l| l.starts_with("rootfix") && l.split_whitespace().count() > 8)
            .unwrap()
            .split_whitespace()
            .nth(4)
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(bits(&good) <= 1.0, "{good}");
    assert!(bits(&bad) > 8.0, "{bad}");

    // Missing rows, unknown vertices and non-numbers are one-line errors.
    let bad_csv = dir.join("short.csv");
    std::fs::write(&bad_csv, "vertex,op,result\n0,rootfix,1\n7777,rootfix,2\n").unwrap();
    let o = accuracy(&[
        "score",
        "--tree",
        tree.to_str().unwrap(),
        "--weights-file",
        weights.to_str().unwrap(),
        "--results",
        bad_csv.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("short.csv:3: unknown vertex '7777'"),
        "{}",
        text(&o.stderr)
    );
}

/// Each bad input: exit code 2, one line naming the file (and line where there is one), no
/// panic, and no results.csv that could be mistaken for a finished sweep.
#[test]
fn bad_inputs_are_one_line_errors() {
    let dir = scratch("bad");
    let cases: &[(&str, &[u8], &str)] = &[
        ("unbalanced.nwk", b"((a:1,b:2):3;\n", "bad.nwk"),
        ("after.nwk", b"(a:1,b:2);xyz\n", ""),
        ("empty.nwk", b"", ""),
        ("nan.nwk", b"(a:NaN,b:2);\n", ""),
        ("inf.nwk", b"(a:1e39,b:2);\n", ""),
        ("word.nwk", b"(a:one,b:2);\n", ""),
        ("dup.txt", b"0 -1\n1 0\n1 0\n", ""),
        ("missing.txt", b"0 -1\n1 0\n3 1\n", ""),
        ("cycle.txt", b"0 -1\n1 2\n2 1\n", ""),
        ("roots.txt", b"0 -1\n1 -1\n", ""),
        ("self.txt", b"0 -1\n1 1\n", ""),
        ("range.txt", b"0 -1\n1 9\n", ""),
        (
            "header.mtx",
            b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
            "",
        ),
        ("noheader.mtx", b"2 2 1\n1 2 1.0\n", ""),
        (
            "index.mtx",
            b"%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 9 1.0\n",
            "",
        ),
    ];
    for (name, bytes, _) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = dir.join(format!("{name}.out"));
        // A number that is no valid weight is an error where it becomes one: with the file's
        // own weights (the tree itself reads, see `values_are_checked_where_they_are_weights`).
        let weights = if matches!(*name, "nan.nwk" | "inf.nwk") {
            "file"
        } else {
            "ones"
        };
        for args in [
            vec![
                "run",
                "--tree",
                path.to_str().unwrap(),
                "--weights",
                weights,
            ],
            vec![
                "sweep",
                "--tree",
                path.to_str().unwrap(),
                "--weights",
                weights,
                "--quiet",
                "--out",
                out.to_str().unwrap(),
            ],
        ] {
            let o = accuracy(&args);
            let e = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{name} {}: {e}", args[0]);
            assert!(!e.contains("panicked"), "{name}: {e}");
            let lines: Vec<&str> = e.lines().filter(|l| !l.starts_with("backend")).collect();
            assert_eq!(lines.len(), 1, "{name}: {e}");
            assert!(
                lines[0].starts_with("error: ") && lines[0].contains(name),
                "{name}: {e}"
            );
            assert!(
                !out.join("results.csv").exists(),
                "{name}: a results.csv was written"
            );
        }
    }
    // A truncated gzip stream: the reason names the byte offset or the truncation.
    let gz = std::fs::read(data("HB_494_bus.mtx.gz")).unwrap();
    let cut = dir.join("cut.mtx.gz");
    std::fs::write(&cut, &gz[..gz.len() / 2]).unwrap();
    let o = accuracy(&["stats", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("cut.mtx.gz"),
        "{}",
        text(&o.stderr)
    );
    // An output directory that cannot be created.
    let blocker = dir.join("file");
    std::fs::write(&blocker, "").unwrap();
    let under = blocker.join("out");
    let o = accuracy(&[
        "sweep",
        "--nodes",
        "10",
        "--points",
        "1",
        "--quiet",
        "--out",
        under.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("cannot write here"),
        "{}",
        text(&o.stderr)
    );
    // File weights without a tree file: refused before anything is written.
    let nothing = dir.join("nothing");
    let o = accuracy(&[
        "sweep",
        "--weights",
        "file",
        "--quiet",
        "--out",
        nothing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(!nothing.exists(), "a sweep directory was created");
    // A results file that does not exist.
    let missing = dir.join("missing.csv");
    let o = accuracy(&[
        "score",
        "--tree",
        &data("ape_bird_families.nwk"),
        "--results",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("missing.csv: cannot read"),
        "{}",
        text(&o.stderr)
    );
}

/// A Matrix Market file with one f32-subnormal value on a tree edge (as SuiteSparse's
/// Grund/bayer10, VDOL/hangGlider_2 and Sandia/adder_dcop_05 have): its shape is usable
/// everywhere; its own weights are refused unless `--subnormal flush`, which reports the count.
#[test]
fn values_are_checked_where_they_are_weights() {
    let dir = scratch("subnormal");
    let g = dir.join("g.mtx");
    std::fs::write(
        &g,
        "%%MatrixMarket matrix coordinate real general\n4 4 3\n2 1 1.5\n3 2 1e-40\n4 2 2\n",
    )
    .unwrap();
    let g = g.to_str().unwrap();
    let o = accuracy(&["stats", g]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("own"), "{}", text(&o.stdout));
    let o = accuracy(&[
        "run",
        "--tree",
        g,
        "--weights",
        "ones",
        "--algos",
        "parallel",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The file's own weights: the value is refused, with the way through.
    let o = accuracy(&[
        "run",
        "--tree",
        g,
        "--weights",
        "file",
        "--algos",
        "parallel",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with(&format!(
            "error: {g}:4:5: value '1e-40' is nonzero but below"
        )),
        "{e}"
    );
    assert!(
        e.trim_end()
            .ends_with("; --subnormal flush reads such weights as zero"),
        "{e}"
    );
    let flush = [
        "run",
        "--tree",
        g,
        "--weights",
        "file",
        "--subnormal",
        "flush",
        "--algos",
        "parallel",
    ];
    let o = accuracy(&flush);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!(
            "{g}: 1 subnormal weight(s) flushed to zero (--subnormal flush)"
        )),
        "{}",
        text(&o.stderr)
    );
    assert!(
        text(&o.stdout).contains(" n=4 weights=file subnormal-flushed=1 "),
        "{}",
        text(&o.stdout)
    );
    // A sweep records the mode, so that its resume reads the file the same way.
    let out = dir.join("sweep");
    let o = accuracy(&[
        "sweep",
        "--tree",
        g,
        "--weights",
        "file",
        "--subnormal",
        "flush",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = accuracy(&["sweep", "--quiet", "--resume", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// A weights file: how its keys were matched on stderr, its name in `run`'s header, and a key
/// that reads both as a label and as another vertex's id refused.
#[test]
fn weights_files_say_how_keys_matched() {
    let dir = scratch("keys");
    // Preorder ids: 0 = root "7", 1 = internal "1", 2 = x, 3 = y, 4 = leaf "2".
    let t = dir.join("t.nwk");
    std::fs::write(&t, "((x:1,y:2)1:1,2:1)7;\n").unwrap();
    let w = dir.join("counts.tsv");
    std::fs::write(&w, "x 3\ny 4\n0 1\n").unwrap();
    let (t, w) = (t.to_str().unwrap(), w.to_str().unwrap());
    let o = accuracy(&[
        "run",
        "--tree",
        t,
        "--weights-file",
        w,
        "--algos",
        "parallel",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!(
            "{w}: 2 key(s) matched by label, 1 by vertex id (preorder of the tree file)"
        )),
        "{}",
        text(&o.stderr)
    );
    assert!(
        text(&o.stdout).contains(" n=5 weights=file:counts.tsv "),
        "{}",
        text(&o.stdout)
    );
    let bad = dir.join("bad.tsv");
    std::fs::write(&bad, "x 3\n2 4\n").unwrap();
    let o = accuracy(&["run", "--tree", t, "--weights-file", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr).trim_end(),
        format!(
            "error: {}:2:1: key '2' is ambiguous: the label of vertex 4, and the id of vertex 2 \
             (0..n-1 in preorder of the file)",
            bad.display()
        )
    );
}

/// Generated weights that a tree file cannot carry: the error names the file.
#[test]
fn gensum_on_a_one_vertex_tree_file_names_it() {
    let dir = scratch("one");
    let t = dir.join("one.nwk");
    std::fs::write(&t, "a:1;\n").unwrap();
    let t = t.to_str().unwrap();
    let want =
        format!("error: {t}: gensum weights: cannot generate a sum of 1 values (need at least 2)");
    let out = dir.join("sweep");
    for args in [
        vec!["run", "--tree", t, "--weights", "gensum"],
        vec![
            "score",
            "--tree",
            t,
            "--weights",
            "gensum",
            "--results",
            "R.csv",
        ],
        vec![
            "sweep",
            "--tree",
            t,
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
    ] {
        let o = accuracy(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        let e = text(&o.stderr);
        assert!(e.lines().any(|l| l == want), "{args:?}: {e}");
    }
}

/// What lies under the formats, through the binary: a byte-order mark is read, gzip with
/// trailing bytes, an absurd entry count and sparse vertex ids name what is really wrong.
#[test]
fn readers_name_what_is_really_wrong() {
    let dir = scratch("wrong");
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    let bom = write(
        "bom.nex",
        b"\xEF\xBB\xBF#NEXUS\nbegin trees; tree t = (a,b); end;\n",
    );
    let o = accuracy(&["stats", &bom]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("nexus"), "{}", text(&o.stdout));
    // A real gzip file with bytes after it (zero padding, as some tools leave).
    let mut gz = std::fs::read(data("HB_494_bus.mtx.gz")).unwrap();
    let at = gz.len();
    gz.extend_from_slice(b"\0\0\0\0");
    let gz = write("bus.mtx.gz", &gz);
    let mtx = write(
        "big.mtx",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1000000000000\n2 1\n3 2\n",
    );
    // Taxonomy-like ids, sorted and sparse: the root 1, then 2 and every multiple of 3.
    let ids: Vec<u64> = [1, 2]
        .into_iter()
        .chain((3..2000).filter(|i| i % 3 == 0))
        .collect();
    let n = ids.len() as u64;
    let lines: String = ids
        .iter()
        .map(|&i| {
            if i == 1 {
                "1 -1\n".into()
            } else {
                format!("{i} 1\n")
            }
        })
        .collect();
    let missing = (1..=n).find(|k| !ids.contains(k)).unwrap();
    // The first line a user must fix, not the last line (the largest id).
    let (line, id) = (1..)
        .zip(&ids)
        .find(|&(_, &i)| i > n)
        .map(|(l, &i)| (l, i))
        .unwrap();
    assert!(line < n);
    let ids = write("taxa.txt", lines.as_bytes());
    for (file, want) in [
        (
            &gz,
            format!(
                "{gz}: byte {at}: 4 trailing bytes after the gzip stream (they do not start \
                 another gzip member)"
            ),
        ),
        (
            &mtx,
            format!(
                "{mtx}:2:1: the size line declares 1000000000000 entries, but only 2 lines \
                 follow it"
            ),
        ),
        (
            &ids,
            format!(
                "{ids}:{line}:1: missing vertex {missing}: ids must run 1..={n}, but this line \
                 has vertex {id}"
            ),
        ),
    ] {
        let o = accuracy(&["stats", file]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        let e = text(&o.stderr);
        assert_eq!(e.lines().next(), Some(format!("error: {want}").as_str()));
    }
}
