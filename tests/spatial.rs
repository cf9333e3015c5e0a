//! Trees on a spatial computer (docs/design.md §12): energy and depth counted on tiny trees by
//! hand, the seed's theorems at sizes CI affords, and `accuracy spatial` end to end (batched LCA:
//! tests/spatial_lca.rs).

mod common;
use analysis::records::spatial::SpatialRecord;
use analysis::spatial::virtual_tree::VirtualTree;
use analysis::spatial::{Curve, Laid, LinearOrder, Pattern, fit};
use analysis::{Algorithm, Op};
use common::html::{assert_every_char_in_the_font, assert_self_contained, parse, sel};
use common::spatial::{cost, costs, find, real_trees};
use common::{accuracy, scratch, stderr};
use generators::{ChildOrder, NO_PARENT, Topology, Tree};
use std::path::Path;

/// The chain 0 – 1 – 2 – 3 on the 2 × 2 Hilbert grid: positions 0, 1, 2, 3 at (0,0), (0,1),
/// (1,1), (1,0), so the distances are 1 between neighbours, 2 across (0–2, 1–3), 1 for 0–3.
/// Every count below is worked out message by message in the comments.
#[test]
fn energy_on_a_chain_of_four_by_hand() {
    let chain = Tree::from_parents(vec![NO_PARENT, 0, 1, 2], ChildOrder::Natural).unwrap();
    let c = costs(&chain, LinearOrder::LightFirst, Curve::Hilbert, 3);
    // Local: 3 edges of distance 1, down then up; one phase each way.
    assert_eq!(find(&c, Pattern::Local), (6, 2, 6));
    // Parallel: one level per phase, 3 messages of distance 1 either way.
    let par = |op| Pattern::Treefix(Algorithm::PARALLEL, op);
    assert_eq!(find(&c, par(Op::Rootfix)), (3, 3, 3));
    assert_eq!(find(&c, par(Op::Leaffix)), (3, 3, 3));
    // Euler tour, open = [0,1,2,3], close = [7,6,5,4]: tour position t on processor t/2.
    // Rootfix writes: v0 → 3 (1), v1 → 0 (1) and → 3 (2), v2 → 1 (1), v3 → 1 (2) and → 2 (1),
    // v0 → 0 and v2 → 2 are local: 8. Scan of 4 positions: 1, 2, 3 → 0 and back: 2 × (1+2+1).
    // Reads S[open v]: 0 → 1 (1), 1 → 2 (1), 1 → 3 (2): 4. Depth: write, up, down, read.
    let vec = |a, op| Pattern::Treefix(a, op);
    assert_eq!(
        find(&c, vec(Algorithm::VECTORIAL, Op::Rootfix)),
        (8 + 8 + 4, 4, 6 + 6 + 3)
    );
    // Scan values of 2 (float-float) and 3 words (the limbs given); rootfix reads 1 word.
    assert_eq!(
        find(&c, vec(Algorithm::VECTORIAL_COMPENSATED, Op::Rootfix)).0,
        8 + 2 * 8 + 4
    );
    assert_eq!(
        find(&c, vec(Algorithm::VECTORIAL_EXACT, Op::Rootfix)).0,
        8 + 3 * 8 + 4
    );
    // Leaffix writes the opens only: v1 → 0 (1), v2 → 1 (1), v3 → 1 (2): 4. Reads S[close v]
    // and S[open v − 1]: v0 from 3 (1); v1 from 3 (2), 0 (1); v2 from 2 (local), 0 (2);
    // v3 from 2 (1), 1 (2): 9, with scan values (L words for vectorial-exact).
    assert_eq!(
        find(&c, vec(Algorithm::VECTORIAL, Op::Leaffix)),
        (4 + 8 + 9, 4, 3 + 6 + 6)
    );
    assert_eq!(
        find(&c, vec(Algorithm::VECTORIAL_EXACT, Op::Leaffix)).0,
        4 + 3 * 8 + 3 * 9
    );
}

