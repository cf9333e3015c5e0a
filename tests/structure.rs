//! The structure guards of scripts/ run with the test command: no import circle between the
//! files of a crate (following `pub use` re-exports), and scripts/structure.py's findings
//! (dead public items, a library that prints, functions and files over their size, an
//! algorithm named in too many files). Each fails with the script's own output.
//!
//! They need `python3`; without it they fail (CI has it), rather than pass unseen.

use std::process::{Command, Output};

fn python(args: &[&str]) -> Output {
    Command::new("python3")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs (the structure guards need it)")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn no_import_circle() {
    let o = python(&["scripts/import-cycles.py"]);
    assert!(o.status.success(), "import circles:\n{}", text(&o));
}

#[test]
fn structure_has_no_finding() {
    let o = python(&["scripts/structure.py"]);
    assert!(o.status.success(), "structure findings:\n{}", text(&o));
}

/// The circle check can see: a workspace whose two files import each other, one through a
/// re-export of the crate root, makes it fail and name both files.
#[test]
fn import_circle_check_fails_on_a_circle() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = dir.path().join("analysis/src");
    std::fs::create_dir_all(&src).expect("a source folder");
    let write = |name: &str, code: &str| std::fs::write(src.join(name), code).expect("written");
    write("lib.rs", "mod a;\nmod b;\npub use b::Y;\n");
    write("a.rs", "use crate::Y;\npub struct X(Y);\n");
    write("b.rs", "use crate::a::X;\npub struct Y(Box<X>);\n");
    let root = dir.path().to_str().expect("a UTF-8 path");
    let o = python(&["scripts/import-cycles.py", "--root", root]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("1 circle(s) between files"), "{out}");
    for file in ["analysis/src/a.rs", "analysis/src/b.rs"] {
        assert!(out.contains(file), "{file} not named:\n{out}");
    }
}
