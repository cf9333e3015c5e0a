//! The readers on real files (copies in tests/data, see PROVENANCE.md), format detection,
//! forest modes and scale (no recursion).

mod common;

use common::data_dir;
use generators::io::{
    ForestMode, Format, Label, Labels, ReadOptions, TreeFile, TreeStats, detect_format, read_tree,
    read_tree_bytes, read_weights_bytes,
};
use generators::{NO_PARENT, Tree};
use std::collections::VecDeque;
use std::path::Path;

fn read(file: &str) -> TreeFile {
    read_tree(&data_dir().join(file), &ReadOptions::default()).unwrap()
}

/// The file's own weights, which must be there and valid.
fn own(t: &TreeFile) -> &[f32] {
    t.own_weights().unwrap().expect("the file has weights")
}

fn vertex_named(t: &TreeFile, name: &str) -> u32 {
    (0..t.tree.len() as u32)
        .find(|&v| t.labels.get(v) == Some(Label::Name(name)))
        .unwrap_or_else(|| panic!("no vertex named {name}"))
}

/// Vertices, leaves and max out-degree as the data README lists them.
#[test]
fn newick_and_nexus_counts() {
    for (file, format, n, leaves, max_degree) in [
        ("ape_bird_families.nwk", Format::Newick, 272, 137, 3),
        ("unifrac_crawford.tre", Format::Newick, 730, 365, 2),
        ("ete3_diauxic.nw", Format::Newick, 885, 834, 162),
        ("biopython_bats.nex", Format::Nexus, 1315, 658, 2),
    ] {
        let t = read(file);
        let s = TreeStats::of(&t.tree);
        assert_eq!(t.format, format, "{file}");
        assert_eq!(
            (s.vertices, s.leaves, s.max_degree),
            (n, leaves, max_degree),
            "{file}"
        );
        assert!(t.weights.is_some(), "{file} has branch lengths");
        assert!(matches!(t.labels, Labels::Names { .. }));
        assert_eq!(
            t.bytes,
            std::fs::metadata(data_dir().join(file)).unwrap().len()
        );
        assert!(!t.gzipped);
    }
}

#[test]
fn newick_details() {
    let t = read("ape_bird_families.nwk");
    // "(((((Struthionidae:17.1,Rheidae:17.1):0.8, ..." — preorder ids: 5 opens, then the leaf.
    assert_eq!(vertex_named(&t, "Struthionidae"), 5);
    assert_eq!(t.tree.parents()[5], 4);
    assert_eq!(own(&t)[5], 17.1f32);
    assert_eq!(own(&t)[4], 0.8f32);
    // The root has no length in the file: weight 0.
    assert_eq!(own(&t)[0], 0.0);
    // A quoted internal label with a space and a semicolon.
    let u = read("unifrac_crawford.tre");
    let v = vertex_named(&u, "c__Clostridia; o__Clostridiales");
    assert!(!u.tree.children(v).is_empty());
    assert_eq!(own(&u)[v as usize], 0.01046f32);
    // NEXUS: the first leaf of "TREE Fig._1 = [&R] (Erinaceus_europaeus:0.59788,...".
    let b = read("biopython_bats.nex");
    assert_eq!(b.labels.get(1), Some(Label::Name("Erinaceus_europaeus")));
    assert_eq!(own(&b)[1], 0.59788f32);
    assert_eq!(b.trees_in_file, 1);
}

/// Independent BFS distances from vertex 0 of a symmetric pattern read from the file.
fn graph_distances(mtx_gz: &[u8]) -> (Vec<Vec<u32>>, Vec<u32>) {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(mtx_gz)
        .read_to_string(&mut text)
        .unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('%'));
    let n: usize = lines
        .next()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let mut adj = vec![Vec::new(); n];
    for l in lines {
        let mut f = l.split_whitespace();
        let i: usize = f.next().unwrap().parse().unwrap();
        let j: usize = f.next().unwrap().parse().unwrap();
        if i != j {
            adj[i - 1].push(j as u32 - 1);
            adj[j - 1].push(i as u32 - 1);
        }
    }
    let mut dist = vec![u32::MAX; n];
    dist[0] = 0;
    let mut q = VecDeque::from([0u32]);
    while let Some(u) = q.pop_front() {
        for &w in &adj[u as usize] {
            if dist[w as usize] == u32::MAX {
                dist[w as usize] = dist[u as usize] + 1;
                q.push_back(w);
            }
        }
    }
    (adj, dist)
}

