//! The process's allocator, mimalloc, and how soon it gives freed memory back.
//!
//! mimalloc keeps freed pages for reuse: the per-tree vectors of a sweep (references, bounds,
//! errors; megabytes each) are not page-faulted in again for every tree, as glibc's mmap'd
//! blocks are (page faults were 42 % of the exact reference's time at n = 10^5). It gives
//! them back to the system only after a delay (1 s, ten times that for its arenas), so on a
//! big tree the pages freed by one evaluation step are still resident when the next one
//! allocates, and the peak is what was alive plus what was freed. So a command whose memory
//! estimate reaches [`memory::EAGER_PURGE_FROM`] gives freed pages back at once, and the
//! others, for which that costs time (many small trees fault their pages in again), keep
//! them, without transparent huge pages ([`memory::pages`], which the benches apply too).
//!
//! Under an address-space limit (`ulimit -v`), what counts is the address space mapped, not
//! the pages used: mimalloc reserves its arenas 1 GiB at a time and keeps big blocks there
//! after they are freed (purged, still mapped), so a run well within the limit in resident
//! memory can abort on the address space. With such a limit (`fit_address_space_limit`)
//! arenas are reserved 32 MiB at a time (64 MiB with the chunk mimalloc adds), and blocks
//! from [`BIG_BLOCK`] on go to the C library's allocator, which maps each on its own, unmaps
//! it when freed, and grows it in place of the address space (`mremap`), as the memory
//! model's counting allocator counts a reallocation: a vector doubled from C to 2C maps 2C,
//! not the 3C of a copy into a new block. Elsewhere nothing changes: mimalloc serves every
//! block. The runs behind both choices: docs/measurements.md, "The memory model against
//! measured peaks".
//!
//! An allocation that fails all the same (the estimate is a model; other processes take
//! memory too) ends the command with a one-line error and exit code 2, its temporary files
//! removed, instead of Rust's abort ([`OneLineOnFailure`]).

use libmimalloc_sys::{mi_option_set, mi_option_t};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};
use treefix_accuracy::Error;
use treefix_accuracy::memory::{self, Available, Estimate};

#[global_allocator]
static GLOBAL: OneLineOnFailure = OneLineOnFailure(mimalloc::MiMalloc);

/// Under an address-space limit, blocks of this size and more are the C library's (mapped on
/// their own, see the module docs); mimalloc's pages hold blocks up to this size anyway.
const BIG_BLOCK: usize = 512 << 10;

/// Set once, before the first allocation, when an address-space limit is in force: big blocks
/// go to the C library's allocator from then on (a block is freed by the allocator of its
/// size, so the choice never changes while the process lives).
static BIG_TO_SYSTEM: AtomicBool = AtomicBool::new(false);

/// Whether a block of `size` bytes is the C library's.
fn big(size: usize) -> bool {
    size >= BIG_BLOCK && BIG_TO_SYSTEM.load(Ordering::Relaxed)
}

/// mimalloc (and, under an address-space limit, the C library's allocator for big blocks),
/// whose failed allocations end the process with a one-line error (exit 2) instead of
/// `handle_alloc_error`'s abort (whose hook cannot be set on stable Rust).
pub struct OneLineOnFailure(mimalloc::MiMalloc);

// SAFETY: every call is mimalloc's or the C library's, a block always freed or grown by the
// allocator that made it (chosen by its size); a null result ends the process instead of
// returning.
unsafe impl GlobalAlloc for OneLineOnFailure {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe {
            match big(layout.size()) {
                true => System.alloc(layout),
                false => self.0.alloc(layout),
            }
        };
        checked(p, layout.size())
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe {
            match big(layout.size()) {
                true => System.alloc_zeroed(layout),
                false => self.0.alloc_zeroed(layout),
            }
        };
        checked(p, layout.size())
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above; a block that changes allocator is copied and freed by its own.
        let p = unsafe {
            match (big(layout.size()), big(new_size)) {
                (true, true) => System.realloc(ptr, layout, new_size),
                (false, false) => self.0.realloc(ptr, layout, new_size),
                _ => {
                    let to = Layout::from_size_align_unchecked(new_size, layout.align());
                    let q = self.alloc(to);
                    std::ptr::copy_nonoverlapping(ptr, q, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                    q
                }
            }
        };
        checked(p, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe {
            match big(layout.size()) {
                true => System.dealloc(ptr, layout),
                false => self.0.dealloc(ptr, layout),
            }
        }
    }
}

fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(size);
    }
    ptr
}

