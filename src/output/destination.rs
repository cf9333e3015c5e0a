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
use std::path::{Path, PathBuf};

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

pub use super::files::{Input, same_file};

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
                if removable(dir, &names, input) {
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

/// The one rule of a command's outputs, checked before anything is written: no two of them
/// name one file (or both standard output, `-`), and none replaces or removes one of
/// `inputs` ([`check`]). A file is named by its path, symbolic links resolved, whether it
/// exists yet or not; a directory destination by each file it writes there.
pub fn check_outputs(outputs: &[Destination<'_>], inputs: &[Input<'_>]) -> Result<(), Error> {
    let files: Vec<(&str, PathBuf, PathBuf)> = outputs
        .iter()
        .flat_map(|d| match *d {
            Destination::File { flag, path } => vec![(flag, path.to_path_buf(), resolve(path))],
            Destination::Dir { flag, dir, names } => names
                .iter()
                .map(|n| (flag, dir.to_path_buf(), resolve(&dir.join(n))))
                .collect(),
        })
        .collect();
    for (i, (flag, given, resolved)) in files.iter().enumerate() {
        let earlier = files[..i]
            .iter()
            .find(|(f, _, r)| f != flag && (r == resolved || same_file(r, resolved)));
        if let Some((other, other_given, _)) = earlier {
            let stdout = |p: &Path| p.as_os_str() == "-";
            return Err(Error::Usage(if stdout(given) && stdout(other_given) {
                format!(
                    "{other} - and {flag} - would both write to standard output: give one a file"
                )
            } else {
                format!(
                    "{other} {} and {flag} {} name the same file: give each output its own path",
                    other_given.display(),
                    given.display()
                )
            }));
        }
    }
    for d in outputs {
        match d {
            Destination::File { path, .. } if path.as_os_str() == "-" => {}
            d => check(d, inputs)?,
        }
    }
    Ok(())
}

/// The file outputs of a command that were given: `(option, path)`, `None` for those not.
pub fn given_files<'a>(outputs: &[(&'a str, Option<&'a Path>)]) -> Vec<Destination<'a>> {
    outputs
        .iter()
        .filter_map(|&(flag, path)| path.map(|path| Destination::File { flag, path }))
        .collect()
}

/// The file `path` names: itself with symbolic links resolved if it exists; else its
/// directory resolved, then its name (a dangling link followed to where it points). `-`
/// (standard output) stays `-`.
fn resolve(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    // A chain of dangling links ends somewhere; a loop of them is cut short.
    for _ in 0..16 {
        if path.as_os_str() == "-" {
            return path;
        }
        if let Ok(p) = std::fs::canonicalize(&path) {
            return p;
        }
        match std::fs::read_link(&path) {
            Ok(target) => path = parent(&path).join(target),
            Err(_) => break,
        }
    }
    let dir = std::fs::canonicalize(parent(&path)).unwrap_or_else(|_| parent(&path).to_path_buf());
    match path.file_name() {
        Some(name) => dir.join(name),
        None => path,
    }
}

/// Refuses an output path that is one of the command's inputs: `(option, path)` of the
/// output, `(what, path)` of each input ([`check`] of a [`Destination::File`]).
pub fn refuse_overwriting_inputs(output: (&str, &Path), inputs: &[Input<'_>]) -> Result<(), Error> {
    let (flag, path) = output;
    check(&Destination::File { flag, path }, inputs)
}

/// Whether the cleanup of `dir`, which removes the temporaries of `names`, would remove
/// `input`: the file it names, symbolic links resolved, is one of them (another link to it
/// elsewhere would lose its target). A hard link keeps its data, so the name alone counts.
pub(super) fn removable(dir: &Path, names: &[&str], input: &Path) -> bool {
    let resolved = std::fs::canonicalize(input).unwrap_or_else(|_| input.to_path_buf());
    [input, resolved.as_path()].into_iter().any(|path| {
        let file_name = path.file_name().map(|n| n.to_string_lossy());
        let stale = file_name.is_some_and(|f| names.iter().any(|n| is_temporary_of(&f, n)));
        stale && same_file(parent(path), dir)
    })
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
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
