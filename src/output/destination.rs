//! The one rule every output path of every command goes through: an output never replaces,
//! and a cleanup never removes, one of the command's inputs.
//!
//! A command states where it writes as a [`Destination`] and what it reads as inputs
//! (`(what, path)`: "the tree file of --tree"), and calls [`check`] before it writes
//! anything. Paths are compared as files (device and inode), so another spelling, a symbolic
//! link or a hard link of an input is refused too. A directory destination covers every file
//! the command writes there, the temporary files it names after them (which a later run
//! removes as stale, see [`super::cleanup`]) and the directory's lock file.
//!
//! Standard output would be one more destination, which no input can be.

use super::cleanup::is_temporary_of;
use crate::Error;
use std::path::Path;

/// Where a command writes.
#[derive(Debug, Clone, Copy)]
pub enum Destination<'a> {
    /// One file, named by an option (`--dump`, `--out`, `--json`).
    File { flag: &'a str, path: &'a Path },
    /// A directory (`--out DIR`, merge's `OUT`) and the names of the files the command
    /// writes, replaces or removes there.
    Dir {
        flag: &'a str,
        dir: &'a Path,
        names: &'a [&'a str],
    },
}

/// An input of a command: what it is ("the tree file of --tree") and its path.
pub type Input<'a> = (&'a str, &'a Path);

/// `Err` (a one-line usage error, exit 2) when writing `destination` would replace or remove
/// one of `inputs`.
pub fn check(destination: &Destination<'_>, inputs: &[Input<'_>]) -> Result<(), Error> {
    match *destination {
        Destination::File { flag, path } => {
            for &(what, input) in inputs {
                if same_file(path, input) {
                    return Err(Error::Usage(format!(
                        "{flag} {} would overwrite an input, {what} ({}); choose another path",
                        path.display(),
                        input.display()
                    )));
                }
            }
        }
        Destination::Dir { flag, dir, names } => {
            let names: Vec<&str> = names
                .iter()
                .copied()
                .chain([crate::lock::LOCK_FILE])
                .collect();
            for &(what, input) in inputs {
                if let Some(name) = names.iter().find(|n| same_file(&dir.join(n), input)) {
                    return Err(Error::Usage(format!(
                        "{flag} {} would overwrite an input, {what} ({}), with its {name}; \
                         choose another directory",
                        dir.display(),
                        input.display()
                    )));
                }
                let file_name = input.file_name().map(|n| n.to_string_lossy());
                let stale = file_name.is_some_and(|f| names.iter().any(|n| is_temporary_of(&f, n)));
                if stale && same_file(parent(input), dir) {
                    return Err(Error::Usage(format!(
                        "{flag} {} would remove an input, {what} ({}), as a temporary file a \
                         killed run left; choose another directory or rename the file",
                        dir.display(),
                        input.display()
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Refuses an output path that is one of the command's inputs: `(option, path)` of the
/// output, `(what, path)` of each input ([`check`] of a [`Destination::File`]).
pub fn refuse_overwriting_inputs(output: (&str, &Path), inputs: &[Input<'_>]) -> Result<(), Error> {
    let (flag, path) = output;
    check(&Destination::File { flag, path }, inputs)
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_is_not_an_output() {
        let d = tempfile::tempdir().unwrap();
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

    #[test]
    fn a_directory_covers_its_files_temporaries_and_lock() {
        let d = tempfile::tempdir().unwrap();
        let names = ["results.csv", "report.html"];
        let dest = Destination::Dir {
            flag: "--out",
            dir: d.path(),
            names: &names,
        };
        for (file, verb) in [
            ("results.csv", "overwrite"),
            ("report.html", "overwrite"),
            (crate::lock::LOCK_FILE, "overwrite"),
            (".report.html.Ab12Cd.partial", "remove"),
        ] {
            let input = d.path().join(file);
            std::fs::write(&input, "(a,b);\n").unwrap();
            let e = check(&dest, &[("the tree file of --tree", &input)]).unwrap_err();
            assert!(
                e.to_string().contains(&format!("would {verb} an input")),
                "{e}"
            );
            std::fs::remove_file(&input).unwrap();
        }
        // Another file in the directory, and a file of the same name elsewhere, are fine.
        let mine = d.path().join("tree.nwk");
        std::fs::write(&mine, "(a,b);\n").unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let same_name = elsewhere.path().join("results.csv");
        std::fs::write(&same_name, "(a,b);\n").unwrap();
        assert!(check(&dest, &[("a", &mine), ("b", &same_name)]).is_ok());
        // A symbolic link in the directory pointing at an input is the input.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&same_name, d.path().join("results.csv")).unwrap();
            assert!(check(&dest, &[("b", &same_name)]).is_err());
        }
    }
}
