//! The summation orders of every treefix algorithm, each written once (docs/design.md §5).
//!
//! An algorithm's order of additions is part of its definition: it decides the f32 rounding
//! (the CPU twins, [`crate::algorithms`]), the error bounds (the same additions carried out on
//! bound values, [`crate::bounds`]) and the conditioning of what the vectorial scan
//! accumulates ([`crate::metrics::scan_abs_prefix`]). So every order is one generic function
//! over [`crate::scan_value::ScanValue`], instantiated with `f32` by the twins and with the bound types by the
//! bounds. Not every twin is that instance: contraction's twin runs its phases as rayon loops,
//! vectorial-compensated's twin and its running bound are float-float code of their own, and
//! vectorial-exact's twin is the exact treefix. Those cannot drift by test, not by
//! construction: every twin equals the bounds' replay bit for bit and the correctly rounded
//! one equals MPFR's rounding (`tests/bounds.rs`), and contraction's twin equals the generic
//! order (`tests/kernels.rs`). The references run the sequential orders on exact sums
//! ([`generators::exact_sum::ExactSum`]) and on double-doubles.
//!
//! - [`tree`]: sequential rootfix (path recursion in preorder), parallel rootfix (the same
//!   recursion, one level at a time), sequential leaffix (gathers `((w[v] + l[c1]) + l[c2]) + …`
//!   in postorder, children in child order) and parallel leaffix (the same gathers, one level
//!   at a time, deepest first);
//! - [`euler`]: the Euler-tour write (`E[open v] = w`, `E[close v] = −w` for rootfix or 0 for
//!   leaffix), the scan ([`crate::scan_plan`] or the sequential scan) and the vectorial reads
//!   (rootfix `S[open v]`, leaffix `S[close v] − S[open v − 1]`, S[−1] = 0).
//!
//! - [`contraction`]: rake and compress (seed 002): a schedule of rounds from the tree and a
//!   fixed seed, then contraction and uncontraction on it, with additions only.
//! - [`program`]: any of these orders traced into levels of independent additions (how the
//!   GPU runs contraction, one dispatch per level).
//!
//! The other Euler-tour algorithms of the registry reuse these pieces with another plan
//! ([`crate::scan_plan::chained_inclusive_scan`]) or another value and read
//! ([`crate::float_float::FloatFloat`] and [`euler::vectorial_compensated`], fixed-point limbs
//! and [`euler::vectorial_exact`]); their descriptors (`crate::algorithms`) say which.
//! A new algorithm adds one order here and gets its twin and its bound from it: its descriptor
//! (`crate::algorithms`) instantiates the order on f32 (the twin) and on the bound types.

pub mod contraction;
pub mod euler;
pub mod program;
mod tour_vertices;
pub mod tree;
mod walker;

pub use tour_vertices::TourVertices;
pub use walker::Walker;

/// Asks the processor to fetch the cache line of `slot` ahead of a read or write of it (x86-64;
/// nothing elsewhere). A hint: it reads nothing, and `slot` need not point into anything.
#[inline(always)]
pub fn prefetch<T>(slot: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and changes nothing the program can observe.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(slot.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}
