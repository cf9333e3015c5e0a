//! Matrix Market coordinate files as graphs: the header, the size line and the entries. The
//! graph's breadth-first spanning tree is built by [`super::spanning`] (the seed paper's
//! benchmark trees were BFS spanning trees of such matrices).
//!
//! Vertices are the file's ids 1..n; the tree's ids are file ids − 1. Diagonal entries are not
//! edges. A value is checked (NaN, infinite, f32 overflow, subnormal) only where it becomes a
//! weight, and then only when the weights are used ([`super::OwnWeights`]); a value that is
//! not a number at all is an error wherever it stands.

use super::ForestMode;
use super::error::{Fail, Reason, What};
use super::mtx_read::{Mtx, Values};
use super::spanning::{Graph, graph_tree};
use super::text::{Lines, parse_f32, parse_u64, show, split_ws};

struct Header {
    valued: bool,
}

fn header(line: &[u8]) -> Result<Header, Reason> {
    let t: Vec<&[u8]> = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    if !t
        .first()
        .is_some_and(|b| b.eq_ignore_ascii_case(b"%%MatrixMarket"))
    {
        return Err(Reason::MtxMissingHeader);
    }
    if t.len() != 5 {
        return Err(Reason::MtxHeader(format!(
            "expected 5 fields '%%MatrixMarket matrix coordinate <field> <symmetry>', found {}",
            t.len()
        )));
    }
    let lower: Vec<String> = t.iter().map(|w| show(w).to_ascii_lowercase()).collect();
    if lower[1] != "matrix" {
        return Err(Reason::MtxHeader(format!(
            "object '{}' is not supported; expected 'matrix'",
            lower[1]
        )));
    }
    match lower[2].as_str() {
        "coordinate" => {}
        "array" => {
            return Err(Reason::MtxHeader(
                "array (dense) format is not supported; a graph needs the coordinate format".into(),
            ));
        }
        other => return Err(Reason::MtxHeader(format!("unknown format '{other}'"))),
    }
    let valued = match lower[3].as_str() {
        "real" | "double" | "integer" => true,
        "pattern" => false,
        "complex" => {
            return Err(Reason::MtxHeader("complex values are not supported".into()));
        }
        other => return Err(Reason::MtxHeader(format!("unknown field '{other}'"))),
    };
    match lower[4].as_str() {
        "general" | "symmetric" => {}
        s @ ("skew-symmetric" | "hermitian") => {
            return Err(Reason::MtxHeader(format!(
                "{s} matrices are not supported (their entries have no single edge weight); \
                 use general or symmetric"
            )));
        }
        other => return Err(Reason::MtxHeader(format!("unknown symmetry '{other}'"))),
    }
    Ok(Header { valued })
}

/// What the size line declares.
struct Size {
    /// Vertices (rows = columns).
    n: u64,
    /// Stored entries.
    nnz: u64,
    /// Its line number.
    line: u64,
}

/// Whether a line after the header is a `%` comment or blank (skipped anywhere).
fn skipped(text: &[u8]) -> bool {
    text.first() == Some(&b'%') || text.iter().all(|b| b.is_ascii_whitespace())
}

/// Reads the size line `rows columns entries` (the first line after the header that is not a
/// comment or blank) and checks what it declares against the reader's limits. `lines` is left
/// after it.
fn size_line(s: &[u8], lines: &mut Lines) -> Result<Size, Fail> {
    let mut toks: Vec<(usize, &[u8])> = Vec::with_capacity(4);
    let mut last_line = 1;
    for (line, start, text) in lines.by_ref() {
        last_line = line;
        if skipped(text) {
            continue;
        }
        split_ws(text, &mut toks);
        let nums: Option<Vec<u64>> = toks.iter().map(|t| parse_u64(t.1)).collect();
        let (m, n, nnz) = match (toks.len(), nums) {
            (3, Some(v)) => (v[0], v[1], v[2]),
            _ => return Err(Fail::At(start, Reason::MtxSizeLine)),
        };
        if m != n {
            return Err(Fail::At(start, Reason::MtxNotSquare { rows: m, cols: n }));
        }
        if n > 1 << 31 {
            return Err(Fail::At(start, Reason::TooManyVertices));
        }
        // Entries are numbered in u32. A count beyond that is almost always a wrong size
        // line, not a huge file: say which, by the lines that follow.
        if nnz >= u32::MAX as u64 {
            let following = lines_after(s, start);
            return Err(Fail::At(
                start,
                if nnz > following {
                    Reason::MtxEntriesBeyondFile {
                        declared: nnz,
                        following,
                    }
                } else {
                    Reason::MtxTooManyEntries { declared: nnz }
                },
            ));
        }
        if n == 0 {
            return Err(Fail::At(start, Reason::NoTree));
        }
        return Ok(Size { n, nnz, line });
    }
    Err(Fail::Line(last_line + 1, Reason::MtxSizeLine))
}

