//! Per-vertex buffers handed from one walk to the next within an op's evaluation.
//!
//! An evaluation walks 16 orders (8 algorithms × 2 ops) on the same tree, each into buffers
//! of the tree's size (its replayed values, 4 B per vertex, and its bounds, 32 B), freed once
//! the walk has been measured. On a big tree the allocator hands such blocks back to the
//! system (after a second, or at once under eager purging: the root crate's `memory::pages`),
//! and the next walk page-faults them in anew. While a [`KeepSpares`] is held, buffers given
//! back go to a spare list and the next walk takes them: nothing is faulted in twice. The last
//! holder's drop frees the spares, so nothing outlives the op. Where memory is short
//! ([`give_back_at_once`]) none is kept: a spare waits beside the next algorithm's own
//! computation, where the allocator would have handed its pages to that computation instead.

use super::FourBounds;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Fewer elements than this are not kept: small trees' buffers are the allocator's fast path.
const MIN_KEPT: usize = 1 << 14;

/// Spares kept of each kind at most: the walks that run at once, each with its outcome
/// held while the next one walks, and the outcome shared by two algorithms of one order.
const MAX_KEPT: usize = 8;

pub(crate) struct Spares {
    holders: usize,
    values: Vec<Vec<f32>>,
    bounds: Vec<Vec<FourBounds>>,
}

/// The spare lists and their holders.
struct Pool(Mutex<Spares>);

static POOL: Pool = Pool::new();

impl Pool {
    const fn new() -> Pool {
        Pool(Mutex::new(Spares {
            holders: 0,
            values: Vec::new(),
            bounds: Vec::new(),
        }))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Spares> {
        // A panic elsewhere while the lock was held leaves only lists of buffers behind.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn hold(&self) {
        self.lock().holders += 1;
    }

    fn release(&self) {
        let freed = {
            let mut s = self.lock();
            s.holders -= 1;
            if s.holders > 0 {
                return;
            }
            (std::mem::take(&mut s.values), std::mem::take(&mut s.bounds))
        };
        // Freed outside the lock.
        drop(freed);
    }

    fn take<T: Spare>(&self, n: usize) -> Vec<T> {
        let mut out = self.take_empty(n);
        out.resize(n, T::default());
        out
    }

    fn take_empty<T: Spare>(&self, n: usize) -> Vec<T> {
        let spare = if n >= MIN_KEPT {
            let mut s = self.lock();
            let list = T::list(&mut s);
            list.iter()
                .position(|b| b.capacity() >= n)
                .map(|i| list.swap_remove(i))
        } else {
            None
        };
        match spare {
            Some(mut b) => {
                b.clear();
                b
            }
            None => Vec::with_capacity(n),
        }
    }

    fn give<T: Spare>(&self, buffer: Vec<T>) {
        if buffer.capacity() < MIN_KEPT {
            return;
        }
        let mut s = self.lock();
        if s.holders == 0 {
            return;
        }
        let list = T::list(&mut s);
        if list.len() < MAX_KEPT {
            list.push(buffer);
        }
    }
}

/// While one is held (by an evaluation), the walks' buffers are kept for the next walk;
/// dropping the last frees them.
#[must_use = "the spares are freed when this is dropped"]
pub struct KeepSpares(bool);

/// Keeps the walks' buffers for reuse until the returned guard (and every other) is dropped;
/// after [`give_back_at_once`], keeps none.
pub fn keep_spares() -> KeepSpares {
    let keep = !AT_ONCE.load(Relaxed);
    if keep {
        POOL.hold();
    }
    KeepSpares(keep)
}

impl Drop for KeepSpares {
    fn drop(&mut self) {
        if self.0 {
            POOL.release();
        }
    }
}

/// Whether buffers go back to the allocator at once ([`give_back_at_once`]).
static AT_ONCE: AtomicBool = AtomicBool::new(false);

/// From now on no buffer is kept for the next walk: where memory is short (a command whose
/// estimate counts on freed memory going back at once: the root crate's `memory::pages`),
/// since a kept buffer waits beside the next algorithm's own computation (its CPU twin),
/// whose peak it raises by its size, for no gain in time (docs/measurements.md, "Spare
/// buffers").
pub fn give_back_at_once() {
    AT_ONCE.store(true, Relaxed);
}

/// Kind of buffer kept.
pub(crate) trait Spare: Copy + Default + Sized {
    fn list(s: &mut Spares) -> &mut Vec<Vec<Self>>;
}

impl Spare for f32 {
    fn list(s: &mut Spares) -> &mut Vec<Vec<f32>> {
        &mut s.values
    }
}

impl Spare for FourBounds {
    fn list(s: &mut Spares) -> &mut Vec<Vec<FourBounds>> {
        &mut s.bounds
    }
}

/// `n` default elements, in a spare buffer if one is big enough.
pub(crate) fn take<T: Spare>(n: usize) -> Vec<T> {
    POOL.take(n)
}

/// An empty buffer with room for `n` elements, a spare one if one is big enough (a fresh
/// one's pages are touched only as it fills).
pub(crate) fn take_empty<T: Spare>(n: usize) -> Vec<T> {
    POOL.take_empty(n)
}

/// Gives `buffer` back: kept for the next walk while a [`KeepSpares`] is held, else freed.
pub(crate) fn give<T: Spare>(buffer: Vec<T>) {
    POOL.give(buffer)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer given back while spares are kept is the next one taken, cleared; without a
    /// holder, or once the last holder is gone, none is kept.
    #[test]
    fn spares_live_as_long_as_their_holders() {
        let pool = Pool::new();
        let n = MIN_KEPT + 5;
        let a: Vec<f32> = pool.take(n);
        pool.give(a);
        assert!(pool.lock().values.is_empty(), "no holder: freed");
        pool.hold();
        pool.hold();
        let mut a: Vec<f32> = pool.take(n);
        a[7] = 1.0;
        let at = a.as_ptr();
        pool.give(a);
        let b: Vec<f32> = pool.take(n - 3);
        assert_eq!(b.as_ptr(), at, "the spare is taken again");
        assert_eq!(b.len(), n - 3);
        assert!(b.iter().all(|&x| x == 0.0), "and cleared");
        pool.give(b);
        let small: Vec<f32> = pool.take(MIN_KEPT - 1);
        pool.give(small);
        assert_eq!(pool.lock().values.len(), 1, "small buffers are not kept");
        let c: Vec<FourBounds> = pool.take(n + 1);
        pool.give(c);
        assert_eq!(pool.lock().bounds.len(), 1);
        pool.release();
        assert_eq!(pool.lock().values.len(), 1, "a holder is left");
        pool.release();
        let s = pool.lock();
        assert!(
            s.values.is_empty() && s.bounds.is_empty(),
            "freed with the last holder"
        );
    }
}
