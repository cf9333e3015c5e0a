//! Every size a call is given, checked before anything is allocated
//! ([`treefix_accuracy::memory::api`]): a tree beyond 32-bit vertex ids is an `InputError`,
//! a call whose estimate exceeds the memory available a `MemoryError`, never an allocation
//! that fails, which would abort the interpreter (Rust cannot turn a failed allocation into
//! an exception).

use crate::error::{input, to_py};
use pyo3::prelude::*;
use treefix_accuracy::memory::{self, Estimate, api};

/// `Err` (MemoryError) when `estimate` exceeds the memory available to the process.
fn fits(call: &str, estimate: Estimate) -> PyResult<()> {
    memory::check(call, &estimate).map_err(to_py)
}

/// A tree of `n` vertices can exist.
fn vertices(call: &str, n: u64) -> PyResult<()> {
    if n > api::MAX_VERTICES {
        return Err(input(format!(
            "{call}: {n} vertices do not fit the 32-bit vertex ids (at most 2^31)"
        )));
    }
    Ok(())
}

pub fn generate_tree(n: usize) -> PyResult<()> {
    vertices("generate_tree", n as u64)?;
    fits("generate_tree", api::generate_tree(n as u64))
}

pub fn tree_from_parents(n: usize) -> PyResult<()> {
    vertices("tree_from_parents", n as u64)?;
    fits("tree_from_parents", api::tree_from_parents(n as u64))
}

pub fn gensum(n: usize) -> PyResult<()> {
    fits("gensum", api::gensum(n as u64))
}

pub fn treefix(call: &str, n: usize, algorithm: analysis::Algorithm) -> PyResult<()> {
    fits(call, api::treefix(n as u64, algorithm))
}

pub fn exact(n: usize) -> PyResult<()> {
    fits("exact", api::exact(n as u64))
}

pub fn score(n: usize, ops: usize, reference: analysis::ReferenceKind) -> PyResult<()> {
    fits("score", api::score(n as u64, ops, reference))
}

/// What a tree file's reader may allocate: the memory available less the process's part.
pub fn reader_limit() -> Option<u64> {
    memory::reader_limit()
}