#[test]
fn matrix_market_bfs_spanning_trees() {
    for (file, n, weighted) in [
        ("HB_494_bus.mtx.gz", 494, true),
        ("3elt.mtx.gz", 4720, false),
    ] {
        let t = read(file);
        assert_eq!(t.format, Format::MatrixMarket);
        assert!(t.gzipped);
        assert_eq!(t.tree.len(), n);
        assert_eq!(t.components, 1, "{file} is connected");
        assert_eq!(t.tree.root(), 0, "BFS from vertex 1 of the file");
        assert_eq!(t.weights.is_some(), weighted);
        assert_eq!(t.labels.get(0), Some(Label::FileId(1)));
        let (adj, dist) = graph_distances(&std::fs::read(data_dir().join(file)).unwrap());
        for v in 0..n as u32 {
            // A BFS tree: tree depth = graph distance, tree edges are graph edges.
            assert_eq!(t.tree.depth(v), dist[v as usize], "{file} vertex {v}");
            if let Some(p) = t.tree.parent(v) {
                assert!(adj[v as usize].contains(&p));
            }
        }
    }
}

#[test]
fn bus_weights_are_matrix_entries() {
    let t = read("HB_494_bus.mtx.gz");
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(&std::fs::read(data_dir().join("HB_494_bus.mtx.gz")).unwrap()[..])
        .read_to_string(&mut text)
        .unwrap();
    let mut entry = std::collections::HashMap::new();
    for l in text.lines().filter(|l| !l.starts_with('%')).skip(1) {
        let f: Vec<&str> = l.split_whitespace().collect();
        let (i, j): (u32, u32) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        let x: f32 = f[2].parse().unwrap();
        entry.entry((i.min(j), i.max(j))).or_insert(x);
    }
    let w = own(&t);
    for v in 0..t.tree.len() as u32 {
        let want = match t.tree.parent(v) {
            Some(p) => entry[&((v + 1).min(p + 1), (v + 1).max(p + 1))],
            None => entry.get(&(v + 1, v + 1)).copied().unwrap_or(0.0),
        };
        assert_eq!(w[v as usize].to_bits(), want.to_bits(), "vertex {v}");
    }
}

#[test]
fn sha256_matches_provenance() {
    let prov = std::fs::read_to_string(data_dir().join("PROVENANCE.md")).unwrap();
    let mut checked = 0;
    for entry in std::fs::read_dir(data_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "PROVENANCE.md" {
            continue;
        }
        let row = prov
            .lines()
            .find(|l| l.contains(&format!("`{name}`")))
            .unwrap_or_else(|| panic!("{name} not in PROVENANCE.md"));
        let t = read_tree(&path, &ReadOptions::default()).unwrap();
        assert!(row.contains(&t.sha256), "{name}: {}", t.sha256);
        assert!(row.contains(&format!("| {} |", t.bytes)), "{name} size");
        checked += 1;
    }
    assert_eq!(checked, 6);
}

#[test]
fn weights_file_on_a_real_tree() {
    let t = read("ape_bird_families.nwk");
    let wf = read_weights_bytes(
        Path::new("counts.tsv"),
        b"# sample counts\nStruthionidae\t3\nRheidae, 4.5\n0 -1\n",
        &t,
    )
    .unwrap();
    assert_eq!((wf.by_label, wf.by_id, wf.flushed), (2, 1, 0));
    let w = wf.weights;
    assert_eq!(w.len(), 272);
    assert_eq!(w[5], 3.0);
    assert_eq!(w[vertex_named(&t, "Rheidae") as usize], 4.5);
    assert_eq!(w[0], -1.0, "key 0 is no label: the vertex id (the root)");
    assert_eq!(w.iter().filter(|&&x| x != 0.0).count(), 3);
    // Keyed by file id for graphs.
    let g = read("HB_494_bus.mtx.gz");
    let wf = read_weights_bytes(Path::new("w"), b"494 2\n1 1\n", &g).unwrap();
    assert_eq!((wf.weights[493], wf.weights[0]), (2.0, 1.0));
    assert_eq!((wf.by_label, wf.by_id), (0, 2));
    assert!(read_weights_bytes(Path::new("w"), b"495 2\n", &g).is_err());
    assert!(read_weights_bytes(Path::new("w"), b"0 2\n", &g).is_err());
}

