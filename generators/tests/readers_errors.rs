//! Bad input → the exact one-line message a user sees. The same messages are listed in
//! docs/inputs.md; `messages_are_documented` keeps the two in step. Numbers that are no valid
//! weights are an error only when the file's own weights are used: those cases read, and
//! give their message from `TreeFile::own_weights`.

mod common;

use generators::io::{ForestMode, ReadOptions, read_tree, read_tree_bytes, read_weights_bytes};
use std::path::Path;

struct Case {
    what: &'static str,
    file: &'static str,
    input: Vec<u8>,
    opts: ReadOptions,
    message: &'static str,
    /// The message comes when the file's own weights are used; the read itself succeeds.
    when_used: bool,
    /// Weights files: the tree they are read for.
    tree: &'static str,
}

fn case(what: &'static str, file: &'static str, input: &[u8], message: &'static str) -> Case {
    Case {
        what,
        file,
        input: input.to_vec(),
        opts: ReadOptions::default(),
        message,
        when_used: false,
        tree: "(a,b)c;",
    }
}

/// A case whose message comes when the file's own weights are used.
fn used(what: &'static str, file: &'static str, input: &[u8], message: &'static str) -> Case {
    Case {
        when_used: true,
        ..case(what, file, input, message)
    }
}

fn truncated_gzip() -> Vec<u8> {
    let gz = common::gzip(b"(a:1,b:2)c;\n");
    gz[..gz.len() - 5].to_vec()
}

fn gzip_then(trailing: &[u8]) -> Vec<u8> {
    let mut gz = common::gzip(b"(a:1,b:2)c;\n");
    gz.extend_from_slice(trailing);
    gz
}

fn corrupt_gzip() -> Vec<u8> {
    let mut gz = common::gzip(b"(a:1,b:2)c;\n");
    gz[10] ^= 0xff; // first byte of the deflate data
    gz
}

