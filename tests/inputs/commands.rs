//! `run`, `sweep` and `stats` on real tree files: their names, branch lengths and shapes shown,
//! and generated weights a file cannot carry refused with its name.

use super::data;
use crate::common::{accuracy, scratch, text};

#[test]
fn run_on_a_newick_tree_with_its_branch_lengths() {
    let dir = scratch("run");
    let dump = dir.join("nodes.csv");
    let o = accuracy(&[
        "run",
        "--tree",
        &data("ape_bird_families.nwk"),
        "--weights",
        "file",
        "--dump",
        dump.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.starts_with("ape_bird_families.nwk (newick, sha256 "),
        "{out}"
    );
    assert!(out.contains("n=272"), "{out}");
    // 272 vertices × 2 ops × every algorithm; leaves keep their names in the label column.
    let csv = std::fs::read_to_string(&dump).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 272 * 2 * analysis::Algorithm::ALL.len()
    );
    assert!(
        csv.lines()
            .skip(1)
            .any(|l| l.contains(",Struthionidae,0,,")),
        "no leaf label"
    );
}

#[test]
fn sweep_over_files_names_them() {
    let dir = scratch("sweep");
    let o = accuracy(&[
        "sweep",
        "--tree",
        &data("unifrac_crawford.tre"),
        "--tree",
        &data("HB_494_bus.mtx.gz"),
        "--cond",
        "1e3,1e9",
        "--trees",
        "2",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    // 2 files × 2 targets × 2 draws × the main job's algorithms × 2 ops.
    let algorithms = analysis::Algorithm::main_job().len();
    assert_eq!(csv.lines().count(), 1 + 2 * 2 * 2 * algorithms * 2);
    assert!(csv.contains(",unifrac_crawford.tre,730,"));
    assert!(csv.contains(",HB_494_bus.mtx.gz,494,"));
    // Resuming re-reads the files; a changed file is refused.
    let copy = dir.join("tree.nwk");
    std::fs::copy(data("ape_bird_families.nwk"), &copy).unwrap();
    let out2 = dir.join("own");
    let args = [
        "sweep",
        "--tree",
        copy.to_str().unwrap(),
        "--weights",
        "file",
        "--quiet",
        "--out",
        out2.to_str().unwrap(),
    ];
    let o = accuracy(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The file's own weights: one tree, one row per algorithm × op.
    let rows = std::fs::read_to_string(out2.join("results.csv")).unwrap();
    assert_eq!(rows.lines().count(), 1 + algorithms * 2);
    std::fs::write(&copy, "((a:1,b:2):3,c:4);\n").unwrap();
    let o = accuracy(&["sweep", "--quiet", "--resume", out2.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("SHA-256 changed"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn stats_prints_table_one() {
    let o = accuracy(&[
        "stats",
        &data("ape_bird_families.nwk"),
        &data("biopython_bats.nex"),
        &data("HB_494_bus.mtx.gz"),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let row = |name: &str| -> Vec<String> {
        out.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}: {out}"))
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    // file, format, vertices, leaves (counts from the data's own README).
    assert_eq!(row("ape_bird_families.nwk")[1..4], ["newick", "272", "137"]);
    assert_eq!(row("biopython_bats.nex")[1..4], ["nexus", "1315", "658"]);
    assert_eq!(row("HB_494_bus.mtx.gz")[1..3], ["mtx", "494"]);
    // mean branching = vertices / levels.
    let r = row("HB_494_bus.mtx.gz");
    let (n, levels, mean): (f64, f64, f64) = (
        r[2].parse().unwrap(),
        r[5].parse().unwrap(),
        r[6].parse().unwrap(),
    );
    assert!((n / levels - mean).abs() <= 0.05, "{r:?}");
}

/// Generated weights that a tree file cannot carry: the error names the file.
#[test]
fn gensum_on_a_one_vertex_tree_file_names_it() {
    let dir = scratch("one");
    let t = dir.join("one.nwk");
    std::fs::write(&t, "a:1;\n").unwrap();
    let t = t.to_str().unwrap();
    let want =
        format!("error: {t}: gensum weights: cannot generate a sum of 1 values (need at least 2)");
    let out = dir.join("sweep");
    for args in [
        vec!["run", "--tree", t, "--weights", "gensum"],
        vec![
            "score",
            "--tree",
            t,
            "--weights",
            "gensum",
            "--results",
            "R.csv",
        ],
        vec![
            "sweep",
            "--tree",
            t,
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
    ] {
        let o = accuracy(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        let e = text(&o.stderr);
        assert!(e.lines().any(|l| l == want), "{args:?}: {e}");
    }
}
