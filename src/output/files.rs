//! Paths compared as files: what the output rule and the cleanup both judge inputs by.

use std::path::Path;

/// An input of a command: what it is ("the tree file of --tree") and its path.
pub type Input<'a> = (&'a str, &'a Path);

/// Whether `a` and `b` name one existing file (or directory).
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
