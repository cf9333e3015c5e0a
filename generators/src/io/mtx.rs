//! Matrix Market coordinate files as graphs, and their breadth-first spanning trees (the seed
//! paper's benchmark trees were BFS spanning trees of such matrices).
//!
//! Vertices are the file's ids 1..n; the tree's ids are file ids − 1. Diagonal entries are not
//! edges. BFS visits neighbours in increasing vertex order, so every vertex's children come in
//! increasing id order (natural child order). A vertex's weight is the value of the entry of
//! its tree edge; where several entries give the same edge (a_ij and a_ji of a general
//! matrix, or repeated entries), the first stored one. A BFS root's weight is its diagonal
//! value if one is stored (the first), else 0. Values are checked (NaN, infinite, f32
//! overflow, subnormal) only where they become weights. Memory is linear in the number of
//! entries, whatever size the file declares (see [`graph_tree`]), except for forest mode
//! `VirtualRoot`, whose tree has every declared vertex.

use super::ForestMode;
use super::error::{Fail, Reason, What};
use super::text::{Lines, parse_f32, parse_u64, show, split_ws};
use crate::{ChildOrder, NO_PARENT, Tree};

pub(crate) struct Mtx {
    pub tree: Tree,
    pub weights: Option<Vec<f32>>,
    /// File ids of the tree's vertices when they are not `v + 1` (forest mode `Largest`).
    pub file_ids: Option<Vec<u64>>,
    /// Number of vertices of the file.
    pub file_vertices: u64,
    /// Connected components of the graph.
    pub components: usize,
}

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

/// An entry's value, or where and why it is not a valid f32 weight (checked only if used).
struct Values {
    v: Vec<f32>,
    /// (entry, byte offset, reason) of values that are not valid weights; their `v` is NaN.
    bad: Vec<(u32, usize, Reason)>,
}

impl Values {
    fn get(&self, e: u32) -> Result<f32, Fail> {
        let x = self.v[e as usize];
        if x.is_nan() {
            let i = self
                .bad
                .binary_search_by_key(&e, |b| b.0)
                .expect("NaN placeholders are recorded");
            let (_, at, r) = &self.bad[i];
            return Err(Fail::At(*at, r.clone()));
        }
        Ok(x)
    }
}

#[cfg(test)]
pub(crate) fn parse(s: &[u8], root: Option<u64>, forest: ForestMode) -> Result<Mtx, Fail> {
    parse_within(s, root, forest, None)
}

/// [`parse`], refusing a size line whose tree would need more than `memory_limit` bytes.
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
    let line_bound = s.iter().filter(|&&b| b == b'\n').count() as u64 + 1;

    // Size line.
    let mut size: Option<(u64, u64, u64)> = None;
    let mut rows: Vec<u32> = Vec::new();
    let mut cols: Vec<u32> = Vec::new();
    let mut values = Values {
        v: Vec::new(),
        bad: Vec::new(),
    };
    let mut toks: Vec<(usize, &[u8])> = Vec::with_capacity(4);
    let mut last_line = 1;
    for (line, start, text) in lines.by_ref() {
        last_line = line;
        if text.first() == Some(&b'%') || text.iter().all(|b| b.is_ascii_whitespace()) {
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
        if n > 1 << 31 || nnz >= u32::MAX as u64 {
            return Err(Fail::At(start, Reason::TooManyVertices));
        }
        if n == 0 {
            return Err(Fail::At(start, Reason::NoTree));
        }
        size = Some((m, n, nnz));
        let cap = nnz.min(line_bound) as usize;
        super::memory::check_mtx(memory_limit, n, cap as u64, forest)
            .map_err(|r| Fail::At(start, r))?;
        rows.reserve(cap);
        cols.reserve(cap);
        values.v.reserve(if h.valued { cap } else { 0 });
        break;
    }
    let Some((_, n, nnz)) = size else {
        return Err(Fail::Line(last_line + 1, Reason::MtxSizeLine));
    };

    // Entries.
    let want = if h.valued { 3 } else { 2 };
    let mut count: u64 = 0;
    for (line, start, text) in lines {
        last_line = line;
        if text.first() == Some(&b'%') || text.iter().all(|b| b.is_ascii_whitespace()) {
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
                Ok(x) => values.v.push(x),
                Err(r @ Reason::NotANumber { .. }) => return Err(Fail::At(start + off, r)),
                Err(r) => {
                    values.bad.push((count as u32, start + off, r));
                    values.v.push(f32::NAN);
                }
            }
        }
        rows.push(idx[0]);
        cols.push(idx[1]);
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
    let n = n as usize;
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
            rows,
            cols,
            values,
            valued: h.valued,
        },
        root,
        root0,
        forest,
    )
}

