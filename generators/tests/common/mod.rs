//! Shared by the reader tests and the `fuzz_readers` example: writers of every format (for
//! round trips and corpora), and byte mutations of near-valid inputs.
#![allow(dead_code)]

mod pieces;
#[allow(unused_imports)]
pub use pieces::Pieces;

use generators::{ChildOrder, NO_PARENT, Tree};
use std::fmt::Write as _;
use std::io::Write as _;

/// The readers and layers under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Newick,
    Nexus,
    Mtx,
    Parents,
    Weights,
    Gzip,
}

impl Target {
    pub const ALL: [Target; 6] = [
        Target::Newick,
        Target::Nexus,
        Target::Mtx,
        Target::Parents,
        Target::Weights,
        Target::Gzip,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::Newick => "newick",
            Target::Nexus => "nexus",
            Target::Mtx => "mtx",
            Target::Parents => "parents",
            Target::Weights => "weights",
            Target::Gzip => "gzip",
        }
    }

    pub fn parse(s: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Tokens a mutation may insert besides [`COMMON_TOKENS`]: the format's syntax.
    pub fn own_tokens(self) -> &'static [&'static [u8]] {
        match self {
            Target::Newick => &[
                b"(", b")", b",", b":", b";", b"[", b"]", b"'", b"''", b"[&R]", b"((", b"))", b":1",
            ],
            Target::Nexus => &[
                b"#NEXUS",
                b"BEGIN TREES;",
                b"END;",
                b"tree t = ",
                b"TRANSLATE",
                b"=",
                b";",
                b"'",
                b"\"",
                b"(",
                b")",
                b",",
                b":",
                b"[",
                b"]",
                b"begin data;",
            ],
            Target::Mtx => &[
                b"%%MatrixMarket matrix coordinate real general\n",
                b"%",
                b"pattern",
                b"symmetric",
                b"array",
                b"1 1",
                b"0 0",
                b"5",
                b"\n1 2 3",
            ],
            Target::Parents | Target::Weights => &[b"0 -1\n", b",,", b"1,0", b"2 2", b"-2"],
            Target::Gzip => &[b"\x1f\x8b", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"],
        }
    }

    /// Token `i` (modulo their number) of the format's own tokens and the common ones.
    pub fn token(self, i: usize) -> &'static [u8] {
        let own = self.own_tokens();
        let i = i % (own.len() + COMMON_TOKENS.len());
        if i < own.len() {
            own[i]
        } else {
            COMMON_TOKENS[i - own.len()]
        }
    }
}

/// Hostile numbers and separators, for every format.
pub const COMMON_TOKENS: &[&[u8]] = &[
    b"1e39",
    b"nan",
    b"-inf",
    b"inf",
    b"1e-40",
    b"-1e-46",
    b"99999999999999999999",
    b"-1",
    b"0",
    b"\n",
    b" ",
    b"\t",
    b",",
    b"\r\n",
    b"#",
    b"\xc3\xa9",
    b"\xff",
    b"\0",
    b"3.4028236e38",
    b"4294967296",
    b"2147483648",
    b"1.17549430e-38",
];

/// One mutation; positions are taken modulo the input length when applied.
#[derive(Debug, Clone)]
pub enum Mutation {
    FlipBit {
        at: usize,
        bit: u8,
    },
    SetByte {
        at: usize,
        byte: u8,
    },
    Truncate {
        at: usize,
    },
    Delete {
        at: usize,
        len: usize,
    },
    InsertToken {
        at: usize,
        token: usize,
    },
    /// Repeat a token many times (huge numbers, deep nesting).
    RepeatToken {
        at: usize,
        token: usize,
        times: usize,
    },
    DuplicateLine {
        line: usize,
    },
    DeleteLine {
        line: usize,
    },
    SwapLines {
        a: usize,
        b: usize,
    },
}

fn line_bounds(s: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        if b == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < s.len() {
        out.push((start, s.len()));
    }
    out
}