/// The star 0(1, 2, 3), light-first (ties by id), on the same grid.
#[test]
fn energy_on_a_star_of_four_by_hand() {
    let star = Tree::from_parents(vec![NO_PARENT, 0, 0, 0], ChildOrder::Natural).unwrap();
    let c = costs(&star, LinearOrder::LightFirst, Curve::Hilbert, 1);
    // Virtual tree: the children split into {1} and {2, 3}: 0 → 1 and 0 → 2, then 2 → 3:
    // distances 1, 2, 1; broadcast in 2 phases, reduce in 2.
    assert_eq!(find(&c, Pattern::Local), (8, 4, 6));
    // Parallel goes straight along the edges: 0 → 1, 2, 3 at 1, 2, 1, in one phase; under the
    // per-round limit the root sends them in rounds 1, 2, 3.
    let par = Pattern::Treefix(Algorithm::PARALLEL, Op::Rootfix);
    assert_eq!(find(&c, par), (4, 1, 3));
    assert_eq!((cost(&c, par).depth, cost(&c, par).congestion), (3, 3));
    // Contraction: one round, one rake of 1, 2, 3 into 0. Control: 0 → 1, then the pairwise
    // tree 1 → 3 (2), 1 → 2 (1): 4. Leaffix rake, pairwise: 2 → 1 (1), 3 → 1 (2), 1 → 0 (1):
    // 4; depth: control 2, then 3 → 1 at 3, 1 → 0 at 4.
    let con = |op| Pattern::Treefix(Algorithm::CONTRACTION, op);
    assert_eq!(find(&c, con(Op::Leaffix)), (8, 4, 6));
    // Rootfix: the same control, the rake broadcasts Q[0] (0 → 1, 1 → 3, 1 → 2): 4; nothing
    // to undo below the root. The broadcast waits for no control message: depth 2.
    assert_eq!(find(&c, con(Op::Rootfix)), (8, 2, 6));
    // LCA: sizes (contraction leaffix: 8, depth 4), ranges along the virtual tree (2 words:
    // 8, depth 2), layers (contraction rootfix: 8, depth 2), then layer 1 (paths rooted at 1
    // and 2; 3 is the heavy child): ranges of one vertex (nothing to broadcast), and the
    // all-reduce barrier (the scan's 8 in 6 messages, depth 2).
    assert_eq!(
        find(&c, Pattern::Lca),
        (8 + 8 + 8 + 8, 4 + 2 + 2 + 2, 6 + 3 + 6 + 6)
    );
}

/// The seed's model limits the messages a processor sends and receives per round: `parallel`
/// on a star, whose root reaches every leaf itself, takes n − 1 rounds (chain depth 1), and
/// the congestion says why; local messaging through the virtual tree stays logarithmic.
#[test]
fn a_star_serialises_parallel_but_not_the_virtual_tree() {
    for n in [1 << 8, 1 << 12] {
        let star = Topology::Star
            .generate(n, ChildOrder::Natural, &mut generators::rng(1))
            .unwrap();
        let c = costs(&star, LinearOrder::LightFirst, Curve::Hilbert, 1);
        for op in Op::ALL {
            let par = cost(&c, Pattern::Treefix(Algorithm::PARALLEL, op));
            assert_eq!(par.chain_depth, 1, "{op}");
            assert_eq!(
                (par.depth, par.congestion),
                (n as u64 - 1, n as u64 - 1),
                "{op}"
            );
        }
        let local = cost(&c, Pattern::Local);
        let log = (n as f64).log2() as u64;
        assert!(local.congestion <= 4, "{}", local.congestion);
        assert!(local.depth <= 4 * (log + 1), "n={n}: {}", local.depth);
        // Pointer jumping's reads of the root are a PRAM's concurrent read: n − 1 rounds.
        assert!(cost(&c, Pattern::PointerJumping).depth >= n as u64 - 1);
    }
}

