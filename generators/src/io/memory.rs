//! A reader's memory check: before it allocates per-vertex arrays from a size the file
//! declares (a Matrix Market size line, a parent array's line count), the bytes they need are
//! compared with the caller's limit ([`super::ReadOptions::memory_limit`]), so a three-line file
//! declaring 2^31 − 1 vertices is a one-line error instead of an aborted allocation.
//!
//! The bytes per vertex are the readers' peaks above the file's text, measured with a counting
//! allocator (`RAYON_NUM_THREADS=1 cargo bench --bench memory -- 500000`:
//! parent array 56, Matrix Market with a virtual root 64, Newick 70 bytes per vertex), rounded
//! up; they count the parse arrays and the tree's construction (`Tree::from_parents`).
//!
//! A file that declares no size is bounded as it is read: its text ([`text_limit`]: the file
//! as stored, and what a gzip stream inflates to, refused at the compressed byte where it
//! passes the limit) and a Newick or NEXUS tree's vertices, checked every
//! [`NEWICK_CHECK_EVERY`] vertices against what the text leaves ([`check_newick`]): every
//! `(` opens a vertex, so the nesting is bounded with them. A gzip bomb of `(` is an error
//! naming its byte, never an aborted allocation.

use super::ForestMode;
use super::error::{Fail, Reason};

/// Peak bytes per vertex of the parent-array reader (its three slot arrays per line, then the
/// tree).
pub(crate) const PARENTS_PER_LINE: u64 = 64;
/// Peak bytes per vertex of a Matrix Market tree (BFS arrays, the tree's construction).
pub(crate) const MTX_PER_VERTEX: u64 = 72;
/// Bytes per stored entry of a Matrix Market file (row, column, value; two arcs).
pub(crate) const MTX_PER_ENTRY: u64 = 32;

/// Peak bytes per vertex of a Newick or NEXUS tree: the 70 measured, plus the growth of the
/// parse arrays a vertex adds to (parent and length, 8; a label span, 12; an entry of the
/// stack of open parentheses, 16), which a vector doubling holds twice while it copies.
pub(crate) const NEWICK_PER_VERTEX: u64 = 70 + 2 * (8 + 12 + 16);
/// The Newick and NEXUS readers check their vertices every this many.
pub(crate) const NEWICK_CHECK_EVERY: usize = 1 << 16;

/// The most bytes a file's text may take in memory: a third of `limit` (the buffer an
/// inflated text grows in is held twice while it is copied, and the tree built from the text
/// needs the rest).
pub(crate) fn text_limit(limit: Option<u64>) -> Option<u64> {
    limit.map(|l| l / 3)
}

/// The check of a Newick or NEXUS tree that has `vertices` vertices so far: the arrays of one
/// more stretch of [`NEWICK_CHECK_EVERY`] must fit in `budget`.
pub(crate) fn check_newick(budget: Option<u64>, vertices: u64) -> Result<(), Reason> {
    let needed = (vertices + NEWICK_CHECK_EVERY as u64).saturating_mul(NEWICK_PER_VERTEX);
    match budget {
        Some(available) if needed > available => Err(Reason::GrowsBeyondMemory {
            vertices,
            needed,
            available,
        }),
        _ => Ok(()),
    }
}

/// `Err` when `bytes` exceed `limit`.
pub(crate) fn fits(limit: Option<u64>, vertices: u64, bytes: u64) -> Result<(), Reason> {
    match limit {
        Some(available) if bytes > available => Err(Reason::TooLargeForMemory {
            vertices,
            needed: bytes,
            available,
        }),
        _ => Ok(()),
    }
}

/// The check of a Matrix Market size line: `n` declared vertices, `entries` entries the file
/// can hold. Only a virtual root gives the tree every declared vertex; otherwise the graph is
/// searched on the vertices its entries touch.
pub(crate) fn check_mtx(
    limit: Option<u64>,
    n: u64,
    entries: u64,
    forest: ForestMode,
) -> Result<(), Reason> {
    let vertices = match forest {
        ForestMode::VirtualRoot => n + 1,
        _ => n.min(2 * entries + 1),
    };
    let bytes = vertices
        .saturating_mul(MTX_PER_VERTEX)
        .saturating_add(entries.saturating_mul(MTX_PER_ENTRY));
    fits(limit, vertices, bytes)
}

/// The check of a parent array: one vertex per line at most.
pub(crate) fn check_parents(limit: Option<u64>, text: &[u8]) -> Result<(), Fail> {
    let lines = text.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    fits(limit, lines, (lines + 1).saturating_mul(PARENTS_PER_LINE)).map_err(Fail::File)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_virtual_root_counts_every_declared_vertex() {
        let limit = Some(4_000_000_000);
        assert!(check_mtx(limit, (1 << 31) - 1, 1, ForestMode::VirtualRoot).is_err());
        // Without a virtual root only the touched vertices are built.
        assert!(check_mtx(limit, (1 << 31) - 1, 1, ForestMode::Largest).is_ok());
        assert!(check_mtx(None, (1 << 31) - 1, 1, ForestMode::VirtualRoot).is_ok());
    }

    #[test]
    fn a_newick_tree_is_checked_as_it_grows() {
        assert!(check_newick(None, 1 << 40).is_ok());
        assert!(check_newick(Some(1 << 30), 1 << 20).is_ok());
        let e = check_newick(Some(1 << 20), 1 << 16).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the tree reaches 65536 vertices here and would need about 19 MB of memory to read, \
             more than the 1 MB available"
        );
    }
}
