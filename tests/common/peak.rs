//! The peak resident memory of a child process, from the kernel's accounting (`wait4`), for
//! the tests and the example that hold the memory model to measured peaks.

use std::process::{Command, Stdio};

/// What a finished child used: its exit status (`None`: killed by a signal) and its peak
/// resident set, in bytes.
pub struct Peak {
    pub code: Option<i32>,
    pub rss: u64,
}

/// Runs `cmd` (its output discarded) and measures its peak resident set.
// The child is reaped by wait4, which std's `Child` does not see.
#[allow(clippy::zombie_processes)]
pub fn peak_of(cmd: &mut Command) -> Peak {
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the command starts");
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for the child it reaps.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    // ru_maxrss is in KiB on Linux, bytes on macOS.
    let scale = if cfg!(target_os = "macos") { 1 } else { 1024 };
    Peak {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        rss: usage.ru_maxrss as u64 * scale,
    }
}

/// The topologies the memory model is measured on (tests/memory.rs, examples/memory_model.rs).
pub const TOPOLOGIES: [&str; 8] = [
    "chain",
    "star",
    "random-recursive",
    "prufer",
    "kary",
    "broom",
    "caterpillar-legs",
    "profile",
];