fn cases() -> Vec<Case> {
    let mut v = vec![
        // ---- whole file, gzip, binary
        case("empty file", "tree.nwk", b"", "tree.nwk: empty file"),
        case(
            "truncated gzip",
            "tree.nwk.gz",
            &truncated_gzip(),
            "tree.nwk.gz: byte 27: truncated gzip data: the file ends inside the compressed stream",
        ),
        case(
            "corrupt gzip",
            "tree.nwk.gz",
            &corrupt_gzip(),
            "tree.nwk.gz: byte 15: corrupt gzip data: corrupt deflate stream",
        ),
        case(
            "gzip followed by other bytes",
            "tree.nwk.gz",
            &gzip_then(b"junk\n"),
            "tree.nwk.gz: byte 32: 5 trailing bytes after the gzip stream (they do not start \
             another gzip member)",
        ),
        case(
            "binary data",
            "tree.nwk",
            b"(a,\0b);",
            "tree.nwk: byte 3: binary data (a NUL byte): not a text tree file",
        ),
        case(
            "label not UTF-8",
            "tree.nwk",
            b"(a,\xffb);",
            "tree.nwk:1:4: text is not valid UTF-8",
        ),
        // ---- Newick
        case(
            "unbalanced '('",
            "tree.nwk",
            b"((a,b),c;\n",
            "tree.nwk:1:9: unbalanced parentheses: 1 '(' not closed (the innermost opened at 1:1)",
        ),
        case(
            "unbalanced ')'",
            "tree.nwk",
            b"(a,b));\n",
            "tree.nwk:1:6: unbalanced parentheses: ')' without a matching '('",
        ),
        case(
            "text after ';'",
            "tree.nwk",
            b"(a,b);\nc\n",
            "tree.nwk:2:1: text after the ';' of tree 1 is not a tree (no closing ';')",
        ),
        case(
            "missing ';'",
            "tree.nwk",
            b"(a,b)\n",
            "tree.nwk:2:1: unexpected end of file: the tree has no closing ';'",
        ),
        case(
            "truncated tree",
            "tree.nwk",
            b"(a:1,(b:2,",
            "tree.nwk:1:11: unexpected end of file inside the tree (truncated?)",
        ),
        case(
            "two labels",
            "tree.nwk",
            b"(a b,c);",
            "tree.nwk:1:4: unexpected 'b'; expected ',', ')' or ';'",
        ),
        case(
            "non-numeric length",
            "tree.nwk",
            b"(a:1x,b);",
            "tree.nwk:1:4: branch length '1x' is not a number",
        ),
        used(
            "NaN length",
            "tree.nwk",
            b"(a:NaN,b);",
            "tree.nwk:1:4: branch length 'NaN' is NaN",
        ),
        used(
            "infinite length",
            "tree.nwk",
            b"(a:-inf,b);",
            "tree.nwk:1:4: branch length '-inf' is infinite",
        ),
        used(
            "length overflowing f32",
            "tree.nwk",
            b"(a:1e39,b);",
            "tree.nwk:1:4: branch length '1e39' overflows f32 (largest finite value 3.4028235e38)",
        ),
        used(
            "subnormal length",
            "tree.nwk",
            b"(a:1e-40,b);",
            "tree.nwk:1:4: branch length '1e-40' is nonzero but below f32::MIN_POSITIVE \
             (1.1754944e-38): in f32 it would be subnormal or zero, and GPUs flush subnormals \
             to zero",
        ),
        case(
            "':' without length",
            "tree.nwk",
            b"(a:,b);",
            "tree.nwk:1:4: ':' without a branch length",
        ),
        case(
            "unclosed comment",
            "tree.nwk",
            b"(a,b)[x;",
            "tree.nwk:1:6: unclosed comment: '[' without ']'",
        ),
        case(
            "unclosed quote",
            "tree.nwk",
            b"('a,b);",
            "tree.nwk:1:2: unclosed quoted label",
        ),
        case(
            "only comments",
            "tree.nwk",
            b"[nothing here]\n",
            "tree.nwk: no tree in the file",
        ),
        // ---- NEXUS
        case(
            "NEXUS without #NEXUS",
            "trees.nex",
            b"begin trees; tree t = (a,b); end;",
            "trees.nex:1:1: missing '#NEXUS' at the start of the file",
        ),
        case(
            "NEXUS block without END",
            "trees.nex",
            b"#NEXUS\nbegin trees;\n tree t = (a,b);\n",
            "trees.nex:2:1: block TREES has no END;",
        ),
        case(
            "NEXUS without trees",
            "trees.nex",
            b"#NEXUS\nbegin taxa; dimensions ntax=2; end;\n",
            "trees.nex: no TREES block with a tree",
        ),
        // ---- parent arrays
        case(
            "duplicate vertex",
            "tree.txt",
            b"0 -1\n1 0\n1 0\n",
            "tree.txt:3:1: duplicate vertex 1 (first on line 2)",
        ),
        case(
            "missing vertex",
            "tree.txt",
            b"0 -1\n1 0\n3 1\n",
            "tree.txt:3:1: missing vertex 2: ids must run 0..=2, but this line has vertex 3",
        ),
        case(
            "missing vertex, sparse ids in order",
            "tree.txt",
            b"1 -1\n2 1\n6 1\n7 1\n9 1\n",
            "tree.txt:3:1: missing vertex 3: ids must run 1..=5, but this line has vertex 6",
        ),
        case(
            "ids not from 0 or 1",
            "tree.txt",
            b"5 -1\n6 5\n",
            "tree.txt:1:1: vertex ids must start at 0 or 1; the smallest is 5",
        ),
        case(
            "parent out of range",
            "tree.txt",
            b"0 -1\n1 7\n",
            "tree.txt:2:1: parent 7 out of range 0..=1 (the root's parent is -1 or empty)",
        ),
        case(
            "self-loop",
            "tree.txt",
            b"0 -1\n1 1\n",
            "tree.txt:2:1: vertex 1 is its own parent",
        ),
        case(
            "several roots",
            "tree.txt",
            b"0 -1\n1 0\n2,,\n",
            "tree.txt:3:1: several roots: vertex 0 (line 1) and vertex 2 (this line) have no parent",
        ),
        case(
            "no root",
            "tree.txt",
            b"0 1\n1 0\n",
            "tree.txt: no root: every vertex has a parent (the root's parent is -1 or empty)",
        ),
        case(
            "cycle",
            "tree.txt",
            b"0 -1\n1 2\n2 3\n3 1\n4 0\n",
            "tree.txt:2:1: cycle: vertex 1 lies on a cycle of 3 vertices, unreachable from the root",
        ),
        case(
            "weights on some lines only",
            "tree.txt",
            b"0 -1 0.5\n1 0\n",
            "tree.txt:2:1: no weight on this line, but line 1 has one (give weights on every line or on none)",
        ),
        case(
            "non-numeric vertex",
            "tree.txt",
            b"0 -1\nv1 0\n",
            "tree.txt:2:1: vertex id 'v1' is not a non-negative integer",
        ),
        case(
            "non-numeric weight",
            "tree.txt",
            b"0,-1,1.5\n1,0,abc\n",
            "tree.txt:2:5: weight 'abc' is not a number",
        ),
        case(
            "too many fields",
            "tree.txt",
            b"0 -1 1 2\n",
            "tree.txt:1:1: expected 'vertex parent [weight]', found 4 fields",
        ),
        // ---- Matrix Market
        case(
            "missing header",
            "graph.mtx",
            b"3 3 2\n2 1\n3 2\n",
            "graph.mtx:1:1: missing Matrix Market header: the first line must be \
             '%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>'",
        ),
        case(
            "array format",
            "graph.mtx",
            b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
            "graph.mtx:1:1: bad Matrix Market header: array (dense) format is not supported; \
             a graph needs the coordinate format",
        ),
        case(
            "skew-symmetric",
            "graph.mtx",
            b"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n",
            "graph.mtx:1:1: bad Matrix Market header: skew-symmetric matrices are not supported \
             (their entries have no single edge weight); use general or symmetric",
        ),
        case(
            "index out of range",
            "graph.mtx",
            b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n4 2\n",
            "graph.mtx:4:1: row 4 out of range 1..=3",
        ),
        case(
            "too few entries",
            "graph.mtx",
            b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n3 2\n",
            "graph.mtx:4:1: the size line declares 3 entries, the file has 2",
        ),
        case(
            "too many entries",
            "graph.mtx",
            b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 1\n3 2\n",
            "graph.mtx:4:1: more entries than the 1 the size line declares",
        ),
        case(
            "absurd entry count",
            "graph.mtx",
            b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1000000000000\n2 1\n3 2\n",
            "graph.mtx:2:1: the size line declares 1000000000000 entries, but only 2 lines follow it",
        ),
        used(
            "subnormal value on a tree edge",
            "graph.mtx",
            b"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1e-40\n3 2 1\n",
            "graph.mtx:3:5: value '1e-40' is nonzero but below f32::MIN_POSITIVE \
             (1.1754944e-38): in f32 it would be subnormal or zero, and GPUs flush subnormals \
             to zero",
        ),
        case(
            "non-numeric value",
            "graph.mtx",
            b"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 x\n",
            "graph.mtx:3:5: value 'x' is not a number",
        ),
        case(
            "disconnected graph",
            "graph.mtx",
            b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 1\n",
            "graph.mtx: the graph is disconnected: 2 components, the largest has 2 of 3 vertices \
             (choose a forest mode: largest or virtual-root)",
        ),
    ];
    let mut index = case(
        "tree index beyond the file",
        "trees.nwk",
        b"(a,b);\n(c,d);\n",
        "trees.nwk: tree index 2 out of range: the file holds 2 tree(s)",
    );
    index.opts.tree_index = 2;
    v.push(index);
    let mut root = case(
        "root not a vertex",
        "graph.mtx",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n",
        "graph.mtx: root 4 is not a vertex (1..=3)",
    );
    root.opts.root = Some(4);
    v.push(root);
    let mut largest = case(
        "root outside the largest component",
        "graph.mtx",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 1\n",
        "graph.mtx: root 3 is not in the largest component (2 vertices, smallest vertex 1)",
    );
    largest.opts.root = Some(3);
    largest.opts.forest = ForestMode::Largest;
    v.push(largest);
    let mut root_nwk = case(
        "root option on a Newick file",
        "tree.nwk",
        b"(a,b);",
        "tree.nwk: a BFS root applies only to Matrix Market graphs, not to newick files",
    );
    root_nwk.opts.root = Some(1);
    v.push(root_nwk);
    v
}

