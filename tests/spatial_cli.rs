//! `accuracy spatial` end to end beyond its tables (docs/design.md §12.8): batched LCA's
//! answers written and checked, ties named, one vertex, many layouts summarised, the layout's
//! construction in the answer, the memory preflight, and the lock on its outputs.

mod common;
use analysis::records::spatial::SpatialRecord;
use analysis::spatial::lifting::BinaryLifting;
use common::{accuracy, scratch, stderr};
use generators::{ChildOrder, Topology};
use std::path::Path;

fn read_json(p: &Path) -> SpatialRecord {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// The answers file: (u, v, lca) per line after the header.
fn answers(p: &Path) -> Vec<(u32, u32, u32)> {
    let text = std::fs::read_to_string(p).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("u,v,lca"));
    lines
        .map(|l| {
            let f: Vec<u32> = l.split(',').map(|x| x.parse().unwrap()).collect();
            (f[0], f[1], f[2])
        })
        .collect()
}

/// `--lca-random K` and `--lca FILE` write the answers of the replay that counts the messages,
/// which equal binary lifting's on the same tree; a bad queries file is one line, exit 2.
#[test]
fn lca_answers_are_written_and_right() {
    let dir = scratch("lca");
    let (out, json) = (dir.join("a.csv"), dir.join("a.json"));
    let o = accuracy(&[
        "spatial",
        "--topology",
        "random-recursive",
        "--nodes",
        "3000",
        "--order",
        "light-first,depth-first,breadth-first",
        "--seed",
        "4",
        "--lca-random",
        "20000",
        "--lca-out",
        out.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let tree = Topology::RandomRecursive
        .generate(3000, ChildOrder::Natural, &mut generators::rng(4))
        .unwrap();
    let reference = BinaryLifting::new(&tree);
    let got = answers(&out);
    assert_eq!(got.len(), 20_000);
    for &(u, v, a) in &got {
        assert_eq!(a, reference.lca(u, v), "({u}, {v})");
    }
    let r = read_json(&json);
    let q = r.lca_queries.expect("the queries are recorded");
    assert_eq!(
        (q.queries, q.source.as_str()),
        (20_000, "random 20000 (seed 4)")
    );
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(stdout.contains("batched LCA: 20000 queries"), "{stdout}");
    // A file of chosen pairs: u = v, ancestor and descendant, the root.
    let queries = dir.join("q.csv");
    let deep = (0..3000u32).max_by_key(|&v| tree.depth(v)).unwrap();
    let parent = tree.parent(deep).unwrap();
    let pairs = [
        (5, 5),
        (0, deep),
        (deep, parent),
        (parent, deep),
        (deep, 17),
    ];
    let mut text = String::from("u,v\n# chosen\n");
    for (u, v) in pairs {
        text += &format!("{u},{v}\n");
    }
    std::fs::write(&queries, text).unwrap();
    let o = accuracy(&[
        "spatial",
        "--topology",
        "random-recursive",
        "--nodes",
        "3000",
        "--seed",
        "4",
        "--lca",
        queries.to_str().unwrap(),
        "--lca-out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = answers(&out);
    assert_eq!(got.len(), pairs.len());
    for (&(u, v), &(gu, gv, a)) in pairs.iter().zip(&got) {
        assert_eq!((gu, gv, a), (u, v, reference.lca(u, v)));
    }
    // Refusals: a vertex out of range, no --lca-out, two trees, breadth-first only.
    std::fs::write(&queries, "0,1\n2,3000\n").unwrap();
    let q = queries.to_str().unwrap();
    let o_ = out.to_str().unwrap();
    for (args, says) in [
        (
            vec!["--nodes", "3000", "--lca", q, "--lca-out", o_],
            "line 2: vertex 3000 is not in the tree",
        ),
        (vec!["--nodes", "3000", "--lca-random", "5"], "--lca-out"),
        (
            vec!["--nodes", "300,3000", "--lca-random", "5", "--lca-out", o_],
            "one tree",
        ),
        (
            vec![
                "--nodes",
                "300",
                "--order",
                "breadth-first",
                "--lca-random",
                "5",
                "--lca-out",
                o_,
            ],
            "preorder layout",
        ),
    ] {
        let mut all = vec!["spatial", "--topology", "random-recursive"];
        all.extend(args);
        let o = accuracy(&all);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{all:?}: {e}");
        assert!(e.contains(says), "{all:?}: {e}");
        assert_eq!(
            e.lines().filter(|l| l.starts_with("error")).count(),
            1,
            "{e}"
        );
    }
}

/// Layouts that tie (on a chain, depth-, light- and heavy-first are one preorder) are named
/// together, never the first as if it were the best; the lost bits are the layout's own.
#[test]
fn ties_between_layouts_are_said() {
    let dir = scratch("ties");
    let json = dir.join("t.json");
    let o = accuracy(&[
        "spatial",
        "--topology",
        "chain",
        "--nodes",
        "2000",
        "--order",
        "light-first,depth-first,heavy-first",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_json(&json);
    for a in &r.answer {
        assert_eq!(
            a.tied,
            ["depth-first hilbert", "heavy-first hilbert"],
            "{} {}",
            a.algorithm,
            a.op
        );
    }
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("light-first hilbert, tied with depth-first hilbert, heavy-first hilbert"),
        "{out}"
    );
    assert!(out.contains("(+2 tied)"), "{out}");
}

/// One vertex: the counts need no weights (gensum cannot make one value), and nothing divides
/// by a zero energy ("NaN×"); `--weights ones` likewise.
#[test]
fn one_vertex_is_counted() {
    for weights in ["gensum", "ones"] {
        let o = accuracy(&[
            "spatial",
            "--topology",
            "chain",
            "--nodes",
            "1",
            "--weights",
            weights,
        ]);
        let (e, out) = (stderr(&o), String::from_utf8(o.stdout).unwrap());
        assert!(o.status.success(), "{weights}: {e}");
        assert!(
            !out.contains("NaN") && !out.contains("inf"),
            "{weights}: {out}"
        );
        assert!(out.contains("chain n=1 "), "{out}");
        if weights == "gensum" {
            assert!(e.contains("lost bits not measured"), "{e}");
        }
    }
}

/// 4 orders × 4 curves: the terminal gets a line per pattern (its least and most energy
/// layouts), the JSON every row.
#[test]
fn many_layouts_are_summarised() {
    let dir = scratch("many");
    let json = dir.join("m.json");
    let o = accuracy(&[
        "spatial",
        "--topology",
        "prufer",
        "--nodes",
        "2^9,2^10",
        "--order",
        "breadth-first,depth-first,light-first,heavy-first",
        "--curve",
        "row-major,z,hilbert,peano",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("16 layouts × 15 patterns: 240 rows, every one in the JSON"),
        "{out}"
    );
    // The table: a heading, the summary's two lines and one per pattern; then the answer.
    let table = out.split("answer at").next().unwrap();
    assert_eq!(table.lines().count(), 3 + 15, "{table}");
    let r = read_json(&json);
    assert_eq!(r.layouts.len(), 16);
    assert!(r.layouts.iter().all(|l| l.patterns.len() == 15));
}

/// The layout's construction is a pattern of its own, in the JSON and the answer: every
/// preorder layout has its energy and depth, and the answer prices the cheapest layout with it.
#[test]
fn the_construction_is_priced() {
    let dir = scratch("construction");
    let json = dir.join("c.json");
    let o = accuracy(&[
        "spatial",
        "--topology",
        "kary:2",
        "--nodes",
        "2^10,2^12",
        "--order",
        "light-first,breadth-first",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_json(&json);
    for l in &r.layouts {
        for name in ["layout", "virtual-tree"] {
            let p = r.pattern(l.order, l.curve, name, None).unwrap();
            match (l.order.is_preorder(), name) {
                (false, "layout") => assert!(p.not_applicable.is_some()),
                _ => {
                    assert_eq!(p.points.len(), 2, "{} {name}", l.order);
                    assert!(p.points.iter().all(|q| q.energy > 0 && q.depth > 0));
                }
            }
        }
    }
    for a in &r.answer {
        let lf = a.order.is_preorder();
        assert_eq!(
            a.construction_energy_per_vertex.is_some(),
            lf,
            "{}",
            a.algorithm
        );
    }
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("from the input costs"), "{out}");
}

/// `spatial` refuses a tree that would not fit before generating it, with the estimate: at
/// 2^31 vertices at once, and at 2^26 under a 4 GB address-space limit it is refused or
/// completes, never the allocator's out-of-memory line after seconds of work.
#[cfg(target_os = "linux")]
#[test]
fn a_tree_too_large_is_refused_up_front() {
    let limited = |nodes: &str| {
        std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 4000000 && exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_accuracy"))
            .args(["spatial", "--topology", "chain", "--nodes", nodes])
            .output()
            .unwrap()
    };
    let t = std::time::Instant::now();
    let o = accuracy(&["spatial", "--topology", "chain", "--nodes", "2^31"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.starts_with("error: spatial: needs about "), "{e}");
    assert!(
        e.contains("for 2147483648 vertices (chain, 1 curve, 2 ops)"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        t.elapsed().as_secs_f64() < 5.0,
        "refused only after {:?}",
        t.elapsed()
    );
    let o = limited("2^26");
    let e = stderr(&o);
    match o.status.code() {
        Some(0) => {}
        Some(2) => assert!(e.starts_with("error: spatial: needs about "), "{e}"),
        c => panic!("exit {c:?}: {e}"),
    }
    assert!(!e.contains("out of memory"), "{e}");
}

/// Two runs on one output: the second is refused while the first holds it (whatever its
/// parameters), one line naming the holder, exit 2; the first's result stands.
#[cfg(unix)]
#[test]
fn a_second_run_on_the_same_output_is_refused() {
    let dir = scratch("lock");
    let json = dir.join("s.json");
    let lock = dir.join(".s.json.lock");
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .args([
            "spatial",
            "--topology",
            "prufer",
            "--nodes",
            "2^14,2^15,2^16,2^17",
        ])
        .args(["--order", "light-first,depth-first", "--json"])
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The holder writes its pid into the lock file once it holds it.
    let pid = first.id().to_string();
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.starts_with(&pid)) {
        assert!(
            first.try_wait().unwrap().is_none(),
            "finished before the test"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let o = accuracy(&[
        "spatial",
        "--topology",
        "chain",
        "--nodes",
        "100",
        "--json",
        json.to_str().unwrap(),
    ]);
    let running = first.try_wait().unwrap().is_none();
    let e = stderr(&o);
    assert!(running, "the first run ended before the second was refused");
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains(&format!(
            "s.json: written by another accuracy process (pid {pid}, accuracy spatial)"
        )),
        "{e}"
    );
    assert!(first.wait().unwrap().success());
    let r = read_json(&json);
    assert_eq!(r.trees[0].name, "prufer");
}

/// The preflight's estimate (`treefix_accuracy::spatial::memory`) bounds the measured peak of
/// a run and stays within twice it, on the families whose counts take most.
#[cfg(unix)]
#[test]
fn the_memory_model_bounds_a_measured_peak() {
    use common::peak::peak_of;
    use treefix_accuracy::spatial::memory::estimate;
    for topology in ["prufer", "chain"] {
        let n = 1u64 << 19;
        let peak = peak_of(
            std::process::Command::new(env!("CARGO_BIN_EXE_accuracy")).args([
                "spatial",
                "--topology",
                topology,
                "--nodes",
                &n.to_string(),
            ]),
        );
        assert_eq!(peak.code, Some(0), "{topology}");
        let e = estimate(n, topology, 1, 2, 0).bytes;
        let ratio = e as f64 / peak.rss as f64;
        eprintln!(
            "{topology}, {n} vertices: estimate {e} B, peak {} B: {ratio:.2}",
            peak.rss
        );
        assert!(
            (1.0..=2.0).contains(&ratio),
            "the spatial memory model is stale: {e} B estimated, {} B measured ({ratio:.2})",
            peak.rss
        );
    }
}
