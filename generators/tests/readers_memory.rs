//! A declared size beyond the caller's memory limit is a one-line error before any per-vertex
//! array is allocated (without the check, the three-line file below aborts the process on an
//! allocation of 2^31 vertices).

use generators::io::{ForestMode, ReadOptions, read_tree_bytes};
use std::path::Path;

const HUGE: &[u8] =
    b"%%MatrixMarket matrix coordinate pattern symmetric\n2147483647 2147483647 1\n2 1\n";

#[test]
fn a_declared_size_beyond_the_limit_is_refused() {
    let opts = ReadOptions {
        forest: ForestMode::VirtualRoot,
        memory_limit: Some(4_000_000_000),
        ..Default::default()
    };
    let e = read_tree_bytes(Path::new("huge.mtx"), HUGE, &opts).unwrap_err();
    assert_eq!(
        e.to_string(),
        "huge.mtx:2:1: 2147483648 vertices need about 154.6 GB of memory to read, more than the 4.0 GB available"
    );
}

#[test]
fn the_same_file_reads_where_it_fits() {
    // Without a virtual root only the two touched vertices are built: the file reads (and is
    // refused as disconnected, or kept as its largest component) whatever it declares.
    let opts = ReadOptions {
        forest: ForestMode::Largest,
        memory_limit: Some(4_000_000_000),
        ..Default::default()
    };
    let t = read_tree_bytes(Path::new("huge.mtx"), HUGE, &opts).unwrap();
    assert_eq!(t.tree.len(), 2);
    // A small file under the same limit.
    let small = b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n";
    let opts = ReadOptions {
        forest: ForestMode::VirtualRoot,
        memory_limit: Some(4_000_000_000),
        ..Default::default()
    };
    assert_eq!(
        read_tree_bytes(Path::new("g.mtx"), small, &opts)
            .unwrap()
            .tree
            .len(),
        3
    );
}

#[test]
fn a_parent_array_is_checked_on_its_line_count() {
    let text = "0 -1\n1 0\n".to_string() + &"\n".repeat(100_000);
    let opts = ReadOptions {
        memory_limit: Some(1_000_000),
        ..Default::default()
    };
    let e = read_tree_bytes(Path::new("t.txt"), text.as_bytes(), &opts).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("t.txt: 100003 vertices need about 6 MB of memory to read"),
        "{e}"
    );
}