/// The seed's Lemma 8 on the construction the project uses: the virtual tree of a light-first
/// layout is in light-first order (every virtual subtree a contiguous range starting at its
/// root, virtual children by non-decreasing size), on every family at several sizes and on
/// every real tree.
#[test]
fn lemma_eight_the_virtual_tree_of_a_light_first_layout_is_light_first() {
    let mut topologies = Topology::all_defaults();
    topologies.push("kary:2".parse().unwrap());
    let mut trees: Vec<(String, Tree)> = Vec::new();
    for topo in &topologies {
        for n in [1, 2, 3, 7, 100, 5000, 1 << 15] {
            let t = topo
                .generate(n, ChildOrder::Natural, &mut generators::rng(n as u64))
                .unwrap();
            trees.push((format!("{topo} n={n}"), t));
        }
    }
    trees.extend(real_trees());
    for (name, t) in &trees {
        let laid = Laid::new(t, LinearOrder::LightFirst);
        VirtualTree::new(&laid.tree)
            .check_light_first()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// The seed's claims at sizes a test affords (2^9 … 2^15; the full range 2^10 … 2^22 is
/// docs/design.md §12.9's measurement): light-first local messaging grows linearly on Hilbert
/// and Z-order on every family; breadth-first on a perfect binary tree and heavy-first on a
/// caterpillar grow like n^1.5 on Hilbert.
#[test]
fn theorems_one_and_two_at_small_sizes() {
    let exponent = |topo: &Topology, order: LinearOrder, curve: Curve| {
        let pts: Vec<(f64, f64)> = [1 << 9, 1 << 11, 1 << 13, 1 << 15]
            .iter()
            .map(|&n| {
                let t = topo
                    .generate(n, ChildOrder::Natural, &mut generators::rng(3))
                    .unwrap();
                (
                    n as f64,
                    find(&costs(&t, order, curve, 1), Pattern::Local).0 as f64,
                )
            })
            .collect();
        fit::exponent(&pts).unwrap().0
    };
    let mut topologies = Topology::all_defaults();
    topologies.push("kary:2".parse().unwrap());
    for topo in &topologies {
        for curve in [Curve::Hilbert, Curve::Morton] {
            let b = exponent(topo, LinearOrder::LightFirst, curve);
            assert!(b <= 1.05, "{topo} light-first {curve}: exponent {b:.3}");
        }
    }
    let binary: Topology = "kary:2".parse().unwrap();
    let b = exponent(&binary, LinearOrder::BreadthFirst, Curve::Hilbert);
    assert!(b >= 1.4, "kary:2 breadth-first: {b:.3}");
    let b = exponent(
        &Topology::CaterpillarLegs,
        LinearOrder::HeavyFirst,
        Curve::Hilbert,
    );
    assert!(b >= 1.4, "caterpillar-legs heavy-first: {b:.3}");
}

/// The PRAM simulation's price (seed 002): pointer-jumping rootfix on a chain, light-first on
/// Hilbert, grows like n^1.5 (each step's reads span 2^k positions), while the seed's own
/// treefix, contraction, stays near-linear on the same layout.
#[test]
fn a_pram_treefix_costs_n_to_the_one_and_a_half() {
    let chain = Topology::Chain;
    let fit_of = |p: Pattern| {
        let pts: Vec<(f64, f64)> = [1 << 9, 1 << 11, 1 << 13, 1 << 15]
            .iter()
            .map(|&n| {
                let t = chain
                    .generate(n, ChildOrder::Natural, &mut generators::rng(3))
                    .unwrap();
                let c = costs(&t, LinearOrder::LightFirst, Curve::Hilbert, 1);
                (n as f64, find(&c, p).0 as f64)
            })
            .collect();
        fit::exponent(&pts).unwrap().0
    };
    let pram = fit_of(Pattern::PointerJumping);
    let contraction = fit_of(Pattern::Treefix(Algorithm::CONTRACTION, Op::Rootfix));
    assert!(
        pram >= 1.4,
        "pointer jumping on a chain: exponent {pram:.3}"
    );
    assert!(
        contraction <= 1.1,
        "contraction on a chain: exponent {contraction:.3}"
    );
}

#[test]
fn cli_writes_json_and_html() {
    let dir = scratch("cli");
    let (json, html) = (dir.join("s.json"), dir.join("s.html"));
    let o = accuracy(&[
        "spatial",
        "--topology",
        "kary:2",
        "--nodes",
        "2^8..2^10,3000",
        "--order",
        "breadth-first,light-first",
        "--curve",
        "hilbert,z",
        "--weights",
        "uniform",
        "--json",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("exponent"), "{out}");
    let r: SpatialRecord = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(r.format_version, 2);
    assert_eq!(
        r.trees.iter().map(|t| t.n).collect::<Vec<_>>(),
        [256, 512, 1024, 3000]
    );
    assert_eq!(r.layouts.len(), 4);
    for l in &r.layouts {
        // layout, virtual tree, local, 5 algorithms × 2 ops, pointer jumping, lca.
        assert_eq!(l.patterns.len(), 15);
        for p in &l.patterns {
            if (p.pattern == "lca" || p.pattern == "layout") && l.order == LinearOrder::BreadthFirst
            {
                assert!(p.not_applicable.is_some() && p.points.is_empty());
                continue;
            }
            for q in &p.points {
                assert!(q.depth >= q.chain_depth, "{} {}", l.order, p.pattern);
                assert!(q.cycles > 0.0 || q.energy == 0, "{} {}", l.order, p.pattern);
            }
            assert_eq!(p.points.len(), 4, "{} {}", l.order, p.pattern);
            assert!(p.exponent.is_some());
            let bits = p.points.iter().all(|q| q.lost_bits.is_some());
            assert_eq!(bits, p.op.is_some(), "{}", p.pattern);
        }
    }
    let bfs = r.pattern(LinearOrder::BreadthFirst, Curve::Hilbert, "local", None);
    let lf = r.pattern(LinearOrder::LightFirst, Curve::Hilbert, "local", None);
    assert!(bfs.unwrap().exponent > lf.unwrap().exponent);
    let (text, doc) = parse(&html);
    assert_self_contained(&text);
    assert_every_char_in_the_font(&doc);
    assert_eq!(doc.select(&sel("#fig-spatial-local div.panel")).count(), 2);
    // Depth against n: a panel per pattern (on the first curve).
    assert_eq!(doc.select(&sel("#fig-spatial-depth div.panel")).count(), 15);
    assert!(doc.select(&sel("#spatial-table tr")).count() > 4 * 15);
}

#[test]
fn cli_one_tree_file_and_bad_input() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("generators/tests/data");
    let nwk = data.join("ape_bird_families.nwk");
    let o = accuracy(&[
        "spatial",
        "--tree",
        nwk.to_str().unwrap(),
        "--weights",
        "file",
        "--order",
        "light-first,breadth-first",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("ape_bird_families.nwk n=272"), "{out}");
    assert!(out.contains("not applicable"), "{out}");
    for args in [
        &["spatial", "--topology", "chain", "--nodes", "0"][..],
        &["spatial", "--topology", "chain", "--nodes", "2^5..2^3"],
        &[
            "spatial",
            "--topology",
            "chain",
            "--nodes",
            "10",
            "--curve",
            "spiral",
        ],
        &[
            "spatial",
            "--topology",
            "chain",
            "--nodes",
            "10",
            "--order",
            "random",
        ],
        &["spatial", "--topology", "chain"],
        &["spatial", "--tree", "/nonexistent/t.nwk"],
        &[
            "spatial",
            "--tree",
            nwk.to_str().unwrap(),
            "--json",
            nwk.to_str().unwrap(),
        ],
        &[
            "spatial",
            "--topology",
            "chain",
            "--nodes",
            "10",
            "--html",
            "/nonexistent/dir/s.html",
        ],
    ] {
        let o = accuracy(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(!e.contains("panicked"), "{args:?}");
        // Refused before anything is measured, not after.
        assert!(!e.contains("counted in"), "{args:?}: {e}");
        assert_eq!(
            e.trim().lines().filter(|l| l.starts_with("error")).count(),
            1,
            "{args:?}: {e}"
        );
    }
}

#[test]
fn the_answer_sets_bits_time_energy_and_depth_side_by_side() {
    let dir = scratch("answer");
    let (json, html, bench) = (
        dir.join("a.json"),
        dir.join("a.html"),
        dir.join("bench.csv"),
    );
    // A bench.csv as `accuracy bench` writes it, with a GPU row for vectorial-exact rootfix
    // only: the answer takes that kernel's time and keeps the CPU twins' for the rest.
    let mut w = csv::Writer::from_path(&bench).unwrap();
    let row = |algorithm: &str, op: &str, backend: &str, compute_s: f64| {
        analysis::records::bench::BenchRecord {
            topology: "chain".into(),
            n: 1 << 20,
            height: 1 << 20,
            op: op.into(),
            algorithm: algorithm.into(),
            backend: backend.into(),
            compute_s,
            compute_min_s: compute_s,
            compute_max_s: compute_s,
            transfer_s: 0.0,
            transfer_min_s: 0.0,
            transfer_max_s: 0.0,
            bytes_moved: 0,
            reps: 3,
        }
    };
    w.serialize(row(
        "vectorial-exact",
        "rootfix",
        "gpu: Test adapter (Vulkan, 1)",
        0.002097152,
    ))
    .unwrap();
    w.serialize(row("parallel", "rootfix", "cpu", 0.5)).unwrap();
    w.flush().unwrap();
    drop(w);
    let o = accuracy(&[
        "spatial",
        "--topology",
        "random-recursive",
        "--nodes",
        "2^9,2^11",
        "--order",
        "breadth-first,light-first",
        "--curve",
        "hilbert,row-major",
        "--bench",
        bench.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    let r: SpatialRecord = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(r.answer.len(), 2 * analysis::spatial::ALGORITHMS.len());
    for a in &r.answer {
        assert_eq!(a.n, 2048);
        // Its layout is the one of least energy for its pattern at the last tree, and the lost
        // bits the most over the layouts.
        let op = Some(a.op);
        let points: Vec<_> = r
            .layouts
            .iter()
            .map(|l| {
                let p = r.pattern(l.order, l.curve, &a.algorithm, op).unwrap();
                (
                    l.order,
                    l.curve,
                    p.points.last().unwrap().clone(),
                    p.exponent,
                )
            })
            .collect();
        let least = points.iter().map(|p| p.2.energy).min().unwrap();
        let mine = points
            .iter()
            .find(|p| p.0 == a.order && p.1 == a.curve)
            .unwrap();
        assert_eq!(mine.2.energy, least, "{} {}", a.algorithm, a.op);
        assert_eq!(mine.2.energy_per_vertex, a.energy_per_vertex);
        assert_eq!(mine.2.depth, a.depth);
        assert_eq!(mine.3, a.exponent);
        // The lost bits are its layout's own; the worst over the layouts beside them.
        assert_eq!(a.lost_bits, mine.2.lost_bits, "{} {}", a.algorithm, a.op);
        let most = points.iter().filter_map(|p| p.2.lost_bits).reduce(f64::max);
        assert_eq!(a.worst_lost_bits, most, "{} {}", a.algorithm, a.op);
        // Every layout of the least energy is named.
        let tied = points.iter().filter(|p| p.2.energy == least).count();
        assert_eq!(a.tied.len() + 1, tied, "{} {}", a.algorithm, a.op);
        if a.algorithm == "vectorial-exact" {
            assert_eq!(a.lost_bits, Some(0.0));
        }
        if (a.algorithm.as_str(), a.op) == ("vectorial-exact", Op::Rootfix) {
            assert_eq!(a.time_source, "GPU kernel: gpu: Test adapter (Vulkan, 1)");
            assert_eq!(a.time_per_vertex_s, Some(0.002097152 / (1 << 20) as f64));
        } else {
            // parallel's bench row is a CPU twin's: never a GPU price; this run's twin instead.
            assert_eq!(a.time_source, "CPU twin", "{} {}", a.algorithm, a.op);
            assert!(
                a.time_per_vertex_s
                    .is_some_and(|t| t > 0.0 && t.is_finite())
            );
        }
    }
    assert!(out.contains("answer at n=2048"), "{out}");
    assert!(
        out.contains("GPU times: GPU kernel: gpu: Test adapter"),
        "{out}"
    );
    for op in ["rootfix", "leaffix"] {
        let sentence = out
            .lines()
            .find(|l| l.starts_with(&format!("{op} on a spatial computer (n=2048)")))
            .unwrap_or_else(|| panic!("no {op} sentence: {out}"));
        assert!(
            sentence.contains("the most accurate, vectorial-exact (0.00 bits lost)")
                || sentence.contains("the most accurate (0.00 bits lost) are"),
            "{sentence}"
        );
    }
    let (_, doc) = parse(&html);
    assert_eq!(
        doc.select(&sel("#spatial-answer tr")).count(),
        1 + r.answer.len()
    );
    // Per op, the trade-off and what building the layout costs.
    assert_eq!(doc.select(&sel("p.answer")).count(), 4);
}

/// An interrupted `spatial --json FILE` resumes after its last finished tree (FILE.partial),
/// and gives the same measurement as an uninterrupted run; another measurement's checkpoint is
/// refused, never mixed in.
#[test]
fn an_interrupted_measurement_resumes() {
    let dir = scratch("resume");
    let args = |json: &Path, seed: &str| -> Vec<String> {
        [
            "spatial",
            "--topology",
            "prufer",
            "--nodes",
            "2^8,2^15,2^16,2^17",
            "--order",
            "light-first,depth-first",
            "--seed",
            seed,
            "--json",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([json.to_str().unwrap().to_string()])
        .collect()
    };
    let run = |a: &[String]| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        accuracy(&a)
    };
    let whole = dir.join("whole.json");
    let o = run(&args(&whole, "1"));
    assert!(o.status.success(), "{}", stderr(&o));
    let resumed = dir.join("resumed.json");
    let partial = dir.join("resumed.json.partial");
    // Killed (kill -9: nothing of its own cleans up) once the first tree is kept.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .args(args(&resumed, "1"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while !partial.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before a checkpoint"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !resumed.exists(),
        "the run finished before it was killed: nothing was resumed"
    );
    // Another seed is another measurement.
    let o = run(&args(&resumed, "2"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("another measurement"), "{}", stderr(&o));
    let o = run(&args(&resumed, "1"));
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stderr(&o);
    let resumed_after = said
        .lines()
        .find_map(|l| l.strip_prefix("resuming after "))
        .unwrap_or_else(|| panic!("no resume line: {said}"));
    assert!(!resumed_after.starts_with("0 "), "{said}");
    assert!(
        !partial.exists(),
        "the checkpoint outlived the finished measurement"
    );
    let read =
        |p: &Path| -> SpatialRecord { serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap() };
    let (a, b) = (read(&whole), read(&resumed));
    assert_eq!(a.trees, b.trees);
    assert_eq!(a.layouts, b.layouts);
    // The answer's energies, depths and bits; its times are this machine's.
    let strip = |r: &SpatialRecord| -> Vec<_> {
        r.answer
            .iter()
            .map(|x| {
                (
                    x.op,
                    x.algorithm.clone(),
                    x.lost_bits,
                    x.energy_per_vertex,
                    x.depth,
                )
            })
            .collect()
    };
    assert_eq!(strip(&a), strip(&b));
}
