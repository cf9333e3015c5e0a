//! One tree's walks: what the orders need of a tree beyond the tree itself, made once and
//! shared by every algorithm and op evaluated on it, and a count of the walks made.
//!
//! An evaluation walks each (algorithm, op)'s summation order once, on values that carry the
//! twin's f32 sums and their bounds together (`crate::bounds::walk`), and runs the kernel
//! once (its CPU twin, or a GPU kernel). Contraction's schedule depends on the tree alone, so
//! it is built here the first time an order asks for it and reused by both ops, the twin and
//! the walk. The counters cost a relaxed atomic add per walk; they let a test check that
//! nothing walks an order twice.

use super::contraction::Schedule;
use generators::Tree;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// A tree, what its orders share, and how often they were walked.
pub struct Walker<'t> {
    tree: &'t Tree,
    schedule: OnceLock<Schedule>,
    walks: AtomicUsize,
    twins: AtomicUsize,
    schedules: AtomicUsize,
}

impl<'t> Walker<'t> {
    pub fn new(tree: &'t Tree) -> Walker<'t> {
        Walker {
            tree,
            schedule: OnceLock::new(),
            walks: AtomicUsize::new(0),
            twins: AtomicUsize::new(0),
            schedules: AtomicUsize::new(0),
        }
    }

    pub fn tree(&self) -> &'t Tree {
        self.tree
    }

    /// Contraction's schedule of this tree, built on first use.
    pub fn schedule(&self) -> &Schedule {
        self.schedule.get_or_init(|| {
            self.schedules.fetch_add(1, Relaxed);
            Schedule::new(self.tree)
        })
    }

    /// Drops the schedule once no order will ask for it again (it holds about 20 bytes per
    /// vertex).
    pub fn forget_schedule(&mut self) {
        self.schedule = OnceLock::new();
    }

    /// Called by every walk of an order on bound values (`crate::bounds::walk`).
    pub(crate) fn count_walk(&self) {
        self.walks.fetch_add(1, Relaxed);
    }

    /// Called by every run of a CPU twin through [`crate::Algorithm::twin_on`].
    pub(crate) fn count_twin(&self) {
        self.twins.fetch_add(1, Relaxed);
    }

    /// Walks of an order on bound values so far.
    pub fn walks(&self) -> usize {
        self.walks.load(Relaxed)
    }

    /// CPU twins run so far.
    pub fn twins(&self) -> usize {
        self.twins.load(Relaxed)
    }

    /// Contraction schedules built so far (0 or 1 until [`Walker::forget_schedule`]).
    pub fn schedules_built(&self) -> usize {
        self.schedules.load(Relaxed)
    }
}
