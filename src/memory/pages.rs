//! What a command's allocator does with freed pages and with huge pages, chosen by its memory
//! estimate ([`Estimate::eager`]) once the preflight has passed. It acts on processes whose
//! global allocator is mimalloc (the `accuracy` binary, the benches that time what it does).
//!
//! - **Freed pages given back at once** (a big tree, from [`super::EAGER_PURGE_FROM`]):
//!   mimalloc's purge delay 0, and the walks' spare buffers not kept
//!   (`analysis::bounds::give_back_at_once`): the peak is what is alive, not what was.
//! - **Freed pages kept** (the rest): transparent huge pages off for the process. mimalloc
//!   asks for them on its arenas (`madvise(MADV_HUGEPAGE)`); where the kernel grants them
//!   (`enabled` and `defrag` set to `madvise`), a 2 MiB page is zeroed, and memory compacted,
//!   for any first touch in it. Measured in alternation on 2 cores (2026-11-27, an AMD EPYC;
//!   `/usr/bin/time` of 656adf3's build, which set no huge-page policy, with
//!   `MIMALLOC_ALLOW_THP=0` or 1; the 2^22 evaluations in a probe doing what
//!   `benches/main_job.rs`'s `whole` does):
//!   - the main job (`sweep --cond 1e1..1e10`, 9 pairs): peak 70.9 MiB against 103.5 (median),
//!     wall 0.99×;
//!   - `run --topology profile --nodes 1048576 --cond 1e8` (5 pairs): peak 279.7 MiB against
//!     285.7, wall 0.94×;
//!   - a 2^22 `profile` evaluation of all eight algorithms, both ops, on one thread, pages
//!     kept: 13.3 s against 13.7–13.9 (system time 1.2–1.3 s against 3.6–3.7).
//!
//!   With freed pages given back at once, huge pages pay instead: the same evaluation took
//!   15.3–15.5 s without them against 13.6–13.8, and `accuracy run` of that tree (one thread)
//!   18.0 s against 17.4–17.5 (its peak 682 MiB against 730), so they stay on there.

use super::Estimate;

/// mimalloc's `mi_option_purge_delay` (milliseconds before freed pages are given back; 0: at
/// once): its place in `mi_option_e` of mimalloc 3's `mimalloc.h`, for which libmimalloc-sys
/// has no constant (the `accuracy` binary's allocator tests check its default).
pub const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Sets the allocator's handling of freed and huge pages for a command whose preflight passed
/// with `estimate`; the process's settings from then on.
pub fn apply(estimate: &Estimate) {
    if estimate.eager {
        // SAFETY: sets one of mimalloc's options, which it reads atomically.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) };
        // Nor are the walks' buffers kept for the next walk.
        analysis::bounds::give_back_at_once();
    }
    huge_pages(estimate.eager);
}

/// Transparent huge pages on or off for this process, from its next page fault on (Linux's
/// `PR_SET_THP_DISABLE`, inherited by children; elsewhere nothing). A kernel that refuses
/// leaves them as they were: only the speed and the peak differ.
fn huge_pages(on: bool) {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, u64::from(!on), 0, 0, 0);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = on;
}

/// Whether transparent huge pages are off for this process (Linux; false elsewhere).
pub fn huge_pages_off() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments only.
    return unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) } == 1;
    #[cfg(not(target_os = "linux"))]
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An estimate that keeps freed pages turns huge pages off, one that gives them back at
    /// once turns them on (in a process of its own: the settings are the process's).
    #[test]
    #[cfg(target_os = "linux")]
    fn huge_pages_follow_the_estimate() {
        if std::env::var_os("TREEFIX_PAGES_CHILD").is_some() {
            let estimate = |eager| Estimate {
                bytes: 1 << 20,
                what: String::new(),
                eager,
            };
            apply(&estimate(false));
            assert!(
                huge_pages_off(),
                "an estimate that keeps pages turns them off"
            );
            apply(&estimate(true));
            assert!(!huge_pages_off(), "one that gives them back turns them on");
            return;
        }
        let o = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "memory::pages::tests::huge_pages_follow_the_estimate",
            ])
            .args(["--test-threads", "1"])
            .env("TREEFIX_PAGES_CHILD", "1")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("1 passed"), "{out}");
    }
}