/// Number of lines after the line that starts at byte `start`.
fn lines_after(s: &[u8], start: usize) -> u64 {
    let rest = match s[start..].iter().position(|&b| b == b'\n') {
        Some(p) => &s[start + p + 1..],
        None => &[],
    };
    let newlines = rest.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(!rest.is_empty() && !rest.ends_with(b"\n"))
}

/// The entries: row and column (0-based) and, for valued files, the value.
struct Entries {
    rows: Vec<u32>,
    cols: Vec<u32>,
    values: Values,
}

/// Reads the entries after the size line: exactly as many as it declares, each with its row,
/// column and (valued files) value.
fn entries(s: &[u8], lines: Lines, h: &Header, size: &Size) -> Result<Entries, Fail> {
    let Size { n, nnz, .. } = *size;
    // Memory follows the entries the file can hold, not the count it declares.
    let line_bound = s.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let cap = nnz.min(line_bound) as usize;
    let mut e = Entries {
        rows: Vec::with_capacity(cap),
        cols: Vec::with_capacity(cap),
        values: Values {
            v: Vec::with_capacity(if h.valued { cap } else { 0 }),
            bad: Vec::new(),
        },
    };
    let mut toks: Vec<(usize, &[u8])> = Vec::with_capacity(4);
    let want = if h.valued { 3 } else { 2 };
    let mut count: u64 = 0;
    let mut last_line = size.line;
    for (line, start, text) in lines {
        last_line = line;
        if skipped(text) {
            continue;
        }
        if count == nnz {
            return Err(Fail::At(start, Reason::MtxTooMany { expected: nnz }));
        }
        split_ws(text, &mut toks);
        if toks.len() != want {
            return Err(Fail::At(
                start,
                Reason::MtxFields {
                    found: toks.len(),
                    valued: h.valued,
                },
            ));
        }
        let mut idx = [0u32; 2];
        for k in 0..2 {
            let (off, t) = toks[k];
            let what = if k == 0 { "row" } else { "column" };
            let i = parse_u64(t).ok_or_else(|| {
                Fail::At(
                    start + off,
                    Reason::NotAnInteger {
                        what: What::Index,
                        text: show(t),
                    },
                )
            })?;
            if i == 0 || i > n {
                return Err(Fail::At(
                    start + off,
                    Reason::MtxIndex { what, index: i, n },
                ));
            }
            idx[k] = (i - 1) as u32;
        }
        if h.valued {
            let (off, t) = toks[2];
            match parse_f32(t, What::Value) {
                Ok(x) => e.values.v.push(x),
                Err(r @ Reason::NotANumber { .. }) => return Err(Fail::At(start + off, r)),
                Err(r) => {
                    e.values.bad.push((count as u32, start + off, r));
                    e.values.v.push(f32::NAN);
                }
            }
        }
        e.rows.push(idx[0]);
        e.cols.push(idx[1]);
        count += 1;
    }
    if count < nnz {
        return Err(Fail::Line(
            last_line,
            Reason::MtxTooFew {
                expected: nnz,
                found: count,
            },
        ));
    }
    Ok(e)
}

#[cfg(test)]
pub(crate) fn parse(s: &[u8], root: Option<u64>, forest: ForestMode) -> Result<Mtx, Fail> {
    parse_within(s, root, forest, None)
}

