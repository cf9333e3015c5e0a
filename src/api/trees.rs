//! Trees for the API: from a parent array, from any file format `accuracy` reads, from the
//! generators' topologies.

use crate::Error;
use generators::io::{ReadOptions, TreeFile};
use generators::{ChildOrder, NO_PARENT, Topology, Tree, TreeError};
use std::path::Path;

/// A tree from `parents[v]`, the parent of vertex v, with -1 at the root: one root, no
/// cycle, every other parent in 0..n (another negative value is an error, as a parent beyond
/// n is, named as given). Children keep ascending ids.
///
/// ```
/// let t = treefix_accuracy::tree_from_parents(&[-1, 0, 0, 1])?;
/// assert_eq!((t.len(), t.height()), (4, 2));
/// assert!(treefix_accuracy::tree_from_parents(&[-1, -1]).is_err()); // two roots
/// # Ok::<(), treefix_accuracy::Error>(())
/// ```
pub fn tree_from_parents(parents: &[i64]) -> Result<Tree, Error> {
    let n = parents.len();
    if n as u64 > crate::memory::api::MAX_VERTICES {
        return Err(TreeError::TooLarge(n).into());
    }
    let parent = parents
        .iter()
        .enumerate()
        .map(|(v, &p)| match p {
            -1 => Ok(NO_PARENT),
            p if p >= 0 && (p as u64) < n as u64 => Ok(p as u32),
            p => Err(TreeError::ParentOutOfRange {
                vertex: v as u32,
                parent: p,
                n,
            }),
        })
        .collect::<Result<Vec<u32>, TreeError>>()?;
    Ok(Tree::from_parents(parent, ChildOrder::Natural)?)
}

/// A tree from an edge list, as networkx and rustworkx give one: edge i joins `src[i]` and
/// `dst[i]`, vertices 0..n with n − 1 edges. With `root`, the edges are undirected and the
/// tree hangs from `root`; without, each edge points from parent to child (`src[i]` is the
/// parent of `dst[i]`) and the root is the one vertex that is no child.
///
/// ```
/// // 0 → 1, 0 → 2, 2 → 3 as directed edges, then the same edges undirected from 3.
/// let t = treefix_accuracy::tree_from_edges(&[0, 0, 2], &[1, 2, 3], None)?;
/// assert_eq!((t.len(), t.height(), t.parent(3)), (4, 2, Some(2)));
/// let u = treefix_accuracy::tree_from_edges(&[1, 2, 3], &[0, 0, 2], Some(3))?;
/// assert_eq!((u.parent(0), u.parent(3)), (Some(2), None));
/// # Ok::<(), treefix_accuracy::Error>(())
/// ```
pub fn tree_from_edges(src: &[i64], dst: &[i64], root: Option<i64>) -> Result<Tree, Error> {
    if src.len() != dst.len() {
        return Err(Error::Usage(format!(
            "{} sources and {} destinations: one of each per edge",
            src.len(),
            dst.len()
        )));
    }
    let n = src.len() + 1;
    let id = |x: i64| -> Result<usize, Error> {
        usize::try_from(x).ok().filter(|&v| v < n).ok_or_else(|| {
            Error::Usage(format!(
                "vertex {x} in an edge list of {} edges: vertices are 0..{n} (n − 1 edges for n vertices)",
                n - 1
            ))
        })
    };
    let edges = src
        .iter()
        .zip(dst)
        .map(|(&a, &b)| Ok((id(a)?, id(b)?)))
        .collect::<Result<Vec<(usize, usize)>, Error>>()?;
    let parents = match root {
        None => {
            let mut parents = vec![-1i64; n];
            for &(p, c) in &edges {
                if parents[c] != -1 {
                    return Err(Error::Usage(format!(
                        "vertex {c} is the child of two edges ({} → {c} and {p} → {c}): give root= for an undirected edge list",
                        parents[c]
                    )));
                }
                parents[c] = p as i64;
            }
            parents
        }
        Some(r) => hang(&edges, id(r)?)?,
    };
    tree_from_parents(&parents)
}

/// The parent array of undirected `edges` hung from `root` (breadth first); a vertex the
/// walk does not reach is an error (the edges then hold a cycle elsewhere).
fn hang(edges: &[(usize, usize)], root: usize) -> Result<Vec<i64>, Error> {
    let n = edges.len() + 1;
    let mut adjacent: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        adjacent[a].push(b);
        adjacent[b].push(a);
    }
    let mut parents = vec![-1i64; n];
    let mut seen = vec![false; n];
    seen[root] = true;
    let mut queue = std::collections::VecDeque::from([root]);
    while let Some(v) = queue.pop_front() {
        for &u in &adjacent[v] {
            if !seen[u] {
                seen[u] = true;
                parents[u] = v as i64;
                queue.push_back(u);
            }
        }
    }
    match seen.iter().position(|&s| !s) {
        Some(v) => Err(Error::Usage(format!(
            "vertex {v} is not reached from root {root}: the edges are no tree (a cycle, or a vertex without an edge)"
        ))),
        None => Ok(parents),
    }
}

/// A tree file (Newick, NEXUS, Matrix Market spanning tree, parent array; gzip detected),
/// read as `accuracy --tree FILE` reads it: the tree, its labels and its own weights
/// ([`TreeFile::own_weights`]). Formats: docs/inputs.md.
pub fn read_tree(path: impl AsRef<Path>) -> Result<TreeFile, Error> {
    read_tree_with(path, &ReadOptions::default())
}

/// [`read_tree`] with options: format, tree index, Matrix Market root and forest mode,
/// subnormal weights.
pub fn read_tree_with(path: impl AsRef<Path>, options: &ReadOptions) -> Result<TreeFile, Error> {
    Ok(generators::read_tree(path.as_ref(), options)?)
}

/// A generated tree of `n` vertices (`chain`, `star`, `random-recursive`, `prufer`,
/// `kary:4`, …: [`Topology`]), seeded: the same seed gives the same tree everywhere.
///
/// ```
/// use treefix_accuracy::Topology;
/// let t = treefix_accuracy::generate_tree(&"kary:2".parse::<Topology>()?, 7, 1)?;
/// assert_eq!(t.height(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generate_tree(topology: &Topology, n: usize, seed: u64) -> Result<Tree, Error> {
    if n == 0 {
        return Err(Error::Usage("a tree needs at least one vertex".into()));
    }
    let mut rng = generators::rng(seed);
    Ok(topology.generate(n, ChildOrder::Natural, &mut rng)?)
}
