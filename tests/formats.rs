//! `run --precision`: every algorithm's twin in a storage × accumulation pair, measured in
//! that format; bad pairs and f32-only outputs are one-line errors.

mod common;
use common::{accuracy, text};

/// The rows of `run`'s table: (op, algorithm, max bits, max ulps).
fn rows(stdout: &str) -> Vec<(String, String, f64, f64)> {
    stdout
        .lines()
        .filter(|l| l.starts_with("rootfix") || l.starts_with("leaffix"))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let num = |s: &str| {
                if s == "inf" {
                    f64::INFINITY
                } else {
                    s.parse().unwrap()
                }
            };
            (f[0].into(), f[1].into(), num(f[5]), num(f[6]))
        })
        .collect()
}

#[test]
fn every_algorithm_runs_in_bf16_with_f32_accumulation() {
    let o = accuracy(&[
        "run",
        "--topology",
        "random-recursive",
        "--nodes",
        "5000",
        "--cond",
        "1e2",
        "--precision",
        "bf16",
        "--accumulate",
        "f32",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("in bf16 with f32 accumulation"), "{out}");
    let mixed = rows(&out);
    // Every algorithm, both ops.
    assert_eq!(
        mixed.len(),
        2 * treefix_accuracy::Algorithm::ALL.len(),
        "{out}"
    );
    for (op, algo, bits, ulps) in &mixed {
        // (A scan's leaffix subtracts prefixes: it may lose more than all 8 bits.)
        assert!(
            bits.is_finite() && *ulps < 1e6,
            "{op} {algo}: {bits} bits, {ulps} ulps"
        );
        if algo == "vectorial-exact" {
            assert_eq!(
                (*bits, *ulps),
                (0.0, 0.0),
                "{op}: correctly rounded in bf16"
            );
        }
    }
    // Adding in bf16 itself loses more than adding in f32 and rounding once.
    let o = accuracy(&[
        "run",
        "--topology",
        "random-recursive",
        "--nodes",
        "5000",
        "--cond",
        "1e2",
        "--precision",
        "bf16",
        "--algos",
        "sequential",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let narrow = rows(&text(&o.stdout));
    let mixed_seq: Vec<_> = mixed.iter().filter(|r| r.1 == "sequential").collect();
    for (n, m) in narrow.iter().zip(mixed_seq) {
        assert!(
            n.3 > m.3,
            "{}: bf16 additions {} ulps, f32 ones {}",
            n.0,
            n.3,
            m.3
        );
    }
    assert!(!text(&o.stdout).contains("not run"));
}

#[test]
fn pairs_that_make_no_sense_and_f32_only_outputs_are_refused() {
    for (args, why) in [
        (
            vec!["--precision", "f32", "--accumulate", "f16"],
            "cannot be added in f16",
        ),
        (
            vec!["--precision", "f16", "--accumulate", "bf16"],
            "cannot be added in bf16",
        ),
        (vec!["--precision", "f16", "--json", "-"], "f32 runs only"),
        (vec!["--precision", "f17"], "f17"),
        // gensum's weights rounded to bf16's 8 bits cannot keep a κ of 1e8.
        (
            vec!["--precision", "bf16", "--cond", "1e8"],
            "bf16 weights reach κ",
        ),
    ] {
        let mut all = vec!["run", "--topology", "chain", "--nodes", "100"];
        all.extend(args.iter().copied());
        let o = accuracy(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = text(&o.stderr);
        assert!(e.contains(why), "{args:?}: {e}");
    }
}

/// `run --precision f64`: the algorithms whose orders read f64 weights, in f64 on the CPU,
/// out of 53 bits, on weights drawn in f64; vectorial-exact loses nothing, and the paper's
/// chains still cost the sequential order about the bits κ names. `score --precision f64`
/// says which weights it takes.
#[test]
fn f64_runs_on_the_cpu_out_of_53_bits() {
    let o = accuracy(&[
        "run",
        "--topology",
        "chain",
        "--nodes",
        "4000",
        "--cond",
        "1e10",
        "--precision",
        "f64",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("in f64 achieved κ=1e10"), "{out}");
    let rows = rows(&out);
    let runs: Vec<&str> = treefix_accuracy::Algorithm::ALL
        .iter()
        .filter(|a| a.runs_in_f64())
        .map(|a| a.name())
        .collect();
    assert_eq!(rows.len(), 2 * runs.len(), "{out}");
    for (op, algo, bits, ulps) in &rows {
        assert!(runs.contains(&algo.as_str()));
        if algo == "vectorial-exact" {
            assert_eq!((*bits, *ulps), (0.0, 0.0), "{op}");
        } else if algo == "sequential" {
            // κ = 1e10 is 33 bits: the chain's prefixes lose about that many of 53.
            assert!((20.0..=53.0).contains(bits), "{op} sequential: {bits} bits");
        }
    }
    assert!(
        out.contains("not run: vectorial-compensated (their orders read f32 weights)"),
        "{out}"
    );
    let o = accuracy(&[
        "score",
        "--tree",
        "t.nwk",
        "--precision",
        "f64",
        "--results",
        "r.csv",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("takes weights drawn by a model"),
        "{}",
        text(&o.stderr)
    );
}
