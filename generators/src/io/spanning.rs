//! The breadth-first spanning tree of a Matrix Market graph, and what to do when the graph is
//! disconnected ([`ForestMode`]).
//!
//! BFS visits neighbours in increasing vertex order, so every vertex's children come in
//! increasing id order (natural child order). A vertex's weight is the value of the entry of
//! its tree edge; where several entries give the same edge (a_ij and a_ji of a general
//! matrix, or repeated entries), the first stored one. A BFS root's weight is its diagonal
//! value if one is stored (the first), else 0.
//!
//! Memory is linear in the entries, not in the declared size: when the entries cannot touch
//! every vertex (n > 2·off-diagonal entries + 1), the graph is searched on the touched
//! vertices only and the untouched ones are counted as isolated components; only forest mode
//! `VirtualRoot`, whose tree has every vertex, allocates per declared vertex.

use super::ForestMode;
use super::error::{Fail, Reason};
use super::mtx_read::{Mtx, Values};
use super::own_weights::Refused;
use crate::{ChildOrder, NO_PARENT, Tree};

/// A graph as read from the file: n vertices and the entries (0-based row, column, value).
pub(crate) struct Graph {
    pub n: usize,
    pub rows: Vec<u32>,
    pub cols: Vec<u32>,
    pub values: Values,
    pub valued: bool,
}

/// The BFS spanning tree (or forest handling) of a graph, from `root0` (0-based; `root` is
/// the option as given, which decides some errors of forest mode `Largest`).
pub(crate) fn graph_tree(
    g: Graph,
    root: Option<u64>,
    root0: u32,
    forest: ForestMode,
) -> Result<Mtx, Fail> {
    let Graph {
        n,
        rows,
        cols,
        values,
        valued,
    } = g;
    let diag = Diagonal::of(&rows, &cols);
    let verts = Searched::of(n, &rows, &cols, diag.offdiag, root0);
    let adj = Adjacency::build(&verts, rows, cols);
    let search = Search::run(&adj, verts.idx(root0));
    drop(adj);
    let isolated = n - verts.len(); // untouched vertices (sparse case): one component each
    let components = search.starts.len() + isolated;
    let weigh = Weigher {
        values: &values,
        diag: &diag,
        verts: &verts,
        edge: &search.edge,
        refused: Refused::default(),
    };
    let built = if components == 1 {
        // Connected: every vertex was searched (m = n) and ids are file ids − 1.
        debug_assert_eq!(verts.len(), n);
        let mut weigh = weigh;
        let weights = valued.then(|| (0..n).map(|i| weigh.of(i)).collect());
        Built {
            parent: search.parent,
            weights,
            file_ids: None,
            refused: weigh.refused,
        }
    } else {
        match forest {
            ForestMode::Refuse => {
                return Err(Fail::File(Reason::Disconnected {
                    components,
                    largest: search.sizes.iter().copied().max().unwrap_or(1),
                    n,
                }));
            }
            ForestMode::Largest => largest(&search, &verts, root, valued, weigh)?,
            ForestMode::VirtualRoot => {
                if n >= 1 << 31 {
                    return Err(Fail::File(Reason::TooManyVertices));
                }
                virtual_root(n, &search, &verts, isolated, valued, weigh)
            }
        }
    };
    let tree = Tree::from_parents(built.parent, ChildOrder::Natural)
        .map_err(|e| Fail::File(Reason::Tree(e)))?;
    Ok(Mtx {
        tree,
        weights: built.weights,
        refused: built.refused,
        file_ids: built.file_ids,
        file_vertices: n as u64,
        components,
    })
}

/// A tree as a parent array, with its weights (valued files), the file ids of its vertices
/// when they are not `v + 1`, and the values that became weights but are no valid ones.
struct Built {
    parent: Vec<u32>,
    weights: Option<Vec<f32>>,
    file_ids: Option<Vec<u64>>,
    refused: Refused,
}

/// The diagonal entries (self-loops: no edges), first stored per vertex, sorted by vertex;
/// and the number of off-diagonal entries.
struct Diagonal {
    /// (vertex, entry)
    first: Vec<(u32, u32)>,
    offdiag: usize,
}

impl Diagonal {
    fn of(rows: &[u32], cols: &[u32]) -> Diagonal {
        let mut first: Vec<(u32, u32)> = Vec::new();
        let mut offdiag = 0usize;
        for (e, (&r, &c)) in rows.iter().zip(cols).enumerate() {
            if r == c {
                first.push((r, e as u32));
            } else {
                offdiag += 1;
            }
        }
        first.sort_by_key(|d| d.0); // stable: the first stored entry of a vertex comes first
        first.dedup_by_key(|d| d.0);
        Diagonal { first, offdiag }
    }