/// Reads a Matrix Market graph's spanning tree, refusing a size line whose tree would need
/// more than `memory_limit` bytes before anything is allocated for it.
pub(crate) fn parse_within(
    s: &[u8],
    root: Option<u64>,
    forest: ForestMode,
    memory_limit: Option<u64>,
) -> Result<Mtx, Fail> {
    let mut lines = Lines::new(s);
    let Some((_, _, first)) = lines.next() else {
        return Err(Fail::File(Reason::Empty));
    };
    let h = header(first).map_err(|r| Fail::Line(1, r))?;
    let size = size_line(s, &mut lines)?;
    // From here on the declared vertex count `size.n` is known: no more entries than lines.
    let line_bound = s.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    super::memory::check_mtx(memory_limit, size.n, size.nnz.min(line_bound), forest)
        .map_err(|r| Fail::Line(size.line, r))?;
    let e = entries(s, lines, &h, &size)?;
    let n = size.n as usize;
    if let Some(r) = root {
        if r == 0 || r > n as u64 {
            return Err(Fail::File(Reason::RootOutOfRange {
                root: r,
                n: n as u64,
            }));
        }
    }
    let root0 = root.map_or(0, |r| (r - 1) as u32);
    graph_tree(
        Graph {
            n,
            rows: e.rows,
            cols: e.cols,
            values: e.values,
            valued: h.valued,
        },
        root,
        root0,
        forest,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NO_PARENT;

    const PATH4: &str = "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n\
        4 4 5\n1 1 9\n2 1 0.5\n3 2 1.5\n4 1 2.5\n4 3 7\n";

    fn reason(r: Result<Mtx, Fail>) -> Reason {
        match r.err().unwrap() {
            Fail::At(_, r) | Fail::Line(_, r) | Fail::File(r) => r,
        }
    }

    #[test]
    fn bfs_tree() {
        let m = parse(PATH4.as_bytes(), None, ForestMode::Refuse).unwrap();
        // Edges 1-2, 2-3, 1-4, 3-4: BFS from 1 reaches 2 and 4, then 3 from 2.
        assert_eq!(m.tree.parents(), &[NO_PARENT, 0, 1, 0]);
        assert_eq!(m.weights.unwrap(), vec![9.0, 0.5, 1.5, 2.5]);
        let m = parse(PATH4.as_bytes(), Some(3), ForestMode::Refuse).unwrap();
        assert_eq!(m.tree.parents(), &[1, 2, NO_PARENT, 2]);
        assert_eq!(m.weights.unwrap(), vec![0.5, 1.5, 0.0, 7.0]);
    }

    #[test]
    fn general_first_stored_entry_and_forests() {
        let g = "%%MatrixMarket matrix coordinate real general\n5 5 5\n2 1 3\n1 2 4\n4 5 6\n5 4 8\n3 3 1\n";
        let r = parse(g.as_bytes(), None, ForestMode::Refuse);
        assert_eq!(
            reason(r),
            Reason::Disconnected {
                components: 3,
                largest: 2,
                n: 5
            }
        );
        let v = parse(g.as_bytes(), None, ForestMode::VirtualRoot).unwrap();
        assert_eq!(v.tree.parents(), &[5, 0, 5, 5, 3, NO_PARENT]);
        assert_eq!(v.weights.unwrap(), vec![0.0, 3.0, 1.0, 0.0, 6.0, 0.0]);
        // Largest: components {1,2} and {4,5} tie; the one holding vertex 1 wins.
        let l = parse(g.as_bytes(), None, ForestMode::Largest).unwrap();
        assert_eq!(l.tree.parents(), &[NO_PARENT, 0]);
        assert_eq!(l.file_ids.unwrap(), vec![1, 2]);
        let l = parse(g.as_bytes(), Some(3), ForestMode::Largest);
        assert!(matches!(
            reason(l),
            Reason::RootNotInLargest { root: 3, .. }
        ));
        let p = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 3\n3 2\n";
        let t = parse(p.as_bytes(), None, ForestMode::Refuse).unwrap();
        assert_eq!(t.tree.parents(), &[NO_PARENT, 2, 0]);
        assert!(t.weights.is_none());
    }

    /// Declared sizes far beyond the entries are searched on the touched vertices only:
    /// no per-vertex memory for 2^31 − 1 declared vertices.
    #[test]
    fn sparse_graphs_cost_their_entries() {
        let huge =
            "%%MatrixMarket matrix coordinate pattern symmetric\n2147483647 2147483647 1\n2 1\n";
        assert_eq!(
            reason(parse(huge.as_bytes(), None, ForestMode::Refuse)),
            Reason::Disconnected {
                components: 2147483646,
                largest: 2,
                n: 2147483647
            }
        );
        let l = parse(huge.as_bytes(), None, ForestMode::Largest).unwrap();
        assert_eq!(l.tree.parents(), &[NO_PARENT, 0]);
        assert_eq!(l.file_ids.unwrap(), vec![1, 2]);
        // The root (vertex 1) untouched; the largest component is {2, 3}.
        let g = "%%MatrixMarket matrix coordinate real general\n6 6 2\n3 2 5\n4 4 7\n";
        let l = parse(g.as_bytes(), None, ForestMode::Largest).unwrap();
        assert_eq!(l.tree.parents(), &[NO_PARENT, 0]);
        assert_eq!(l.file_ids.unwrap(), vec![2, 3]);
        assert_eq!(l.weights.unwrap(), vec![0.0, 5.0]);
        assert_eq!(l.components, 5);
        assert!(matches!(
            reason(parse(g.as_bytes(), Some(1), ForestMode::Largest)),
            Reason::RootNotInLargest {
                root: 1,
                size: 2,
                smallest: 2
            }
        ));
        let v = parse(g.as_bytes(), None, ForestMode::VirtualRoot).unwrap();
        assert_eq!(v.tree.parents(), &[6, 6, 1, 6, 6, 6, NO_PARENT]);
        assert_eq!(v.weights.unwrap(), vec![0.0, 0.0, 5.0, 7.0, 0.0, 0.0, 0.0]);
        // No edges at all: every component has one vertex; vertex 1 wins the tie.
        let e = "%%MatrixMarket matrix coordinate real general\n5 5 1\n1 1 2.5\n";
        let l = parse(e.as_bytes(), None, ForestMode::Largest).unwrap();
        assert_eq!((l.tree.len(), l.weights.unwrap()), (1, vec![2.5]));
        let l = parse(e.as_bytes(), Some(4), ForestMode::Largest);
        assert!(matches!(
            reason(l),
            Reason::RootNotInLargest { root: 4, .. }
        ));
    }

    #[test]
    fn errors() {
        let e = |s: &str| reason(parse(s.as_bytes(), None, ForestMode::Refuse));
        assert_eq!(e("3 3 0\n"), Reason::MtxMissingHeader);
        assert!(matches!(
            e("%%MatrixMarket matrix array real general\n2 2\n"),
            Reason::MtxHeader(_)
        ));
        assert!(matches!(
            e("%%MatrixMarket matrix coordinate real skew-symmetric\n"),
            Reason::MtxHeader(_)
        ));
        assert!(matches!(
            e("%%MatrixMarket matrix coordinate complex general\n"),
            Reason::MtxHeader(_)
        ));
        let h = "%%MatrixMarket matrix coordinate real general\n";
        assert_eq!(e(h), Reason::MtxSizeLine);
        assert_eq!(
            e(&format!("{h}2 3 1\n1 2 1\n")),
            Reason::MtxNotSquare { rows: 2, cols: 3 }
        );
        assert_eq!(
            e(&format!("{h}2 2 1\n1 3 1\n")),
            Reason::MtxIndex {
                what: "column",
                index: 3,
                n: 2
            }
        );
        assert_eq!(
            e(&format!("{h}2 2 2\n1 2 1\n")),
            Reason::MtxTooFew {
                expected: 2,
                found: 1
            }
        );
        assert_eq!(
            e(&format!("{h}2 2 1\n1 2 1\n2 1 1\n")),
            Reason::MtxTooMany { expected: 1 }
        );
        assert!(matches!(
            e(&format!("{h}2 2 1\n1 2 x\n")),
            Reason::NotANumber { .. }
        ));
        assert_eq!(
            e(&format!("{h}2 2 1\n1 2\n")),
            Reason::MtxFields {
                found: 2,
                valued: true
            }
        );
        // A bad value is noted only where it becomes a weight (an error when used).
        let refused = |s: String| {
            let m = parse(s.as_bytes(), None, ForestMode::Refuse).unwrap();
            m.refused
                .under(crate::io::Subnormal::Refuse)
                .0
                .map(|(_, r)| r)
        };
        assert!(matches!(
            refused(format!("{h}2 2 1\n1 2 1e99\n")),
            Some(Reason::Overflow { .. })
        ));
        assert_eq!(refused(format!("{h}2 2 2\n1 2 1\n2 1 nan\n")), None);
        // An entry count beyond u32: the size line names it and what follows.
        assert_eq!(
            e(&format!("{h}3 3 1000000000000\n2 1 1\n3 2 1\n")),
            Reason::MtxEntriesBeyondFile {
                declared: 1000000000000,
                following: 2
            }
        );
        assert_eq!(
            e(&format!("{h}3 3 4294967295\n2 1 1\n3 2 1")),
            Reason::MtxEntriesBeyondFile {
                declared: 4294967295,
                following: 2
            }
        );
        assert_eq!(
            e(&format!("{h}3 3 4294967295")),
            Reason::MtxEntriesBeyondFile {
                declared: 4294967295,
                following: 0
            }
        );
        assert_eq!(
            e(&format!("{h}3000000000 3000000000 1\n2 1 1\n")),
            Reason::TooManyVertices
        );
        assert_eq!(
            reason(parse(PATH4.as_bytes(), Some(5), ForestMode::Refuse)),
            Reason::RootOutOfRange { root: 5, n: 4 }
        );
    }
}
