//! Every bad input a one-line error with exit code 2, and what lies under the formats (a
//! byte-order mark, gzip with trailing bytes, absurd counts, sparse ids) named for what it is.

use super::data;
use crate::common::{accuracy, scratch, text};

/// Each bad input: exit code 2, one line naming the file (and line where there is one), no
/// panic, and no results.csv that could be mistaken for a finished sweep.
#[test]
fn bad_inputs_are_one_line_errors() {
    let dir = scratch("bad");
    let cases: &[(&str, &[u8], &str)] = &[
        ("unbalanced.nwk", b"((a:1,b:2):3;\n", "bad.nwk"),
        ("after.nwk", b"(a:1,b:2);xyz\n", ""),
        ("empty.nwk", b"", ""),
        ("nan.nwk", b"(a:NaN,b:2);\n", ""),
        ("inf.nwk", b"(a:1e39,b:2);\n", ""),
        ("word.nwk", b"(a:one,b:2);\n", ""),
        ("dup.txt", b"0 -1\n1 0\n1 0\n", ""),
        ("missing.txt", b"0 -1\n1 0\n3 1\n", ""),
        ("cycle.txt", b"0 -1\n1 2\n2 1\n", ""),
        ("roots.txt", b"0 -1\n1 -1\n", ""),
        ("self.txt", b"0 -1\n1 1\n", ""),
        ("range.txt", b"0 -1\n1 9\n", ""),
        (
            "header.mtx",
            b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
            "",
        ),
        ("noheader.mtx", b"2 2 1\n1 2 1.0\n", ""),
        (
            "index.mtx",
            b"%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 9 1.0\n",
            "",
        ),
    ];
    for (name, bytes, _) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = dir.join(format!("{name}.out"));
        // A number that is no valid weight is an error where it becomes one: with the file's
        // own weights (the tree itself reads, see `values_are_checked_where_they_are_weights`).
        let weights = if matches!(*name, "nan.nwk" | "inf.nwk") {
            "file"
        } else {
            "ones"
        };
        for args in [
            vec![
                "run",
                "--tree",
                path.to_str().unwrap(),
                "--weights",
                weights,
            ],
            vec![
                "sweep",
                "--tree",
                path.to_str().unwrap(),
                "--weights",
                weights,
                "--quiet",
                "--out",
                out.to_str().unwrap(),
            ],
        ] {
            let o = accuracy(&args);
            let e = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{name} {}: {e}", args[0]);
            assert!(!e.contains("panicked"), "{name}: {e}");
            let lines: Vec<&str> = e.lines().filter(|l| !l.starts_with("backend")).collect();
            assert_eq!(lines.len(), 1, "{name}: {e}");
            assert!(
                lines[0].starts_with("error: ") && lines[0].contains(name),
                "{name}: {e}"
            );
            assert!(
                !out.join("results.csv").exists(),
                "{name}: a results.csv was written"
            );
        }
    }
    // A truncated gzip stream: the reason names the byte offset or the truncation.
    let gz = std::fs::read(data("HB_494_bus.mtx.gz")).unwrap();
    let cut = dir.join("cut.mtx.gz");
    std::fs::write(&cut, &gz[..gz.len() / 2]).unwrap();
    let o = accuracy(&["stats", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("cut.mtx.gz"),
        "{}",
        text(&o.stderr)
    );
    // An output directory that cannot be created.
    let blocker = dir.join("file");
    std::fs::write(&blocker, "").unwrap();
    let under = blocker.join("out");
    let o = accuracy(&[
        "sweep",
        "--nodes",
        "10",
        "--points",
        "1",
        "--quiet",
        "--out",
        under.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("cannot write here"),
        "{}",
        text(&o.stderr)
    );
    // File weights without a tree file: refused before anything is written.
    let nothing = dir.join("nothing");
    let o = accuracy(&[
        "sweep",
        "--weights",
        "file",
        "--quiet",
        "--out",
        nothing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(!nothing.exists(), "a sweep directory was created");
    // A results file that does not exist.
    let missing = dir.join("missing.csv");
    let o = accuracy(&[
        "score",
        "--tree",
        &data("ape_bird_families.nwk"),
        "--results",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("missing.csv: cannot read"),
        "{}",
        text(&o.stderr)
    );
}

/// What lies under the formats, through the binary: a byte-order mark is read, gzip with
/// trailing bytes, an absurd entry count and sparse vertex ids name what is really wrong.
#[test]
fn readers_name_what_is_really_wrong() {
    let dir = scratch("wrong");
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    let bom = write(
        "bom.nex",
        b"\xEF\xBB\xBF#NEXUS\nbegin trees; tree t = (a,b); end;\n",
    );
    let o = accuracy(&["stats", &bom]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("nexus"), "{}", text(&o.stdout));
    // A real gzip file with bytes after it (zero padding, as some tools leave).
    let mut gz = std::fs::read(data("HB_494_bus.mtx.gz")).unwrap();
    let at = gz.len();
    gz.extend_from_slice(b"\0\0\0\0");
    let gz = write("bus.mtx.gz", &gz);
    let mtx = write(
        "big.mtx",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1000000000000\n2 1\n3 2\n",
    );
    // Taxonomy-like ids, sorted and sparse: the root 1, then 2 and every multiple of 3.
    let ids: Vec<u64> = [1, 2]
        .into_iter()
        .chain((3..2000).filter(|i| i % 3 == 0))
        .collect();
    let n = ids.len() as u64;
    let lines: String = ids
        .iter()
        .map(|&i| {
            if i == 1 {
                "1 -1\n".into()
            } else {
                format!("{i} 1\n")
            }
        })
        .collect();
    let missing = (1..=n).find(|k| !ids.contains(k)).unwrap();
    // The first line a user must fix, not the last line (the largest id).
    let (line, id) = (1..)
        .zip(&ids)
        .find(|&(_, &i)| i > n)
        .map(|(l, &i)| (l, i))
        .unwrap();
    assert!(line < n);
    let ids = write("taxa.txt", lines.as_bytes());
    for (file, want) in [
        (
            &gz,
            format!(
                "{gz}: byte {at}: 4 trailing bytes after the gzip stream (they do not start \
                 another gzip member)"
            ),
        ),
        (
            &mtx,
            format!(
                "{mtx}:2:1: the size line declares 1000000000000 entries, but only 2 lines \
                 follow it"
            ),
        ),
        (
            &ids,
            format!(
                "{ids}:{line}:1: missing vertex {missing}: ids must run 1..={n}, but this line \
                 has vertex {id}"
            ),
        ),
    ] {
        let o = accuracy(&["stats", file]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        let e = text(&o.stderr);
        assert_eq!(e.lines().next(), Some(format!("error: {want}").as_str()));
    }
}
