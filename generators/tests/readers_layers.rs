//! What lies under every format: a UTF-8 byte-order mark and the gzip layer (concatenated
//! members, bytes after the last one).

mod common;

use generators::io::{
    Format, Label, ReadError, ReadOptions, Reason, TreeFile, detect_format, read_tree_bytes,
    read_weights_bytes,
};
use std::path::Path;

const BOM: &[u8] = b"\xEF\xBB\xBF";

fn with_bom(text: &[u8]) -> Vec<u8> {
    [BOM, text].concat()
}

fn read(name: &str, bytes: &[u8]) -> Result<TreeFile, ReadError> {
    read_tree_bytes(Path::new(name), bytes, &ReadOptions::default())
}

/// The same file with and without a byte-order mark, plain and gzipped, under a name that
/// does not tell the format: the same format, tree, weights and labels.
#[test]
fn byte_order_mark_is_accepted_by_every_format() {
    let files: [(&[u8], Format); 5] = [
        (b"(a:1,b:2)c:0.5;\n", Format::Newick),
        (
            b"#NEXUS\nbegin trees;\n tree t = (a:1,b:2)c;\nend;\n",
            Format::Nexus,
        ),
        (
            b"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1.5\n3 1 2\n",
            Format::MatrixMarket,
        ),
        (b"0 -1 1\n1 0 2\n2 0 3\n", Format::ParentArray),
        (b"[comment] (a,b);\n", Format::Newick),
    ];
    for (text, format) in files {
        let plain = read("input.txt", text).unwrap();
        for bytes in [with_bom(text), common::gzip(&with_bom(text))] {
            let t = read("input.txt", &bytes).unwrap_or_else(|e| panic!("{format}: {e}"));
            assert_eq!(t.format, format);
            assert_eq!(t.tree.parents(), plain.tree.parents(), "{format}");
            assert_eq!(t.own_weights().unwrap(), plain.own_weights().unwrap());
            assert_eq!(t.labels, plain.labels, "{format}");
        }
        // Detection by content sees through the mark.
        assert_eq!(detect_format(Path::new("x"), &with_bom(text)), format);
    }
    // The first label does not absorb the mark.
    let t = read("t.nwk", &with_bom(b"a;")).unwrap();
    assert_eq!(t.labels.get(0), Some(Label::Name("a")));
}

/// Line 1's columns count from the first character after the mark, as an editor shows them.
#[test]
fn byte_order_mark_keeps_columns() {
    let e = read("t.nwk", &with_bom(b"(a b,c);")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.nwk:1:4: unexpected 'b'; expected ',', ')' or ';'"
    );
    // A NUL byte is located in the decompressed bytes, the mark included.
    let e = read("t.nwk", &with_bom(b"(a,\0b);")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.nwk: byte 6: binary data (a NUL byte): not a text tree file"
    );
}

#[test]
fn byte_order_mark_in_weights_files() {
    let t = read("t.nwk", b"(a,b)c;").unwrap();
    for bytes in [
        with_bom(b"a 1\nc 2\n"),
        common::gzip(&with_bom(b"a 1\nc 2\n")),
    ] {
        let w = read_weights_bytes(Path::new("w.txt"), &bytes, &t).unwrap();
        assert_eq!(w.weights, [2.0, 1.0, 0.0]);
        assert_eq!(w.by_label, 2);
    }
}

/// Concatenated members are one stream (as `zcat` reads them); bytes after the last member
/// that do not start another one are an error at their offset, whatever they are.
#[test]
fn gzip_members_and_trailing_bytes() {
    let one = common::gzip(b"(a,(b,");
    let two = common::gzip(b"c));\n");
    let both = [one.clone(), two.clone()].concat();
    assert_eq!(read("t.nwk.gz", &both).unwrap().tree.len(), 5);
    for trailing in [
        &b"\n"[..],
        b"junk that is longer than a gzip header",
        &[0u8; 16],
    ] {
        let bytes = [both.clone(), trailing.to_vec()].concat();
        let e = read("t.nwk.gz", &bytes).unwrap_err();
        assert_eq!(
            e.reason(),
            Some(&Reason::GzipTrailing {
                bytes: trailing.len()
            })
        );
        assert_eq!(
            e.to_string(),
            format!(
                "t.nwk.gz: byte {}: {} trailing bytes after the gzip stream (they do not start \
                 another gzip member)",
                both.len(),
                trailing.len()
            )
        );
    }
    // A second member cut short is truncated data, at the end of the file.
    let cut = [one.clone(), two[..two.len() - 3].to_vec()].concat();
    let e = read("t.nwk.gz", &cut).unwrap_err();
    assert_eq!(e.reason(), Some(&Reason::GzipTruncated));
    // The magic bytes alone after a member start a member that is cut short.
    let magic = [one, vec![0x1f, 0x8b]].concat();
    assert_eq!(
        read("t.nwk.gz", &magic).unwrap_err().reason(),
        Some(&Reason::GzipTruncated)
    );
}
