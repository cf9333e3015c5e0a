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
//! Also here: the one rule of temporary names and their cleanup ([`cleanup`]), and the one
//! rule that refuses an output path that is one of the command's inputs ([`destination`]:
//! `run --tree t.tre --dump t.tre` would replace the tree with a CSV).

pub mod cleanup;
pub mod destination;
pub mod files;

pub use destination::{
    Destination, check as check_destination, check_outputs, given_files, refuse_overwriting_inputs,
    same_file,
};

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
        let file = cleanup::temporary_in(&dir, &name).map_err(Error::output(path))?;
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
}
