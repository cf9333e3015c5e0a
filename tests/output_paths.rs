//! One rule for the outputs of every command: two outputs of one command never name one file
//! (nor both standard output), whatever the spelling — the same path, a symbolic link, a
//! file not yet written — and the refusal comes before anything is written, as one line.
#![cfg(unix)]

mod common;
use common::{accuracy, scratch, stderr};

use std::path::Path;
use std::process::Output;

const TREE: &str = "((a:1,b:2)c:0.5,(d:3,e:1.5)f:2)g;\n";

/// Exit 2, one line on stderr holding `needle`.
fn one_line_error(o: &Output, what: &str, needle: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {e}");
    assert_eq!(e.lines().count(), 1, "{what}: {e}");
    assert!(
        e.starts_with("error: ") && e.contains(needle),
        "{what}: {e}"
    );
}

/// `a` and `b` as two spellings of one output: the same path, and a link to a file not yet
/// written.
fn spellings(dir: &Path, name: &str) -> [(String, String); 2] {
    let file = dir.join(name);
    let link = dir.join(format!("link-to-{name}"));
    std::os::unix::fs::symlink(&file, &link).unwrap();
    let f = file.to_str().unwrap().to_string();
    [
        (f.clone(), f.clone()),
        (f, link.to_str().unwrap().to_string()),
    ]
}

/// A command's arguments with its two outputs at the paths given.
type Args<'a> = dyn Fn(&str, &str) -> Vec<String> + 'a;

#[test]
fn two_outputs_of_one_command_never_share_a_file() {
    let dir = scratch("two-outputs");
    let tree = dir.join("t.nwk");
    std::fs::write(&tree, TREE).unwrap();
    let t = tree.to_str().unwrap();
    let results = dir.join("r.csv");
    let mut csv = String::from("vertex,op,result\n");
    for v in 0..7 {
        csv += &format!("{v},rootfix,1\n");
    }
    std::fs::write(&results, csv).unwrap();
    let r = results.to_str().unwrap();
    let commands: [(&str, Box<Args<'_>>); 3] = [
        (
            "run",
            Box::new(move |a, b| {
                [
                    "run", "-q", "--tree", t, "--algos", "parallel", "--dump", a, "--json", b,
                ]
                .map(String::from)
                .to_vec()
            }),
        ),
        (
            "score",
            Box::new(move |a, b| {
                [
                    "score",
                    "--tree",
                    t,
                    "--results",
                    r,
                    "--ops",
                    "rootfix",
                    "--json",
                    a,
                ]
                .into_iter()
                .chain(["--dump", b])
                .map(String::from)
                .collect()
            }),
        ),
        (
            "spatial",
            Box::new(|a, b| {
                [
                    "spatial",
                    "--topology",
                    "chain",
                    "--nodes",
                    "2^4",
                    "--json",
                    a,
                    "--html",
                    b,
                ]
                .map(String::from)
                .to_vec()
            }),
        ),
    ];
    for (name, args) in &commands {
        for (k, (a, b)) in spellings(&dir, &format!("{name}.out")).iter().enumerate() {
            let argv = args(a, b);
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            let o = accuracy(&argv);
            one_line_error(&o, &format!("{name} #{k}"), "name the same file");
            assert!(!Path::new(a).exists(), "{name} #{k} wrote {a}");
        }
        let argv = args("-", "-");
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        one_line_error(
            &accuracy(&argv),
            &format!("{name} to stdout"),
            "would both write to standard output",
        );
    }
    // spatial's checkpoint (`FILE.partial` beside its JSON) is one of its outputs too.
    let json = dir.join("s.json");
    let o = accuracy(&[
        "spatial",
        "--topology",
        "chain",
        "--nodes",
        "2^4",
        "--json",
        json.to_str().unwrap(),
        "--html",
        &format!("{}.partial", json.display()),
    ]);
    one_line_error(&o, "spatial's checkpoint", "name the same file");
}
