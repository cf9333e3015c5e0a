//! The process's allocator, mimalloc, and how soon it gives freed memory back.
//!
//! mimalloc keeps freed pages for reuse: the per-tree vectors of a sweep (references, bounds,
//! errors; megabytes each) are not page-faulted in again for every tree, as glibc's mmap'd
//! blocks are (42 % of the exact reference's time at n = 10^5 was kernel page faults). It
//! gives them back to the system only after a delay (1 s, ten times that for its arenas), so on
//! a big tree the pages freed by one evaluation step are still resident when the next one
//! allocates: `run --topology profile --nodes 1048576` peaked at 364 MB, 275 MB with freed
//! pages given back at once; a sweep of 400 chains of 10^5 vertices took 40 % longer that way.
//! So a command whose memory estimate reaches [`memory::EAGER_PURGE_FROM`] gives freed pages
//! back at once, and the others keep them.

use libmimalloc_sys::{mi_option_set, mi_option_t};
use treefix_accuracy::Error;
use treefix_accuracy::memory::{self, Available, Estimate};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (milliseconds before freed pages are given back; 0: at
/// once): its place in `mi_option_e` of mimalloc 3's `mimalloc.h`, for which libmimalloc-sys
/// has no constant (a test checks its default).
const PURGE_DELAY: mi_option_t = 15;

/// The memory preflight of `command` ([`memory::check`]); when it passes with an estimate that
/// counts on it ([`Estimate::eager`], from [`memory::EAGER_PURGE_FROM`] on), freed pages are
/// given back at once from now on.
pub fn preflight(command: &str, estimate: &Estimate) -> Result<(), Error> {
    preflight_against(command, estimate, memory::available())
}

/// [`preflight`] against a given availability.
fn preflight_against(
    command: &str,
    estimate: &Estimate,
    available: Option<Available>,
) -> Result<(), Error> {
    memory::check_against(command, estimate, available)?;
    if estimate.eager {
        // SAFETY: sets one of mimalloc's options, which it reads atomically.
        unsafe { mi_option_set(PURGE_DELAY, 0) };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use libmimalloc_sys::mi_option_get;

    /// The purge delay in force, milliseconds.
    fn purge_delay() -> i64 {
        // SAFETY: reads one of mimalloc's options.
        unsafe { mi_option_get(PURGE_DELAY) as i64 }
    }

    /// The option's place is right: it reads mimalloc 3's default delay (or the environment's
    /// MIMALLOC_PURGE_DELAY); an estimate that does not count on eager purging, or one that is
    /// refused, leaves it alone, and one that counts on it and passes sets it to 0.
    #[test]
    fn purge_delay_is_the_option_it_names() {
        let expected = std::env::var("MIMALLOC_PURGE_DELAY")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1000);
        assert_eq!(purge_delay(), expected);
        let estimate = |bytes, eager| Estimate {
            bytes,
            what: format!("{bytes} bytes"),
            eager,
        };
        preflight_against("test", &estimate(1 << 30, false), None).unwrap();
        assert_eq!(purge_delay(), expected);
        let little = Some(Available {
            bytes: 1 << 30,
            source: memory::Source::MemAvailable,
        });
        assert!(preflight_against("test", &estimate((1 << 30) + 1, true), little).is_err());
        assert_eq!(purge_delay(), expected);
        preflight_against("test", &estimate(1 << 30, true), None).unwrap();
        assert_eq!(purge_delay(), 0);
    }
}