/// Writes `error: out of memory: …` to stderr and ends the process (exit 2), removing the
/// temporary files being written first. Allocates nothing: only `write` and `_exit`.
fn out_of_memory(size: usize) -> ! {
    treefix_accuracy::output::cleanup::remove_registered();
    let mut buf = [0u8; 256];
    let mut len = 0;
    let mut put = |bytes: &[u8]| {
        let n = bytes.len().min(buf.len() - len);
        buf[len..len + n].copy_from_slice(&bytes[..n]);
        len += n;
    };
    put(b"error: out of memory: an allocation of ");
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut x = size;
    loop {
        i -= 1;
        digits[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    put(&digits[i..]);
    put(
        b" bytes failed (beyond the memory estimate the command was checked against, or \
          memory other processes took meanwhile); the files already written are complete\n",
    );
    // SAFETY: write and _exit allocate nothing and are async-signal-safe.
    unsafe {
        libc::write(2, buf.as_ptr().cast(), len);
        libc::_exit(2);
    }
}

/// mimalloc's `mi_option_arena_reserve` (KiB reserved per arena) and
/// `mi_option_arena_max_object_size` (KiB; larger blocks are mapped on their own): their
/// places in `mi_option_e` of mimalloc 3's `mimalloc.h` (a test checks their defaults).
const ARENA_RESERVE: mi_option_t = 23;
const ARENA_MAX_OBJECT_SIZE: mi_option_t = 45;

/// Under an address-space limit (`ulimit -v`), has the process map no more than it uses:
/// small arena reservations, big blocks mapped and unmapped on their own (the C library's,
/// [`BIG_BLOCK`] and more). It must run before the first allocation (which reserves the first
/// arena, 1 GiB by default), so the loader runs it, from `.init_array`, before Rust's runtime
/// starts; elsewhere nothing changes.
#[cfg(target_os = "linux")]
#[unsafe(link_section = ".init_array")]
#[used]
static FIT_ADDRESS_SPACE_LIMIT: extern "C" fn() = fit_address_space_limit;

#[cfg(target_os = "linux")]
extern "C" fn fit_address_space_limit() {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    let limited = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0
        && r.rlim_cur != libc::RLIM_INFINITY;
    if limited {
        // SAFETY: sets two of mimalloc's options (no allocation), before any allocation.
        unsafe {
            mi_option_set(ARENA_RESERVE, 32 * 1024);
            mi_option_set(
                ARENA_MAX_OBJECT_SIZE,
                (BIG_BLOCK / 1024) as std::ffi::c_long,
            );
        }
        // glibc's malloc: its small allocations share one arena (it would reserve 64 MiB of
        // address space for each thread that allocates: 3 of them, 201 MB, in a `run` of 2
        // rayon threads), and every big block is mapped on its own, whatever the sizes freed
        // before (a fixed threshold turns off glibc's raising of it).
        #[cfg(target_env = "gnu")]
        // SAFETY: mallopt before any thread exists.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
            libc::mallopt(libc::M_MMAP_THRESHOLD, BIG_BLOCK as libc::c_int);
            BIG_TO_SYSTEM.store(true, Ordering::Relaxed);
        }
    }
}

/// The memory preflight of `command` ([`memory::check`]); when it passes, the allocator's
/// handling of freed and huge pages follows the estimate from now on ([`memory::pages`]).
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
    memory::pages::apply(estimate);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use libmimalloc_sys::mi_option_get;
    use treefix_accuracy::memory::pages::PURGE_DELAY;

    /// The purge delay in force, milliseconds.
    fn purge_delay() -> i64 {
        // SAFETY: reads one of mimalloc's options.
        unsafe { mi_option_get(PURGE_DELAY) as i64 }
    }

    /// A failed allocation ends the process with one line and exit code 2, not an abort. The
    /// test binary has this allocator too: it runs the test below in a process of its own.
    #[test]
    fn a_failed_allocation_is_a_one_line_error() {
        let o = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "cli::allocator::tests::allocate_too_much"])
            .args(["--ignored", "--test-threads", "1"])
            .env("TREEFIX_ALLOCATE_TOO_MUCH", "1")
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{:?}: {e}", o.status);
        let lines: Vec<&str> = e.lines().filter(|l| l.starts_with("error")).collect();
        assert_eq!(lines.len(), 1, "{e}");
        assert!(
            lines[0].starts_with(&format!(
                "error: out of memory: an allocation of {} bytes failed (",
                1u64 << 62
            )),
            "{e}"
        );
    }

    #[test]
    #[ignore = "run by a_failed_allocation_is_a_one_line_error, in a process of its own"]
    fn allocate_too_much() {
        if std::env::var_os("TREEFIX_ALLOCATE_TOO_MUCH").is_some() {
            let v: Vec<u8> = Vec::with_capacity(1 << 62);
            std::hint::black_box(&v);
        }
    }

    /// The arena options' places are right: they read mimalloc 3's defaults (1 GiB and 2 GiB,
    /// in KiB) in a test process, which has no address-space limit.
    #[test]
    fn arena_options_are_the_options_they_name() {
        // SAFETY: reads two of mimalloc's options.
        let (reserve, max_object) = unsafe {
            (
                mi_option_get(ARENA_RESERVE),
                mi_option_get(ARENA_MAX_OBJECT_SIZE),
            )
        };
        if std::env::var_os("MIMALLOC_ARENA_RESERVE").is_none() {
            assert_eq!(reserve, 1 << 20);
        }
        if std::env::var_os("MIMALLOC_ARENA_MAX_OBJECT_SIZE").is_none() {
            assert_eq!(max_object, 2 << 20);
        }
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