/// Weights-file cases, read against the tree `(a,b)c;`.
fn weight_cases() -> Vec<Case> {
    vec![
        case(
            "unknown key",
            "w.txt",
            b"a 1\nx 2\n",
            "w.txt:2:1: unknown vertex 'x': neither a label nor a vertex id (0..n-1 in preorder of the file)",
        ),
        case(
            "duplicate key",
            "w.txt",
            b"a 1\nb 2\na 3\n",
            "w.txt:3:1: duplicate key 'a' (first on line 1)",
        ),
        case(
            "infinite weight",
            "w.txt",
            b"a,inf\n",
            "w.txt:1:3: weight 'inf' is infinite",
        ),
        case(
            "missing weight",
            "w.txt",
            b"a\n",
            "w.txt:1:1: expected 'key value', found 1 fields",
        ),
        case(
            "subnormal weight",
            "w.txt",
            b"b -1e-42\n",
            "w.txt:1:3: weight '-1e-42' is nonzero but below f32::MIN_POSITIVE (1.1754944e-38): \
             in f32 it would be subnormal or zero, and GPUs flush subnormals to zero",
        ),
        Case {
            tree: "(a,b)1;",
            ..case(
                "key both a label and an id",
                "w.txt",
                b"a 2\n1 5\n",
                "w.txt:2:1: key '1' is ambiguous: the label of vertex 0, and the id of vertex 1 \
                 (0..n-1 in preorder of the file)",
            )
        },
    ]
}

