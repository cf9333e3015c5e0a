//! Values where they become weights: a file's own weights checked only when used (subnormals
//! refused or flushed), and weights files saying how their keys matched.

use crate::common::{accuracy, scratch, text};

/// A Matrix Market file with one f32-subnormal value on a tree edge (as SuiteSparse's
/// Grund/bayer10, VDOL/hangGlider_2 and Sandia/adder_dcop_05 have): its shape is usable
/// everywhere; its own weights are refused unless `--subnormal flush`, which reports the count.
#[test]
fn values_are_checked_where_they_are_weights() {
    let dir = scratch("subnormal");
    let g = dir.join("g.mtx");
    std::fs::write(
        &g,
        "%%MatrixMarket matrix coordinate real general\n4 4 3\n2 1 1.5\n3 2 1e-40\n4 2 2\n",
    )
    .unwrap();
    let g = g.to_str().unwrap();
    let o = accuracy(&["stats", g]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("own"), "{}", text(&o.stdout));
    let o = accuracy(&[
        "run",
        "--tree",
        g,
        "--weights",
        "ones",
        "--algos",
        "parallel",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The file's own weights: the value is refused, with the way through.
    let o = accuracy(&[
        "run",
        "--tree",
        g,
        "--weights",
        "file",
        "--algos",
        "parallel",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with(&format!(
            "error: {g}:4:5: value '1e-40' is nonzero but below"
        )),
        "{e}"
    );
    assert!(
        e.trim_end()
            .ends_with("; --subnormal flush reads such weights as zero"),
        "{e}"
    );
    let flush = [
        "run",
        "--tree",
        g,
        "--weights",
        "file",
        "--subnormal",
        "flush",
        "--algos",
        "parallel",
    ];
    let o = accuracy(&flush);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!(
            "{g}: 1 subnormal weight(s) flushed to zero (--subnormal flush)"
        )),
        "{}",
        text(&o.stderr)
    );
    assert!(
        text(&o.stdout).contains(" n=4 weights=file subnormal-flushed=1 "),
        "{}",
        text(&o.stdout)
    );
    // A sweep records the mode, so that its resume reads the file the same way.
    let out = dir.join("sweep");
    let o = accuracy(&[
        "sweep",
        "--tree",
        g,
        "--weights",
        "file",
        "--subnormal",
        "flush",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = accuracy(&["sweep", "--quiet", "--resume", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// A weights file: how its keys were matched on stderr, its name in `run`'s header, and a key
/// that reads both as a label and as another vertex's id refused.
#[test]
fn weights_files_say_how_keys_matched() {
    let dir = scratch("keys");
    // Preorder ids: 0 = root "7", 1 = internal "1", 2 = x, 3 = y, 4 = leaf "2".
    let t = dir.join("t.nwk");
    std::fs::write(&t, "((x:1,y:2)1:1,2:1)7;\n").unwrap();
    let w = dir.join("counts.tsv");
    std::fs::write(&w, "x 3\ny 4\n0 1\n").unwrap();
    let (t, w) = (t.to_str().unwrap(), w.to_str().unwrap());
    let o = accuracy(&[
        "run",
        "--tree",
        t,
        "--weights-file",
        w,
        "--algos",
        "parallel",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!(
            "{w}: 2 key(s) matched by label, 1 by vertex id (preorder of the tree file)"
        )),
        "{}",
        text(&o.stderr)
    );
    assert!(
        text(&o.stdout).contains(" n=5 weights=file:counts.tsv "),
        "{}",
        text(&o.stdout)
    );
    let bad = dir.join("bad.tsv");
    std::fs::write(&bad, "x 3\n2 4\n").unwrap();
    let o = accuracy(&["run", "--tree", t, "--weights-file", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr).trim_end(),
        format!(
            "error: {}:2:1: key '2' is ambiguous: the label of vertex 4, and the id of vertex 2 \
             (0..n-1 in preorder of the file)",
            bad.display()
        )
    );
}
