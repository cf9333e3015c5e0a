//! Weights: a file's own numbers are checked only where they are used as weights, subnormal
//! ones can be flushed to zero, and weights-file keys are matched without guessing.

use generators::io::{
    ForestMode, ReadOptions, Reason, Subnormal, TreeFile, TreeStats, read_tree_bytes,
    read_weights_bytes,
};
use std::path::Path;

fn read(name: &str, bytes: &[u8], subnormal: Subnormal) -> TreeFile {
    let opts = ReadOptions {
        subnormal,
        ..Default::default()
    };
    read_tree_bytes(Path::new(name), bytes, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn bits(w: &[f32]) -> Vec<u32> {
    w.iter().map(|x| x.to_bits()).collect()
}

/// One f32-subnormal entry (as in SuiteSparse's Grund/bayer10, VDOL/hangGlider_2 and
/// Sandia/adder_dcop_05) must not keep the graph from being read: its tree and statistics
/// do not depend on it.
#[test]
fn a_subnormal_matrix_value_does_not_stop_the_read() {
    let g = b"%%MatrixMarket matrix coordinate real general\n4 4 4\n2 1 1.5\n3 2 1e-40\n4 3 -2e-39\n4 4 7\n";
    let t = read("g.mtx", g, Subnormal::Refuse);
    assert_eq!(TreeStats::of(&t.tree).vertices, 4);
    assert_eq!(t.weights.as_ref().unwrap().flushed(), 0);
    let e = t.own_weights().unwrap_err();
    assert_eq!(e.line_col(), Some((4, 5)));
    assert!(matches!(e.reason(), Some(Reason::Subnormal { .. })));
    // Flushed: the zero of each value's sign, counted.
    let t = read("g.mtx", g, Subnormal::Flush);
    let own = t.weights.as_ref().unwrap();
    assert_eq!(own.flushed(), 2);
    assert_eq!(
        bits(own.get().unwrap()),
        bits(&[0.0, 1.5, 0.0, -0.0]),
        "root 0 (no diagonal), then the tree edges"
    );
}

/// Values that become no weight are not checked at all; flushing does not excuse NaN.
#[test]
fn only_values_that_become_weights_count() {
    // Edge 1–2 is stored twice: the first stored entry is its weight, the NaN none.
    let g = b"%%MatrixMarket matrix coordinate real general\n3 3 3\n2 1 2\n1 2 nan\n3 2 5\n";
    let t = read("g.mtx", g, Subnormal::Refuse);
    assert_eq!(t.own_weights().unwrap().unwrap(), [0.0, 2.0, 5.0]);
    let nan_and_sub = b"%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 1e-40\n3 1 nan\n";
    let t = read("g.mtx", nan_and_sub, Subnormal::Flush);
    let e = t.own_weights().unwrap_err();
    assert_eq!(e.line_col(), Some((4, 5)));
    assert!(matches!(e.reason(), Some(Reason::Nan { .. })));
}

/// The error names the earliest bad number in the file, not the first vertex that has one.
#[test]
fn the_earliest_bad_value_in_the_file_is_named() {
    // Vertex 1 (file id 2) has the subnormal on line 4; vertex 2 (file id 3) the NaN on
    // line 3.
    let g = b"%%MatrixMarket matrix coordinate real general\n3 3 2\n3 1 nan\n2 1 1e-40\n";
    let t = read("g.mtx", g, Subnormal::Refuse);
    assert_eq!(t.own_weights().unwrap_err().line_col(), Some((3, 5)));
    // Newick: only the chosen tree's lengths count.
    let s = b"(a:1e39,b:1);\n(c:1e-40,d:2);\n";
    let opts = ReadOptions {
        tree_index: 1,
        subnormal: Subnormal::Flush,
        ..Default::default()
    };
    let t = read_tree_bytes(Path::new("t.nwk"), s, &opts).unwrap();
    assert_eq!(t.own_weights().unwrap().unwrap(), [0.0, 0.0, 2.0]);
    assert_eq!(t.weights.as_ref().unwrap().flushed(), 1);
    let t = read("t.nwk", s, Subnormal::Flush);
    assert!(matches!(
        t.own_weights().unwrap_err().reason(),
        Some(Reason::Overflow { .. })
    ));
    // Parent arrays.
    let p = read("t.txt", b"0 -1 1e-45\n1 0 2\n", Subnormal::Flush);
    assert_eq!(p.own_weights().unwrap().unwrap(), [0.0, 2.0]);
    let p = read("t.txt", b"0 -1 1e-45\n1 0 2\n", Subnormal::Refuse);
    assert_eq!(p.own_weights().unwrap_err().line_col(), Some((1, 6)));
}

#[test]
fn weights_files_flush_under_the_trees_mode() {
    let s = b"(a,b)c;";
    let w = b"a -1e-40\nb 2\nc 1e-44\n";
    let t = read("t.nwk", s, Subnormal::Refuse);
    let e = read_weights_bytes(Path::new("w.txt"), w, &t).unwrap_err();
    assert_eq!(e.line_col(), Some((1, 3)));
    let t = read("t.nwk", s, Subnormal::Flush);
    let wf = read_weights_bytes(Path::new("w.txt"), w, &t).unwrap();
    assert_eq!(wf.flushed, 2);
    assert_eq!(bits(&wf.weights), bits(&[0.0, -0.0, 2.0]));
    // Flushing does not excuse an infinite weight.
    assert!(read_weights_bytes(Path::new("w.txt"), b"a inf\n", &t).is_err());
}

/// Keys that read both as a label and as another vertex's id are refused; keys read one way
/// are counted.
#[test]
fn weights_file_keys_are_matched_without_guessing() {
    // Preorder: 0 = root "7", 1 = internal "1", 2 = "x", 3 = "y", 4 = "2".
    let t = read("t.nwk", b"((x,y)1,2)7;", Subnormal::Refuse);
    // "7" is a label only (7 ≥ n), "x" a label, "3" an id only, "1" the label of vertex 1
    // and the id of vertex 1: the same vertex.
    let wf = read_weights_bytes(Path::new("w"), b"7 1\nx 2\n3 3\n1 4\n", &t).unwrap();
    assert_eq!(wf.weights, [1.0, 4.0, 2.0, 3.0, 0.0]);
    assert_eq!((wf.by_label, wf.by_id), (3, 1));
    // "2" is the label of vertex 4 and the id of vertex 2.
    let e = read_weights_bytes(Path::new("w"), b"x 1\n2 5\n", &t).unwrap_err();
    assert_eq!(
        e.reason(),
        Some(&Reason::AmbiguousKey {
            key: "2".into(),
            label_vertex: 4,
            id_vertex: 2
        })
    );
    assert_eq!(e.line_col(), Some((2, 1)));
    // File ids (parent arrays, Matrix Market, forest mode largest) count as ids.
    let p = read("t.txt", b"1 -1\n2 1\n3 1\n", Subnormal::Refuse);
    let wf = read_weights_bytes(Path::new("w"), b"1 1\n3 2\n", &p).unwrap();
    assert_eq!((wf.by_label, wf.by_id), (0, 2));
    let opts = ReadOptions {
        forest: ForestMode::Largest,
        ..Default::default()
    };
    let g = b"%%MatrixMarket matrix coordinate pattern general\n5 5 2\n4 3\n5 4\n";
    let l = read_tree_bytes(Path::new("g.mtx"), g, &opts).unwrap();
    let wf = read_weights_bytes(Path::new("w"), b"5 1\n", &l).unwrap();
    assert_eq!((wf.weights, wf.by_id), (vec![0.0, 0.0, 1.0], 1));
}