    /// The entry of vertex `v`'s first stored diagonal value.
    fn entry(&self, v: u32) -> Option<u32> {
        self.first
            .binary_search_by_key(&v, |d| d.0)
            .ok()
            .map(|i| self.first[i].1)
    }
}

/// The searched vertices: all of them, or (sparse case) the touched ones and the root, in
/// increasing id, so that compressed ids keep the order of file ids.
struct Searched {
    n: usize,
    sparse: Option<Vec<u32>>,
}

impl Searched {
    fn of(n: usize, rows: &[u32], cols: &[u32], offdiag: usize, root0: u32) -> Searched {
        let sparse = n as u64 > 2 * offdiag as u64 + 1;
        let sparse = sparse.then(|| {
            let mut v: Vec<u32> = Vec::with_capacity(2 * offdiag + 1);
            for (&r, &c) in rows.iter().zip(cols) {
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
        Searched { n, sparse }
    }

    /// Number of searched vertices (m).
    fn len(&self) -> usize {
        self.sparse.as_ref().map_or(self.n, Vec::len)
    }

    /// The compressed index of a searched file vertex.
    fn idx(&self, x: u32) -> usize {
        match &self.sparse {
            None => x as usize,
            Some(v) => v.binary_search(&x).expect("touched vertex"),
        }
    }

    /// The file vertex (0-based) of compressed index `i`.
    fn file_vertex(&self, i: usize) -> u32 {
        match &self.sparse {
            None => i as u32,
            Some(v) => v[i],
        }
    }

    /// Whether vertex `v` was searched (always, unless the graph was searched sparsely).
    fn contains(&self, v: u32) -> bool {
        match &self.sparse {
            None => true,
            Some(vs) => vs.binary_search(&v).is_ok(),
        }
    }
}

/// Adjacency (CSR) of the undirected graph on the searched vertices; each arc packs
/// (neighbour << 32 | entry), so sorting a vertex's arcs orders neighbours by id and
/// duplicates by storage order.
struct Adjacency {
    start: Vec<usize>,
    arcs: Vec<u64>,
}

impl Adjacency {
    /// Consumes the entries' rows and columns (freed before the arcs are sorted).
    fn build(verts: &Searched, rows: Vec<u32>, cols: Vec<u32>) -> Adjacency {
        let m = verts.len();
        let mut start = vec![0usize; m + 1];
        for (&r, &c) in rows.iter().zip(&cols) {
            if r != c {
                start[verts.idx(r) + 1] += 1;
                start[verts.idx(c) + 1] += 1;
            }
        }
        for v in 0..m {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut arcs = vec![0u64; start[m]];
        for (e, (&r, &c)) in rows.iter().zip(&cols).enumerate() {
            if r != c {
                let (ri, ci) = (verts.idx(r), verts.idx(c));
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
        Adjacency { start, arcs }
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }
}

/// The breadth-first search of every component: from the root, then from the smallest
/// unvisited vertex, until all are visited. Indices are compressed (searched) indices.
struct Search {
    /// Component of each vertex (in the order the searches started).
    comp: Vec<u32>,
    /// BFS parent ([`NO_PARENT`] for each component's start).
    parent: Vec<u32>,
    /// Entry of the tree edge to the parent (`u32::MAX` for a start).
    edge: Vec<u32>,
    /// Start vertex of each component.
    starts: Vec<u32>,
    /// Vertices of each component.
    sizes: Vec<usize>,
}

impl Search {
    fn run(adj: &Adjacency, root: usize) -> Search {
        const UNSEEN: u32 = u32::MAX;
        let m = adj.len();
        let mut s = Search {
            comp: vec![UNSEEN; m],
            parent: vec![NO_PARENT; m],
            edge: vec![u32::MAX; m],
            starts: Vec::new(),
            sizes: Vec::new(),
        };
        let mut queue: Vec<u32> = Vec::with_capacity(m);
        let mut next_unseen = 0;
        let mut s0 = root;
        loop {
            let c = s.starts.len() as u32;
            s.starts.push(s0 as u32);
            s.comp[s0] = c;
            queue.clear();
            queue.push(s0 as u32);
            let mut head = 0;
            while head < queue.len() {
                let u = queue[head] as usize;
                head += 1;
                for &a in &adj.arcs[adj.start[u]..adj.start[u + 1]] {
                    let w = (a >> 32) as usize;
                    if s.comp[w] == UNSEEN {
                        s.comp[w] = c;
                        s.parent[w] = u as u32;
                        s.edge[w] = a as u32;
                        queue.push(w as u32);
                    }
                }
            }
            s.sizes.push(queue.len());
            while next_unseen < m && s.comp[next_unseen] != UNSEEN {
                next_unseen += 1;
            }
            if next_unseen == m {
                break;
            }
            s0 = next_unseen;
        }
        s
    }
}

/// The weights of searched vertices: the tree edge's entry, else the diagonal, else 0;
/// values that are no valid weights are noted in `refused`.
struct Weigher<'a> {
    values: &'a Values,
    diag: &'a Diagonal,
    verts: &'a Searched,
    edge: &'a [u32],
    refused: Refused,
}

impl Weigher<'_> {
    /// Weight of searched vertex `i`.
    fn of(&mut self, i: usize) -> f32 {
        if self.edge[i] != u32::MAX {
            self.values.weight(self.edge[i], &mut self.refused)
        } else {
            self.diagonal(self.verts.file_vertex(i))
        }
    }

    /// Weight of a BFS root or isolated file vertex `v`: its diagonal value, else 0.
    fn diagonal(&mut self, v: u32) -> f32 {
        match self.diag.entry(v) {
            Some(e) => self.values.weight(e, &mut self.refused),
            None => 0.0,
        }
    }
}

/// Forest mode `Largest`: the largest component (ties: the one holding the smallest vertex),
/// renumbered compactly in increasing file id.
fn largest(
    search: &Search,
    verts: &Searched,
    root: Option<u64>,
    valued: bool,
    mut weigh: Weigher,
) -> Result<Built, Fail> {
    let Search {
        comp,
        parent,
        starts,
        sizes,
        ..
    } = search;
    let m = verts.len();
    // Smallest searched vertex of each component (after the first, the BFS start).
    let mut smallest = starts.clone();
    for i in (0..m).rev() {
        let c = comp[i] as usize;
        smallest[c] = smallest[c].min(i as u32);
    }
    let best = (0..starts.len())
        .max_by(|&a, &b| sizes[a].cmp(&sizes[b]).then(smallest[b].cmp(&smallest[a])))
        .expect("at least one component");
    // An untouched vertex is a component of size 1; vertex 1 of the file is the smallest
    // vertex of all, so it wins ties of size 1.
    if sizes[best] == 1 && verts.file_vertex(smallest[best] as usize) != 0 {
        if root.is_some_and(|r| r != 1) {
            return Err(Fail::File(Reason::RootNotInLargest {
                root: root.unwrap_or(1),
                size: 1,
                smallest: 1,
            }));
        }
        let weights = valued.then(|| vec![weigh.diagonal(0)]);
        return Ok(Built {
            parent: vec![NO_PARENT],
            weights,
            file_ids: Some(vec![1]),
            refused: weigh.refused,
        });
    }
    if best != 0 && root.is_some() {
        return Err(Fail::File(Reason::RootNotInLargest {
            root: root.unwrap_or(1),
            size: sizes[best],
            smallest: verts.file_vertex(smallest[best] as usize) as u64 + 1,
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
    let weights = valued.then(|| kept_idx.iter().map(|&i| weigh.of(i)).collect());
    let file_ids = kept_idx
        .iter()
        .map(|&i| verts.file_vertex(i) as u64 + 1)
        .collect();
    Ok(Built {
        parent: kept,
        weights,
        file_ids: Some(file_ids),
        refused: weigh.refused,
    })
}

/// Forest mode `VirtualRoot`: every vertex of the file, and the virtual root n whose children
/// are the BFS starts; untouched vertices hang from it directly, with their diagonal value.
fn virtual_root(
    n: usize,
    search: &Search,
    verts: &Searched,
    isolated: usize,
    valued: bool,
    mut weigh: Weigher,
) -> Built {
    let mut full = vec![n as u32; n + 1];
    full[n] = NO_PARENT;
    let mut w = if valued {
        vec![0.0f32; n + 1]
    } else {
        Vec::new()
    };
    for (i, &p) in search.parent.iter().enumerate() {
        let v = verts.file_vertex(i) as usize;
        if p != NO_PARENT {
            full[v] = verts.file_vertex(p as usize);
        }
        if valued {
            w[v] = weigh.of(i);
        }
    }
    if valued && isolated > 0 {
        for &(v, _) in &weigh.diag.first {
            if !verts.contains(v) {
                w[v as usize] = weigh.diagonal(v);
            }
        }
    }
    Built {
        parent: full,
        weights: valued.then_some(w),
        file_ids: None,
        refused: weigh.refused,
    }
}