fn io_messages() -> Vec<(&'static str, String)> {
    // Integration tests run in the package directory.
    let missing = read_tree(
        Path::new("tests/data/no-such-file.nwk"),
        &ReadOptions::default(),
    );
    let dir = read_tree(Path::new("tests/data"), &ReadOptions::default());
    vec![
        ("file does not exist", missing.unwrap_err().to_string()),
        ("a directory", dir.unwrap_err().to_string()),
    ]
}

const IO_EXPECTED: [&str; 2] = [
    "tests/data/no-such-file.nwk: cannot read: No such file or directory (os error 2)",
    "tests/data: is a directory, not a file",
];

/// The input as a table cell shows it.
fn shown(c: &Case) -> String {
    if c.input.starts_with(&[0x1f, 0x8b]) {
        return "(gzip data)".into();
    }
    let mut s = String::from_utf8_lossy(&c.input).escape_debug().to_string();
    if c.opts.tree_index > 0 {
        s += &format!("` with tree index {}", c.opts.tree_index);
        return format!("`{s}");
    }
    if c.tree != "(a,b)c;" {
        s += &format!("` for the tree `{}", c.tree);
        return format!("`{s}`");
    }
    if let Some(r) = c.opts.root {
        s += &format!("` with root {r}");
        if c.opts.forest != ForestMode::Refuse {
            s += &format!(", forest mode {}", c.opts.forest);
        }
        return format!("`{s}");
    }
    format!("`{s}`")
}

/// (case, input as shown, actual message, expected message)
fn actual() -> Vec<(&'static str, String, String, String)> {
    let mut out = Vec::new();
    for c in cases() {
        let got = match read_tree_bytes(Path::new(c.file), &c.input, &c.opts) {
            Ok(t) if c.when_used => match t.own_weights() {
                Ok(_) => "<no error when the weights are used>".to_string(),
                Err(e) => e.to_string(),
            },
            Ok(_) => "<no error>".to_string(),
            Err(e) if c.when_used => format!("<read refused: {e}>"),
            Err(e) => e.to_string(),
        };
        out.push((c.what, shown(&c), got, c.message.to_string()));
    }
    for c in weight_cases() {
        let opts = ReadOptions::default();
        let tree = read_tree_bytes(Path::new("t.nwk"), c.tree.as_bytes(), &opts).unwrap();
        let got = match read_weights_bytes(Path::new(c.file), &c.input, &tree) {
            Ok(_) => "<no error>".to_string(),
            Err(e) => e.to_string(),
        };
        out.push((c.what, shown(&c), got, c.message.to_string()));
    }
    for ((what, got), want) in io_messages().into_iter().zip(IO_EXPECTED) {
        out.push((what, "".into(), got, want.to_string()));
    }
    out
}

#[test]
fn exact_messages() {
    let rows = actual();
    let wrong: Vec<_> = rows
        .iter()
        .filter(|(_, _, got, want)| got != want)
        .collect();
    for (what, _, got, want) in &wrong {
        eprintln!("{what}:\n  got:  {got}\n  want: {want}");
    }
    assert!(wrong.is_empty(), "{} messages differ", wrong.len());
    for (_, _, got, _) in &rows {
        assert!(!got.contains('\n'));
    }
}

/// docs/inputs.md lists every message verbatim (table cells escape `|` as `\|`).
#[test]
fn messages_are_documented() {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/inputs.md");
    let doc = std::fs::read_to_string(doc).unwrap().replace("\\|", "|");
    let missing: Vec<_> = actual()
        .into_iter()
        .filter(|(_, _, _, want)| !doc.contains(&format!("`{want}`")))
        .map(|(what, input, _, want)| {
            let cell = |s: &str| s.replace('|', "\\|");
            format!("| {what} | {} | `{}` |", cell(&input), cell(&want))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "not in docs/inputs.md:\n{}",
        missing.join("\n")
    );
}
