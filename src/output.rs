//! Output files that are complete or absent: each is written under a temporary name in its
//! own directory (`.NAME.XXXXXX.partial`) and renamed over its final name only once every byte
//! is written and synced, so an interrupted command (Ctrl-C, a kill, a full disk) never leaves
//! a truncated file under the name a user or a script reads. A path that exists and is not a
//! regular file (`/dev/stdout`, a named pipe, `/dev/full`) is written directly: nothing can be
//! renamed over it, and replacing a device node would be worse than a short write.
//!
//! Ctrl-C (SIGINT), SIGTERM or SIGHUP while a file is being written removes its temporary file
//! before the process ends as the signal says (see [`cleanup`]); a kill -9 leaves it behind,
//! hidden, never under the final name.
//!
//! Also here: the refusal of an output path that is one of the command's inputs (`run --tree
//! t.tre --dump t.tre` would replace the tree with a CSV).

use crate::Error;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file being written; [`OutputFile::commit`] gives it its name.
pub struct OutputFile {
    /// The name the user gave.
    path: PathBuf,
    inner: Inner,
}

enum Inner {
    /// A temporary file, renamed over `target` (the final path, symbolic links resolved).
    Temp {
        file: tempfile::NamedTempFile,
        target: PathBuf,
        /// Its registration with the signal handler.
        guard: cleanup::Guard,
    },
    Direct(File),
}

impl OutputFile {
    /// Starts writing `path`; an error names the path (a usage error: choose another).
    pub fn create(path: &Path) -> Result<OutputFile, Error> {
        let fail = Error::output(path);
        let target = match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => {
                let file = File::create(path).map_err(fail)?;
                return Ok(OutputFile {
                    path: path.to_path_buf(),
                    inner: Inner::Direct(file),
                });
            }
            // An existing file (perhaps behind a symbolic link) keeps its place and mode.
            Ok(_) => std::fs::canonicalize(path).map_err(Error::output(path))?,
            Err(_) => path.to_path_buf(),
        };
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".partial");
        // A new file gets the usual mode (0666 less the umask; tempfile's default is 0600), a
        // replaced one keeps its own (set below, past the umask).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let file = builder.tempfile_in(&dir).map_err(Error::output(path))?;
        if let Ok(m) = std::fs::metadata(&target) {
            file.as_file()
                .set_permissions(m.permissions())
                .map_err(Error::output(path))?;
        }
        let guard = cleanup::Guard::register(file.path());
        Ok(OutputFile {
            path: path.to_path_buf(),
            inner: Inner::Temp {
                file,
                target,
                guard,
            },
        })
    }

    /// The path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Syncs the bytes written, then renames the file to its name.
    pub fn commit(self) -> Result<(), Error> {
        let path = self.path;
        match self.inner {
            Inner::Direct(mut f) => f.flush().map_err(Error::write(&path)),
            Inner::Temp {
                mut file,
                target,
                guard,
            } => {
                file.flush().map_err(Error::write(&path))?;
                file.as_file().sync_all().map_err(Error::write(&path))?;
                // Unregistered first: a signal after the rename must not remove the file.
                drop(guard);
                file.persist(&target)
                    .map_err(|e| Error::write(&path)(e.error))?;
                Ok(())
            }
        }
    }

    fn file(&mut self) -> &mut File {
        match &mut self.inner {
            Inner::Temp { file, .. } => file.as_file_mut(),
            Inner::Direct(f) => f,
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

/// Removal of the temporary files being written when a terminating signal arrives. The
/// handler only calls async-signal-safe functions (`unlink`, `signal`, `raise`) on paths
/// registered beforehand as C strings in a fixed table, then re-raises the signal with its
/// default action, so the process still ends as the signal says (exit status 130 for
/// Ctrl-C in a shell).
pub mod cleanup {
    use std::ffi::{CString, c_char};
    use std::path::Path;
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// Files written at once: one per command today.
    const SLOTS: usize = 8;
    static PATHS: [AtomicPtr<c_char>; SLOTS] =
        [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

    /// A registered path; unregistered (and freed) on drop.
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
        for slot in &PATHS {
            let ptr = slot.load(Ordering::SeqCst);
            if !ptr.is_null() {
                // SAFETY: a NUL-terminated path owned by the table; unlink is signal-safe.
                unsafe { libc::unlink(ptr) };
            }
        }
        // SAFETY: signal and raise are async-signal-safe.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
}

/// Writes `bytes` to `path` (temporary name, then rename).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut f = OutputFile::create(path)?;
    f.write_all(bytes).map_err(Error::write(path))?;
    f.commit()
}

/// A CSV writer's error on `path`: a failed write is [`Error::Write`], anything else
/// (serialization) [`Error::Csv`].
pub fn csv_error(path: &Path) -> impl FnOnce(csv::Error) -> Error + '_ {
    move |e| {
        if e.is_io_error() {
            match e.into_kind() {
                csv::ErrorKind::Io(source) => Error::write(path)(source),
                _ => unreachable!("is_io_error"),
            }
        } else {
            Error::csv(path)(e)
        }
    }
}

/// Refuses an output path that is one of the command's inputs: `(option, path)` of the
/// output, `(what, path)` of each input ("the tree file of --tree"). Paths are compared as
/// files (device and inode), so another spelling or a hard link of an input is refused too.
pub fn refuse_overwriting_inputs(
    output: (&str, &Path),
    inputs: &[(&str, &Path)],
) -> Result<(), Error> {
    let (flag, out) = output;
    for &(what, input) in inputs {
        if same_file(out, input) {
            return Err(Error::Usage(format!(
                "{flag} {} would overwrite an input, {what} ({}); choose another path",
                out.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Whether `a` and `b` name one existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn nothing_under_the_final_name_until_commit() {
        let d = dir();
        let p = d.path().join("out.csv");
        let mut f = OutputFile::create(&p).unwrap();
        f.write_all(b"a,b\n").unwrap();
        assert!(!p.exists());
        f.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"a,b\n");
        // Nothing else is left in the directory.
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_abandoned_file_leaves_the_old_one_and_no_temporary() {
        let d = dir();
        let p = d.path().join("out.csv");
        std::fs::write(&p, "old\n").unwrap();
        let mut f = OutputFile::create(&p).unwrap();
        f.write_all(b"new, half").unwrap();
        drop(f);
        assert_eq!(std::fs::read(&p).unwrap(), b"old\n");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode_and_a_link_stays_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir();
        let real = d.path().join("real.csv");
        std::fs::write(&real, "old\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = d.path().join("link.csv");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_file(&link, b"new\n").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new\n");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_device_is_a_write_error() {
        let e = write_file(Path::new("/dev/full"), &[b'x'; 1 << 16]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string().starts_with("/dev/full: write failed: "),
            "{e}"
        );
    }

    #[test]
    fn an_input_is_not_an_output() {
        let d = dir();
        let t = d.path().join("t.tre");
        std::fs::write(&t, "(a,b);\n").unwrap();
        let other = d.path().join(".").join("t.tre");
        let tree = [("the tree file of --tree", t.as_path())];
        let e = refuse_overwriting_inputs(("--dump", &other), &tree).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--dump {} would overwrite an input, the tree file of --tree ({}); choose another path",
                other.display(),
                t.display()
            )
        );
        assert_eq!(e.exit_code(), 2);
        assert!(refuse_overwriting_inputs(("--dump", &d.path().join("d.csv")), &tree).is_ok());
    }
}
