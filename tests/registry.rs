//! The registry and the docs agree: README.md's algorithm table and docs/design.md §5's list
//! exactly the names of `Algorithm::ALL`, in its order; names and short names are distinct;
//! every GPU kernel's stage files exist in shaders/.

use analysis::Algorithm;
use std::collections::HashSet;
use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The first column of the first table of the section whose heading starts with `heading`:
/// per row, the name in backticks the cell starts with, or the whole cell where it starts
/// otherwise (so that it shows in the mismatch).
fn table_names(md: &str, heading: &str) -> Vec<String> {
    let section: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with(heading))
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .collect();
    assert!(!section.is_empty(), "no section {heading:?}");
    let rows: Vec<&str> = section
        .iter()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and separator
        .copied()
        .collect();
    rows.iter()
        .map(|row| {
            let cell = row
                .trim_start_matches('|')
                .split('|')
                .next()
                .unwrap()
                .trim();
            match cell.strip_prefix('`').and_then(|c| c.split_once('`')) {
                Some((name, _)) => name.to_string(),
                None => cell.to_string(),
            }
        })
        .collect()
}

fn registry_names() -> Vec<String> {
    Algorithm::names().into_iter().map(String::from).collect()
}

const README: (&str, &str) = ("README.md", "## Algorithms");
const DESIGN: (&str, &str) = ("docs/design.md", "## 5. ");

#[test]
fn docs_tables_list_the_registry_in_its_order() {
    for (file, heading) in [README, DESIGN] {
        assert_eq!(
            table_names(&read(file), heading),
            registry_names(),
            "{file}, section {heading:?}: its algorithm table's rows against Algorithm::ALL"
        );
    }
}

#[test]
fn a_missing_row_is_caught() {
    for (file, heading) in [README, DESIGN] {
        let md = read(file);
        let rows = md
            .lines()
            .filter(|l| l.starts_with("| `vectorial-chained`"))
            .count();
        assert_eq!(rows, 1, "{file}");
        let without: String = md
            .lines()
            .filter(|l| !l.starts_with("| `vectorial-chained`"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_ne!(table_names(&without, heading), registry_names(), "{file}");
    }
}

#[test]
fn names_and_short_names_are_distinct() {
    let mut names = HashSet::new();
    let mut shorts = HashSet::new();
    for a in Algorithm::ALL {
        assert!(names.insert(a.name()), "name {} twice", a.name());
        assert!(shorts.insert(a.short()), "short name {} twice", a.short());
        assert!(!a.short().is_empty(), "{} has no short name", a.name());
        assert_eq!(a.name().parse::<Algorithm>().unwrap(), a);
    }
}

#[test]
fn every_gpu_stage_file_exists() {
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut kernels = 0;
    for a in Algorithm::ALL {
        let Some(gpu) = a.gpu() else { continue };
        kernels += 1;
        assert!(!gpu.stages().is_empty(), "{} names no stage", a.name());
        for file in gpu.stages().iter().map(|s| s.file()) {
            assert!(
                shaders.join(&file).is_file(),
                "{}: shaders/{file} does not exist",
                a.name()
            );
        }
    }
    assert!(kernels > 0);
}

/// `accuracy algorithms --names`, which scripts read instead of keeping a list, is the
/// registry: every name in its order, and with `--gpu` those with a kernel.
#[test]
fn the_names_scripts_read_are_the_registry() {
    let names = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
            .arg("algorithms")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .trim_end()
            .to_string()
    };
    let all: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
    assert_eq!(names(&["--names"]), all.join(","));
    let gpu: Vec<&str> = Algorithm::ALL
        .iter()
        .filter(|a| a.has_gpu_kernel())
        .map(|a| a.name())
        .collect();
    assert_eq!(names(&["--names", "--gpu"]), gpu.join(","));
    assert_eq!(
        names(&["--names", "--correctly-rounded"]),
        "vectorial-exact"
    );
    let table = names(&[]);
    for a in Algorithm::ALL {
        assert!(table.contains(a.name()), "{table}");
    }
}
