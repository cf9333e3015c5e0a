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
//!   for any first touch in it, which raises a small job's peak for no gain in time. Where
//!   freed pages go back at once, first touches recur after every purge, and there huge
//!   pages (fewer, larger faults) save time: they stay on.
//!
//! The figures behind both choices, with the commands that reproduce them:
//! docs/measurements.md, "Huge pages and purging".

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
