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
