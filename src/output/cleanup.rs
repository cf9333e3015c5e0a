//! Temporary files: the one rule that names them, the removal of those a killed process left
//! behind, and the removal of those being written when a terminating signal arrives.
//!
//! **Naming.** Every file a command writes whole goes first to `.NAME.XXXXXX.partial` in the
//! directory of `NAME` (XXXXXX: six random letters and digits), hidden and never mistaken for
//! a result, then is renamed to `NAME` ([`super::OutputFile`]). [`temporary_in`] makes
//! such names and [`is_temporary_of`] recognises them (and the names earlier versions used:
//! `.NAME.XXXXXX.tmp` and a report's `.report.XXXXXX.partial`).
//!
//! **After a kill -9** (no chance to clean up), a command that owns a directory (it holds its
//! lock, [`crate::lock`]) removes what its kind of run left there with
//! [`remove_stale_temporaries`] before it writes anything: `sweep` and its resume, `merge` and
//! `report`.
//!
//! **On a signal** (Ctrl-C, SIGTERM, SIGHUP): the handler only calls async-signal-safe
//! functions (`unlink`, `signal`, `raise`) on paths registered beforehand as C strings in a
//! fixed table, then re-raises the signal with its default action, so the process still ends
//! as the signal says (exit status 130 for Ctrl-C in a shell). [`remove_registered`] is the
//! same removal for a process that must end at once (a failed allocation).

use crate::Error;
use std::ffi::{CString, c_char};
use std::path::Path;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The suffix of every temporary file.
pub const SUFFIX: &str = ".partial";
/// Random characters in a temporary name.
const RANDOM: usize = 6;

/// Creates a temporary file for `name` in `dir`, named by the one rule
/// (`.NAME.XXXXXX.partial`), with the mode of a file created the ordinary way (0666 less the
/// umask; tempfile's default is 0600): it becomes a result others may read.
pub fn temporary_in(dir: &Path, name: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(SUFFIX).rand_bytes(RANDOM);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Whether `file_name` is a temporary file of `name`: `.NAME.XXXXXX.partial`, or a name of an
/// earlier version (`.NAME.XXXXXX.tmp`; `.report.XXXXXX.partial` for a report page).
pub fn is_temporary_of(file_name: &str, name: &str) -> bool {
    let random = |s: &str| s.len() == RANDOM && s.bytes().all(|b| b.is_ascii_alphanumeric());
    let of = |prefix: &str, suffix: &str| {
        file_name
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix))
            .is_some_and(random)
    };
    let own = format!(".{name}.");
    of(&own, SUFFIX) || of(&own, ".tmp") || (name == reports::REPORT_FILE && of(".report.", SUFFIX))
}

/// Removes from `dir` the temporary files of `names` (regular files only) that a killed run
/// left behind. The caller owns `dir` (holds its lock): no other process is writing them.
pub fn remove_stale_temporaries(dir: &Path, names: &[&str]) -> Result<(), Error> {
    for entry in std::fs::read_dir(dir).map_err(Error::io(dir))? {
        let entry = entry.map_err(Error::io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && names.iter().any(|n| is_temporary_of(&name, n)) {
            match std::fs::remove_file(entry.path()) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::io(entry.path())(e));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Files written at once: a sweep's few, and the dump's.
const SLOTS: usize = 8;
static PATHS: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// A registered path; unregistered on drop.
pub struct Guard(Option<usize>);

impl Guard {
    pub fn register(path: &Path) -> Guard {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            install();
            let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
                return Guard(None);
            };
            let ptr = c.into_raw();
            for (i, slot) in PATHS.iter().enumerate() {
                if slot
                    .compare_exchange(
                        std::ptr::null_mut(),
                        ptr,
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    )
                    .is_ok()
                {
                    return Guard(Some(i));
                }
            }
            // SAFETY: `ptr` came from `into_raw` above and was not stored.
            drop(unsafe { CString::from_raw(ptr) });
        }
        #[cfg(not(unix))]
        let _ = path;
        Guard(None)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        // The string is not freed: a handler on another thread may have loaded it just
        // before; it then unlinks a temporary name that no longer exists, harmlessly. A
        // path's few bytes per output file are the price.
        if let Some(i) = self.0 {
            PATHS[i].store(std::ptr::null_mut(), Ordering::SeqCst);
        }
    }
}

/// Removes every registered temporary file; async-signal-safe (no allocation, no lock).
pub fn remove_registered() {
    #[cfg(unix)]
    for slot in &PATHS {
        let ptr = slot.load(Ordering::SeqCst);
        if !ptr.is_null() {
            // SAFETY: a NUL-terminated path owned by the table; unlink is signal-safe.
            unsafe { libc::unlink(ptr) };
        }
    }
}

#[cfg(unix)]
fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: installs a handler that only calls async-signal-safe functions.
            unsafe {
                libc::signal(sig, on_signal as *const () as libc::sighandler_t);
            }
        }
    });
}

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    remove_registered();
    // SAFETY: signal and raise are async-signal-safe.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_recognises_the_names_it_makes() {
        let d = tempfile::tempdir().unwrap();
        for name in ["results.csv", "report.html", "sweep.json", "a b.csv"] {
            let f = temporary_in(d.path(), name).unwrap();
            let made = f.path().file_name().unwrap().to_string_lossy().into_owned();
            assert!(is_temporary_of(&made, name), "{made}");
            assert!(!is_temporary_of(&made, "other.csv"), "{made}");
        }
        // Names of earlier versions.
        assert!(is_temporary_of(".summary.json.x1Yz2w.tmp", "summary.json"));
        assert!(is_temporary_of(".report.AbC123.partial", "report.html"));
        // Not temporaries: a user's files, a sweep's logs.
        for name in [
            "notes.tmp",
            "results.csv.partial",
            ".results.csv.partial",
            ".results.csv.toolong1.partial",
            ".results.csv.ab-12.partial",
            ".report.AbC123.partial.x",
        ] {
            assert!(!is_temporary_of(name, "results.csv"), "{name}");
            assert!(!is_temporary_of(name, "report.html"), "{name}");
        }
    }

    #[test]
    fn stale_temporaries_go_and_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        let keep = [
            "results.csv",
            "notes.tmp",
            ".sweep.json.x1Yz2w",
            "results.csv.partial",
        ];
        let stale = [
            ".results.csv.Ab12Cd.partial",
            ".report.html.q1w2e3.partial",
            ".report.zzzzzz.partial",
            ".sweep.json.x1Yz2w.tmp",
        ];
        for f in keep.iter().chain(&stale) {
            std::fs::write(d.path().join(f), "x").unwrap();
        }
        let names = ["results.csv", "report.html", "sweep.json"];
        remove_stale_temporaries(d.path(), &names).unwrap();
        for f in keep {
            assert!(d.path().join(f).exists(), "{f} removed");
        }
        for f in stale {
            assert!(!d.path().join(f).exists(), "{f} left");
        }
    }
}