#[test]
fn format_detection() {
    let p = |s: &str| Path::new(s).to_path_buf();
    assert_eq!(detect_format(&p("a.txt"), b" (a,b);"), Format::Newick);
    assert_eq!(detect_format(&p("a"), b"[c] (a,b);"), Format::Newick);
    assert_eq!(detect_format(&p("a.tre.gz"), b"a;"), Format::Newick);
    assert_eq!(detect_format(&p("a.txt"), b"#nexus\n"), Format::Nexus);
    assert_eq!(detect_format(&p("a.NEX"), b"begin"), Format::Nexus);
    assert_eq!(
        detect_format(&p("a.dat"), b"%%MatrixMarket matrix"),
        Format::MatrixMarket
    );
    assert_eq!(detect_format(&p("a.mtx"), b"3 3 1"), Format::MatrixMarket);
    assert_eq!(detect_format(&p("a.csv"), b"0,-1\n"), Format::ParentArray);
    assert_eq!(detect_format(&p("a.nwk"), b"0 -1\n"), Format::Newick);
    // The option overrides detection.
    let opts = ReadOptions {
        format: Some(Format::ParentArray),
        ..Default::default()
    };
    let t = read_tree_bytes(Path::new("a.nwk"), b"0 -1\n1 0\n", &opts).unwrap();
    assert_eq!(t.format, Format::ParentArray);
    // Gzip by content, not by name.
    let gz = common::gzip(b"(a,b);");
    let t = read_tree_bytes(Path::new("a.txt"), &gz, &ReadOptions::default()).unwrap();
    assert_eq!(
        (t.format, t.gzipped, t.tree.len()),
        (Format::Newick, true, 3)
    );
    // Several gzip members are one stream.
    let mut two = common::gzip(b"(a,");
    two.extend(common::gzip(b"b);"));
    let t = read_tree_bytes(Path::new("a.nwk"), &two, &ReadOptions::default()).unwrap();
    assert_eq!(t.tree.len(), 3);
    // SHA-256 of the stored (compressed) bytes.
    use sha2::Digest;
    let want: String = sha2::Sha256::digest(&two)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(t.sha256, want);
}

/// Missing lengths are 0 when some are given; no lengths at all means no weights.
#[test]
fn missing_lengths() {
    let o = ReadOptions::default();
    let t = read_tree_bytes(Path::new("t.nwk"), b"((a:1,b)c,d:-2.5):4;", &o).unwrap();
    assert_eq!(own(&t), [4.0, 0.0, 1.0, 0.0, -2.5]);
    let t = read_tree_bytes(Path::new("t.nwk"), b"((a,b)c,d);", &o).unwrap();
    assert!(t.weights.is_none());
}

#[test]
fn forest_modes_keep_file_ids() {
    // Components {1,2,3} (path), {4} (with a diagonal value) and {5,6}.
    let g =
        b"%%MatrixMarket matrix coordinate real symmetric\n6 6 4\n2 1 1.5\n3 2 2.5\n4 4 7\n6 5 3\n";
    let mut o = ReadOptions {
        forest: ForestMode::Largest,
        ..Default::default()
    };
    let t = read_tree_bytes(Path::new("g.mtx"), g, &o).unwrap();
    assert_eq!(t.components, 3);
    assert_eq!(t.tree.parents(), &[NO_PARENT, 0, 1]);
    assert_eq!(t.labels, Labels::Listed(vec![1, 2, 3]));
    o.forest = ForestMode::VirtualRoot;
    o.root = Some(2);
    let t = read_tree_bytes(Path::new("g.mtx"), g, &o).unwrap();
    assert_eq!(t.tree.root(), 6);
    assert_eq!(t.tree.parents(), &[1, 6, 1, 6, 6, 4, NO_PARENT]);
    assert_eq!(own(&t), [1.5, 0.0, 2.5, 7.0, 0.0, 3.0, 0.0]);
    assert_eq!(t.labels.get(6), None);
    assert_eq!(t.labels.get(5), Some(Label::FileId(6)));
    assert_eq!(t.tree.children(6), &[1, 3, 4]);
}

/// A caterpillar nested 10^6 deep and a 10^6-vertex chain parent array load (no recursion).
#[test]
fn deep_inputs_load() {
    let n = 1_000_000;
    let mut s = Vec::with_capacity(8 * n);
    s.resize(n, b'(');
    s.push(b'a');
    for _ in 0..n {
        s.extend_from_slice(b",b)");
    }
    s.push(b';');
    let t = read_tree_bytes(Path::new("cat.nwk"), &s, &ReadOptions::default()).unwrap();
    assert_eq!(t.tree.len(), 2 * n + 1);
    assert_eq!(t.tree.height(), n as u32);
    assert!(matches!(t.labels, Labels::Names { .. }));
    let mut p = String::with_capacity(16 * n);
    p.push_str("0 -1\n");
    for v in 1..n {
        p.push_str(&format!("{v} {}\n", v - 1));
    }
    let t = read_tree_bytes(
        Path::new("chain.txt"),
        p.as_bytes(),
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(t.tree.height(), n as u32 - 1);
    // Table I's metric: vertices per level.
    let s = TreeStats::of(&t.tree);
    assert_eq!((s.levels, s.mean_branching, s.leaves), (n, 1.0, 1));
}

/// TreeStats on the paper's Fig. 2 tree a(b(c,d,e),f).
#[test]
fn stats_of_fig2() {
    let t = Tree::from_parents(
        vec![NO_PARENT, 0, 1, 1, 1, 0],
        generators::ChildOrder::Natural,
    )
    .unwrap();
    let s = TreeStats::of(&t);
    assert_eq!(
        (s.vertices, s.leaves, s.height, s.levels, s.max_degree),
        (6, 4, 2, 3, 3)
    );
    assert_eq!(s.mean_branching, 2.0);
}