struct Graph {
    n: usize,
    rows: Vec<u32>,
    cols: Vec<u32>,
    values: Values,
    valued: bool,
}

/// The BFS spanning tree (or forest handling) of a graph.
///
/// Memory is linear in the entries, not in the declared size: when the entries cannot touch
/// every vertex (n > 2·off-diagonal entries + 1), the graph is searched on the touched
/// vertices only and the untouched ones are counted as isolated components; only forest mode
/// `VirtualRoot`, whose tree has every vertex, allocates per declared vertex.
fn graph_tree(g: Graph, root: Option<u64>, root0: u32, forest: ForestMode) -> Result<Mtx, Fail> {
    let Graph {
        n,
        rows,
        cols,
        values,
        valued,
    } = g;
    // Diagonal entries, first stored per vertex: (vertex, entry), sorted by vertex.
    let mut diag: Vec<(u32, u32)> = Vec::new();
    let mut offdiag = 0usize;
    for (e, (&r, &c)) in rows.iter().zip(&cols).enumerate() {
        if r == c {
            diag.push((r, e as u32));
        } else {
            offdiag += 1;
        }
    }
    diag.sort_by_key(|d| d.0); // stable: the first stored entry of a vertex comes first
    diag.dedup_by_key(|d| d.0);
    let diag_of = |v: u32| {
        diag.binary_search_by_key(&v, |d| d.0)
            .ok()
            .map(|i| diag[i].1)
    };

    // The searched vertices: all of them, or (sparse case) the touched ones and the root,
    // in increasing id, so that compressed ids keep the order of file ids.
    let sparse = n as u64 > 2 * offdiag as u64 + 1;
    let verts: Option<Vec<u32>> = sparse.then(|| {
        let mut v: Vec<u32> = Vec::with_capacity(2 * offdiag + 1);
        for (&r, &c) in rows.iter().zip(&cols) {
            if r != c {
                v.push(r);
                v.push(c);
            }
        }
        v.push(root0);
        v.sort_unstable();
        v.dedup();
        v
    });
    let m = verts.as_ref().map_or(n, |v| v.len());
    let idx = |x: u32| -> usize {
        match &verts {
            None => x as usize,
            Some(v) => v.binary_search(&x).expect("touched vertex"),
        }
    };
    let file_vertex = |i: usize| -> u32 {
        match &verts {
            None => i as u32,
            Some(v) => v[i],
        }
    };

    // Adjacency (CSR) of the undirected graph; each arc packs (neighbour << 32 | entry), so
    // sorting a vertex's arcs orders neighbours by id and duplicates by storage order.
    let mut start = vec![0usize; m + 1];
    for (&r, &c) in rows.iter().zip(&cols) {
        if r != c {
            start[idx(r) + 1] += 1;
            start[idx(c) + 1] += 1;
        }
    }
    for v in 0..m {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut arcs = vec![0u64; start[m]];
    for (e, (&r, &c)) in rows.iter().zip(&cols).enumerate() {
        if r != c {
            let (ri, ci) = (idx(r), idx(c));
            arcs[fill[ri]] = (ci as u64) << 32 | e as u64;
            fill[ri] += 1;
            arcs[fill[ci]] = (ri as u64) << 32 | e as u64;
            fill[ci] += 1;
        }
    }
    drop(fill);
    drop(rows);
    drop(cols);
    for v in 0..m {
        arcs[start[v]..start[v + 1]].sort_unstable();
    }

    // BFS from the root, then from the smallest unvisited vertex, until all are visited.
    const UNSEEN: u32 = u32::MAX;
    let mut comp = vec![UNSEEN; m];
    let mut parent = vec![NO_PARENT; m];
    let mut edge = vec![u32::MAX; m];
    let mut starts: Vec<u32> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    let mut queue: Vec<u32> = Vec::with_capacity(m);
    let mut next_unseen = 0;
    let mut s0 = idx(root0);
    loop {
        let c = starts.len() as u32;
        starts.push(s0 as u32);
        comp[s0] = c;
        queue.clear();
        queue.push(s0 as u32);
        let mut head = 0;
        while head < queue.len() {
            let u = queue[head] as usize;
            head += 1;
            for &a in &arcs[start[u]..start[u + 1]] {
                let w = (a >> 32) as usize;
                if comp[w] == UNSEEN {
                    comp[w] = c;
                    parent[w] = u as u32;
                    edge[w] = a as u32;
                    queue.push(w as u32);
                }
            }
        }
        sizes.push(queue.len());
        while next_unseen < m && comp[next_unseen] != UNSEEN {
            next_unseen += 1;
        }
        if next_unseen == m {
            break;
        }
        s0 = next_unseen;
    }
    drop(arcs);
    drop(queue);
    drop(start);
    let isolated = n - m; // untouched vertices (sparse case): one component each
    let components = starts.len() + isolated;

    // Weight of searched vertex i: its tree edge's entry, else its diagonal, else 0.
    let weight_of = |i: usize| -> Result<f32, Fail> {
        if edge[i] != u32::MAX {
            values.get(edge[i])
        } else {
            diag_of(file_vertex(i)).map_or(Ok(0.0), |e| values.get(e))
        }
    };

    if components > 1 {
        match forest {
            ForestMode::Refuse => {
                return Err(Fail::File(Reason::Disconnected {
                    components,
                    largest: sizes.iter().copied().max().unwrap_or(1),
                    n,
                }));
            }
            ForestMode::Largest => {
                // Smallest searched vertex of each component (after the first, the BFS start).
                let mut smallest = starts.clone();
                for i in (0..m).rev() {
                    let c = comp[i] as usize;
                    smallest[c] = smallest[c].min(i as u32);
                }
                let best = (0..starts.len())
                    .max_by(|&a, &b| sizes[a].cmp(&sizes[b]).then(smallest[b].cmp(&smallest[a])))
                    .expect("at least one component");
                // An untouched vertex is a component of size 1; vertex 1 of the file is the
                // smallest vertex of all, so it wins ties of size 1.
                if sizes[best] == 1 && file_vertex(smallest[best] as usize) != 0 {
                    if root.is_some_and(|r| r != 1) {
                        return Err(Fail::File(Reason::RootNotInLargest {
                            root: root.unwrap_or(1),
                            size: 1,
                            smallest: 1,
                        }));
                    }
                    let w = diag_of(0).map_or(Ok(0.0), |e| values.get(e))?;
                    let tree = Tree::from_parents(vec![NO_PARENT], ChildOrder::Natural)
                        .map_err(|e| Fail::File(Reason::Tree(e)))?;
                    return Ok(Mtx {
                        tree,
                        weights: valued.then(|| vec![w]),
                        file_ids: Some(vec![1]),
                        file_vertices: n as u64,
                        components,
                    });
                }
                if best != 0 && root.is_some() {
                    return Err(Fail::File(Reason::RootNotInLargest {
                        root: root.unwrap_or(1),
                        size: sizes[best],
                        smallest: file_vertex(smallest[best] as usize) as u64 + 1,
                    }));
                }
                let mut new_id = vec![u32::MAX; m];
                let mut kept_idx: Vec<usize> = Vec::with_capacity(sizes[best]);
                for i in 0..m {
                    if comp[i] as usize == best {
                        new_id[i] = kept_idx.len() as u32;
                        kept_idx.push(i);
                    }
                }
                let kept: Vec<u32> = kept_idx
                    .iter()
                    .map(|&i| match parent[i] {
                        NO_PARENT => NO_PARENT,
                        p => new_id[p as usize],
                    })
                    .collect();
                let weights = if valued {
                    Some(
                        kept_idx
                            .iter()
                            .map(|&i| weight_of(i))
                            .collect::<Result<_, _>>()?,
                    )
                } else {
                    None
                };
                let file_ids = kept_idx
                    .iter()
                    .map(|&i| file_vertex(i) as u64 + 1)
                    .collect();
                let tree = Tree::from_parents(kept, ChildOrder::Natural)
                    .map_err(|e| Fail::File(Reason::Tree(e)))?;
                return Ok(Mtx {
                    tree,
                    weights,
                    file_ids: Some(file_ids),
                    file_vertices: n as u64,
                    components,
                });
            }
            ForestMode::VirtualRoot => {
                if n >= 1 << 31 {
                    return Err(Fail::File(Reason::TooManyVertices));
                }
                // Every vertex of the file, and the virtual root n. Untouched vertices hang
                // from it directly.
                let mut full = vec![n as u32; n + 1];
                full[n] = NO_PARENT;
                let mut w = if valued {
                    vec![0.0f32; n + 1]
                } else {
                    Vec::new()
                };
                for (i, &p) in parent.iter().enumerate() {
                    let v = file_vertex(i) as usize;
                    if p != NO_PARENT {
                        full[v] = file_vertex(p as usize);
                    }
                    if valued {
                        w[v] = weight_of(i)?;
                    }
                }
                if valued && isolated > 0 {
                    for &(v, e) in &diag {
                        if idx_of(&verts, v).is_none() {
                            w[v as usize] = values.get(e)?;
                        }
                    }
                }
                let tree = Tree::from_parents(full, ChildOrder::Natural)
                    .map_err(|e| Fail::File(Reason::Tree(e)))?;
                return Ok(Mtx {
                    tree,
                    weights: valued.then_some(w),
                    file_ids: None,
                    file_vertices: n as u64,
                    components,
                });
            }
        }
    }
    // Connected: every vertex was searched (m = n) and ids are file ids − 1.
    debug_assert_eq!(m, n);
    let weights = if valued {
        Some((0..n).map(weight_of).collect::<Result<Vec<f32>, Fail>>()?)
    } else {
        None
    };
    let tree =
        Tree::from_parents(parent, ChildOrder::Natural).map_err(|e| Fail::File(Reason::Tree(e)))?;
    Ok(Mtx {
        tree,
        weights,
        file_ids: None,
        file_vertices: n as u64,
        components,
    })
}

/// Whether vertex `v` was searched (always, unless the graph was searched sparsely).
fn idx_of(verts: &Option<Vec<u32>>, v: u32) -> Option<usize> {
    match verts {
        None => Some(v as usize),
        Some(vs) => vs.binary_search(&v).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // A bad value is an error only where it becomes a weight.
        assert!(matches!(
            e(&format!("{h}2 2 1\n1 2 1e99\n")),
            Reason::Overflow { .. }
        ));
        let ok = parse(
            format!("{h}2 2 2\n1 2 1\n2 1 nan\n").as_bytes(),
            None,
            ForestMode::Refuse,
        );
        assert!(ok.is_ok());
        assert_eq!(
            reason(parse(PATH4.as_bytes(), Some(5), ForestMode::Refuse)),
            Reason::RootOutOfRange { root: 5, n: 4 }
        );
    }
}
