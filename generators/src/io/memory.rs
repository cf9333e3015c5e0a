//! A reader's memory check: before it allocates per-vertex arrays from a size the file
//! declares (a Matrix Market size line, a parent array's line count), the bytes they need are
//! compared with the caller's limit ([`super::ReadOptions::memory_limit`]), so a three-line file
//! declaring 2^31 − 1 vertices is a one-line error instead of an aborted allocation.
//!
//! The bytes per vertex are the readers' peaks above the file's text, measured with a counting
//! allocator (`RAYON_NUM_THREADS=1 cargo bench --bench memory -- 500000`:
//! parent array 56, Matrix Market with a virtual root 64, Newick 70 bytes per vertex), rounded
//! up; they count the parse arrays and the tree's construction (`Tree::from_parents`).

use super::ForestMode;
use super::error::{Fail, Reason};

/// Peak bytes per vertex of the parent-array reader (its three slot arrays per line, then the
/// tree).
pub(crate) const PARENTS_PER_LINE: u64 = 64;
/// Peak bytes per vertex of a Matrix Market tree (BFS arrays, the tree's construction).
pub(crate) const MTX_PER_VERTEX: u64 = 72;
/// Bytes per stored entry of a Matrix Market file (row, column, value; two arcs).
pub(crate) const MTX_PER_ENTRY: u64 = 32;

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

/// `bytes` as a person reads it: `9.6 GB`, `310 MB`, `12 kB` (decimal units).
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else {
        format!("{:.0} kB", (b / 1e3).max(1.0))
    }
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
    fn bytes_read_as_people_write_them() {
        assert_eq!(human_bytes(9_600_000_000), "9.6 GB");
        assert_eq!(human_bytes(310_000_000), "310 MB");
        assert_eq!(human_bytes(12_000), "12 kB");
    }
}
