//! One process per directory: `sweep` (and its resume), `merge` and `report` hold an exclusive
//! advisory lock (`flock`) on a lock file inside the directory they write or read, for the
//! whole command. The kernel releases it when the process ends, however it ends, so a
//! `kill -9` never leaves a stale lock. The holder writes its pid and command into the file
//! after locking, and a second process is refused with a one-line error naming them (exit 2)
//! instead of mixing its files with the first one's.

use crate::Error;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The lock file inside a locked directory.
pub const LOCK_FILE: &str = ".accuracy.lock";

/// A directory locked by this process until the value is dropped (or the process ends).
#[derive(Debug)]
pub struct DirLock {
    dir: PathBuf,
    _file: File,
}

impl DirLock {
    /// Creates `dir` if needed and locks it for `command` ("sweep", "merge", "report").
    pub fn acquire(dir: &Path, command: &str) -> Result<DirLock, Error> {
        std::fs::create_dir_all(dir).map_err(Error::output(dir))?;
        let path = dir.join(LOCK_FILE);
        let file = open(&path).map_err(Error::output(&path))?;
        lock(dir, file, command)
    }

    /// Locks an existing directory that the command only reads (a merge's shards); `None`
    /// where no lock file can be created there (a read-only directory, which no sweep can
    /// be writing either).
    pub fn acquire_existing(dir: &Path, command: &str) -> Result<Option<DirLock>, Error> {
        let path = dir.join(LOCK_FILE);
        match open(&path) {
            Ok(file) => lock(dir, file, command).map(Some),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::PermissionDenied
                        | std::io::ErrorKind::ReadOnlyFilesystem
                        | std::io::ErrorKind::NotFound
                        | std::io::ErrorKind::NotADirectory
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(Error::io(&path)(e)),
        }
    }

    /// The locked directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// An output file locked by this process until the value is dropped (or the process ends):
/// the lock file `.NAME.lock` beside `NAME`, which stays (like a directory's), so that a
/// second process locks the same file. What `spatial` holds on each of its outputs.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

impl FileLock {
    /// The lock file of the output `path`.
    pub fn path_of(path: &Path) -> PathBuf {
        let name = path
            .file_name()
            .map_or_else(|| std::ffi::OsString::from("output"), |n| n.to_os_string());
        let mut lock = std::ffi::OsString::from(".");
        lock.push(name);
        lock.push(".lock");
        match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.join(lock),
            _ => PathBuf::from(lock),
        }
    }

    /// Locks the output `path` for `command`; refused (exit 2, naming the holder) while
    /// another process holds it.
    pub fn acquire(path: &Path, command: &str) -> Result<FileLock, Error> {
        let lock_path = FileLock::path_of(path);
        // A directory that is missing or not writable is the output's problem: named so.
        let file = open(&lock_path).map_err(Error::output(path))?;
        match lock(&lock_path, file, command) {
            Ok(DirLock { _file, .. }) => Ok(FileLock { _file }),
            Err(Error::Locked { holder, .. }) => Err(Error::LockedFile {
                path: path.to_path_buf(),
                holder,
            }),
            Err(e) => Err(e),
        }
    }
}

fn open(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o666);
    }
    options.open(path)
}

/// Locks `file`, the lock file of `dir` (`dir/.accuracy.lock`) or, for an output file, the
/// lock file itself.
#[cfg(unix)]
fn lock(dir: &Path, mut file: File, command: &str) -> Result<DirLock, Error> {
    let lock_path = if dir.is_dir() {
        dir.join(LOCK_FILE)
    } else {
        dir.to_path_buf()
    };
    use std::io::{Seek, Write};
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a file descriptor this function owns.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
            return Err(Error::Output {
                path: lock_path,
                source: e,
            });
        }
        return Err(Error::Locked {
            dir: dir.to_path_buf(),
            holder: holder(&lock_path),
        });
    }
    let record = format!("{} accuracy {command}\n", std::process::id());
    let written = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(record.as_bytes()));
    written.map_err(Error::write(lock_path))?;
    Ok(DirLock {
        dir: dir.to_path_buf(),
        _file: file,
    })
}

#[cfg(not(unix))]
fn lock(dir: &Path, file: File, _command: &str) -> Result<DirLock, Error> {
    Ok(DirLock {
        dir: dir.to_path_buf(),
        _file: file,
    })
}

/// "pid 1234, accuracy sweep", as the holder recorded it; the holder writes it just after
/// locking, so a record that is empty or names a process that no longer exists (the last
/// holder's) is read again for a moment.
#[cfg(unix)]
fn holder(path: &Path) -> String {
    for _ in 0..50 {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let mut words = text.split_whitespace();
        if let Some(pid) = words.next().and_then(|p| p.parse::<libc::pid_t>().ok()) {
            // SAFETY: signal 0 only checks that the process exists.
            let alive = unsafe { libc::kill(pid, 0) } == 0
                || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
            if alive {
                let command = words.collect::<Vec<_>>().join(" ");
                return match command.is_empty() {
                    true => format!("pid {pid}"),
                    false => format!("pid {pid}, {command}"),
                };
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    "pid unknown".into()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_names_the_first_holder() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("out");
        let first = DirLock::acquire(&dir, "sweep").unwrap();
        // flock locks belong to an open file: a second open in this process conflicts too.
        let e = DirLock::acquire(&dir, "merge").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: in use by another accuracy process (pid {}, accuracy sweep); wait for it to end, or use another directory",
                dir.display(),
                std::process::id()
            )
        );
        assert_eq!(e.exit_code(), 2);
        drop(first);
        let again = DirLock::acquire(&dir, "report").unwrap();
        let record = std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap();
        assert_eq!(record, format!("{} accuracy report\n", std::process::id()));
        drop(again);
        // A directory that does not exist is not locked (nothing reads it).
        assert!(
            DirLock::acquire_existing(&d.path().join("none"), "merge")
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_second_lock_on_an_output_file_names_the_first_holder() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("s.json");
        assert_eq!(FileLock::path_of(&out), d.path().join(".s.json.lock"));
        assert_eq!(
            FileLock::path_of(Path::new("s.json")),
            PathBuf::from(".s.json.lock")
        );
        let first = FileLock::acquire(&out, "spatial").unwrap();
        let e = FileLock::acquire(&out, "spatial").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: written by another accuracy process (pid {}, accuracy spatial); wait for it to end, or write another file",
                out.display(),
                std::process::id()
            )
        );
        assert_eq!(e.exit_code(), 2);
        drop(first);
        FileLock::acquire(&out, "spatial").unwrap();
    }
}