/// Applies mutations in order.
pub fn mutate(input: &[u8], target: Target, muts: &[Mutation]) -> Vec<u8> {
    let mut s = input.to_vec();
    for m in muts {
        let len = s.len();
        let pos = |at: usize| if len == 0 { 0 } else { at % (len + 1) };
        match *m {
            Mutation::FlipBit { at, bit } => {
                if len > 0 {
                    s[at % len] ^= 1 << (bit % 8);
                }
            }
            Mutation::SetByte { at, byte } => {
                if len > 0 {
                    s[at % len] = byte;
                }
            }
            Mutation::Truncate { at } => s.truncate(pos(at)),
            Mutation::Delete { at, len: k } => {
                let a = pos(at);
                let b = (a + k % 16).min(len);
                s.drain(a..b);
            }
            Mutation::InsertToken { at, token } => {
                let a = pos(at);
                let t = target.token(token);
                s.splice(a..a, t.iter().copied());
            }
            Mutation::RepeatToken { at, token, times } => {
                let a = pos(at);
                let t = target.token(token);
                let rep: Vec<u8> = t.repeat(1 + times % 4096);
                s.splice(a..a, rep);
            }
            Mutation::DuplicateLine { line } => {
                let lines = line_bounds(&s);
                if !lines.is_empty() {
                    let (a, b) = lines[line % lines.len()];
                    let copy = s[a..b].to_vec();
                    s.splice(b..b, copy);
                }
            }
            Mutation::DeleteLine { line } => {
                let lines = line_bounds(&s);
                if !lines.is_empty() {
                    let (a, b) = lines[line % lines.len()];
                    s.drain(a..b);
                }
            }
            Mutation::SwapLines { a, b } => {
                let lines = line_bounds(&s);
                if lines.len() >= 2 {
                    let (x, y) = (lines[a % lines.len()], lines[b % lines.len()]);
                    let (x, y) = if x.0 <= y.0 { (x, y) } else { (y, x) };
                    if x != y {
                        let mut out = Vec::with_capacity(s.len());
                        out.extend_from_slice(&s[..x.0]);
                        out.extend_from_slice(&s[y.0..y.1]);
                        out.extend_from_slice(&s[x.1..y.0]);
                        out.extend_from_slice(&s[x.0..x.1]);
                        out.extend_from_slice(&s[y.1..]);
                        s = out;
                    }
                }
            }
        }
    }
    s
}

/// A random mutation from a generator (for the long-run driver).
pub fn random_mutation(rng: &mut impl rand::RngExt) -> Mutation {
    let at = rng.random::<u32>() as usize;
    match rng.random_range(0..9) {
        0 => Mutation::FlipBit {
            at,
            bit: rng.random(),
        },
        1 => Mutation::SetByte {
            at,
            byte: rng.random(),
        },
        2 => Mutation::Truncate { at },
        3 => Mutation::Delete {
            at,
            len: rng.random_range(1..16),
        },
        4 | 5 => Mutation::InsertToken {
            at,
            token: rng.random::<u32>() as usize,
        },
        6 => Mutation::RepeatToken {
            at,
            token: rng.random::<u32>() as usize,
            times: rng.random_range(0..4096),
        },
        7 => Mutation::DuplicateLine { line: at },
        _ => {
            if rng.random() {
                Mutation::DeleteLine { line: at }
            } else {
                Mutation::SwapLines {
                    a: at,
                    b: rng.random::<u32>() as usize,
                }
            }
        }
    }
}

// ---------------------------------------------------------------- writers

/// A tree from `choice[v − 1] % v` as the parent of v (a random recursive tree when the
/// choices are random).
pub fn tree_from_choices(choices: &[u32]) -> Tree {
    let mut parent = vec![NO_PARENT];
    for (i, &c) in choices.iter().enumerate() {
        parent.push(c % (i as u32 + 1));
    }
    Tree::from_parents(parent, ChildOrder::Natural).unwrap()
}

/// A label quoted for Newick when it needs to be.
pub fn newick_label(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes().all(|b| {
            !matches!(b, b'(' | b')' | b'[' | b']' | b'\'' | b':' | b';' | b',')
                && !b.is_ascii_whitespace()
        });
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

/// Writes `f` so that it reads back to the same bits (shortest round-trip form; `{:e}` or
/// plain, alternating by `style`).
pub fn num(f: f32, style: usize) -> String {
    if style.is_multiple_of(2) {
        format!("{f}")
    } else {
        format!("{f:e}")
    }
}

/// Newick of a tree, children in child order (file order), lengths and labels optional.
pub fn write_newick(t: &Tree, weights: Option<&[f32]>, labels: Option<&[String]>) -> String {
    let mut s = String::new();
    // (vertex, next child index)
    let mut stack: Vec<(u32, usize)> = vec![(t.root(), 0)];
    let tail = |s: &mut String, v: u32| {
        if let Some(l) = labels {
            s.push_str(&newick_label(&l[v as usize]));
        }
        if let Some(w) = weights {
            let _ = write!(s, ":{}", num(w[v as usize], v as usize));
        }
    };
    if !t.children(t.root()).is_empty() {
        s.push('(');
    }
    while let Some(&mut (v, ref mut i)) = stack.last_mut() {
        let ch = t.children(v);
        if *i < ch.len() {
            if *i > 0 {
                s.push(',');
            }
            let c = ch[*i];
            *i += 1;
            if t.children(c).is_empty() {
                tail(&mut s, c);
            } else {
                s.push('(');
                stack.push((c, 0));
            }
        } else {
            stack.pop();
            if !ch.is_empty() {
                s.push(')');
            }
            tail(&mut s, v);
        }
    }
    s.push_str(";\n");
    s
}

/// A NEXUS file holding the trees given as Newick strings, with a TRANSLATE table.
pub fn write_nexus(trees: &[String], translate: &[(String, String)]) -> String {
    let mut s = String::from(
        "#NEXUS\n[written by the reader tests]\nBEGIN TAXA;\n  DIMENSIONS NTAX=0;\nEND;\n\nBegin Trees;\n",
    );
    if !translate.is_empty() {
        s.push_str("  Translate\n");
        for (i, (k, v)) in translate.iter().enumerate() {
            let sep = if i + 1 == translate.len() { ";" } else { "," };
            let _ = writeln!(s, "    {} {}{}", k, newick_label(v), sep);
        }
    }
    for (i, t) in trees.iter().enumerate() {
        let _ = write!(s, "  TREE tree{i} = [&R] {t}");
    }
    s.push_str("End;\n");
    s
}

/// A parent array of `t`: lines in `order` (a permutation of the vertices), ids + `base`.
pub fn write_parents(
    t: &Tree,
    weights: Option<&[f32]>,
    base: u64,
    comma: bool,
    order: &[u32],
) -> String {
    let mut s = String::from("# vertex parent weight\n");
    for &v in order {
        let id = v as u64 + base;
        let p = match t.parent(v) {
            Some(p) => (p as u64 + base).to_string(),
            None if comma => String::new(),
            None => "-1".into(),
        };
        let _ = match (weights, comma) {
            (Some(w), true) => writeln!(s, "{id},{p},{}", num(w[v as usize], v as usize)),
            (Some(w), false) => writeln!(s, "{id} {p} {}", num(w[v as usize], v as usize)),
            (None, true) => writeln!(s, "{id},{p},"),
            (None, false) => writeln!(s, "{id} {p}"),
        };
    }
    s
}

/// A symmetric Matrix Market file whose graph is `t` (entry (child, parent) = the child's
/// weight; the root's weight on the diagonal). Entries in the given order of vertices.
pub fn write_mtx(t: &Tree, weights: Option<&[f32]>, order: &[u32]) -> String {
    let field = if weights.is_some() { "real" } else { "pattern" };
    let n = t.len();
    let nnz = n - 1 + weights.is_some() as usize;
    let mut s = format!(
        "%%MatrixMarket matrix coordinate {field} symmetric\n% written by the reader tests\n{n} {n} {nnz}\n"
    );
    for &v in order {
        let (r, c) = match t.parent(v) {
            Some(p) => (v as usize + 1, p as usize + 1),
            None if weights.is_some() => (v as usize + 1, v as usize + 1),
            None => continue,
        };
        // Lower triangle, as the format asks of symmetric matrices.
        let (r, c) = (r.max(c), r.min(c));
        match weights {
            Some(w) => {
                let _ = writeln!(s, "{r} {c} {}", num(w[v as usize], v as usize));
            }
            None => {
                let _ = writeln!(s, "{r} {c}");
            }
        }
    }
    s
}

/// gzip of `data` (one member).
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// The directory of the copied real files.
pub fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}
