//! `accuracy score --precision f64`: results of a kernel that stores and adds f64, on weights
//! a model draws in f64 (Python's `gensum(n, C, S, precision="f64")`), read from CSV with 17
//! digits or from a float64 `.npy`, graded as the library's `score_f64` grades them.

mod common;
use common::{accuracy, scratch, text};

use treefix_accuracy::{Algorithm, Op, ScoreOptions, Topology};

/// A 1-d float64 `.npy` file (numpy's format, version 1.0).
fn npy_f64(values: &[f64]) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({},), }}",
        values.len()
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend(values.iter().flat_map(|x| x.to_le_bytes()));
    out
}

#[test]
fn f64_results_on_model_weights_are_graded_as_the_library_grades_them() {
    let dir = scratch("score-f64");
    let n = 3000;
    let tree = treefix_accuracy::generate_tree(&Topology::RandomRecursive, n, 4).unwrap();
    // The tree as a parent array without weights: the model draws them.
    let t = dir.join("tree.txt");
    let rows: String = (0..n as u32)
        .map(|v| format!("{v} {}\n", tree.parent(v).map_or(-1, |p| p as i64)))
        .collect();
    std::fs::write(&t, rows).unwrap();
    let g = treefix_accuracy::gensum_f64(n, 1e12, 3).unwrap();
    let mine = treefix_accuracy::treefix_f64(&tree, &g.weights, Op::Leaffix, Algorithm::VECTORIAL)
        .unwrap();
    // `vertex,op,result` rows, each value printed by `print`.
    let csv = |name: &str, print: fn(f64) -> String| {
        let rows: String = mine
            .iter()
            .enumerate()
            .map(|(v, &x)| format!("{v},leaffix,{}\n", print(x)))
            .collect();
        std::fs::write(dir.join(name), format!("vertex,op,result\n{rows}")).unwrap();
        dir.join(name).to_str().unwrap().to_string()
    };
    std::fs::write(dir.join("l.npy"), npy_f64(&mine)).unwrap();
    // `score` of leaffix results on the tree with these weights, in f64.
    let t = t.to_str().unwrap();
    let run = |weights: &[&str], results: &str, json: bool| {
        let mut args = vec!["score", "--tree", t];
        args.extend_from_slice(weights);
        args.extend([
            "--precision",
            "f64",
            "--ops",
            "leaffix",
            "--results",
            results,
        ]);
        if json {
            args.extend(["--json", "-"]);
        }
        accuracy(&args)
    };
    let model = ["--weights", "gensum", "--cond", "1e12", "--seed", "3"];
    let json = |o: std::process::Output| {
        assert!(o.status.success(), "{}", text(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let score = |results: &str| json(run(&model, results, true));
    let from_csv = score(&csv("l.csv", |x| format!("{x:e}")));
    let npy = format!("leaffix={}", dir.join("l.npy").display());
    let from_npy = score(&npy);
    assert_eq!(from_csv["ops"], from_npy["ops"]);
    assert_eq!(from_csv["arithmetic"], serde_json::json!("f64"));
    let options = ScoreOptions {
        arithmetic: treefix_accuracy::Arithmetic::same(treefix_accuracy::Precision::F64),
        ..ScoreOptions::default()
    };
    let lib = treefix_accuracy::score_f64(
        &tree,
        &g.weights,
        &[(Op::Leaffix, &mine)],
        &options,
        &|_| None,
    )
    .unwrap();
    let op = &from_csv["ops"][0];
    let l = lib.get(Op::Leaffix).unwrap();
    assert_eq!(op["max_lost_bits"].as_f64().unwrap(), l.max_lost_bits);
    assert_eq!(op["max_ulps"], serde_json::json!(l.max_ulps.unwrap()));
    // The vectorial leaffix subtracts prefixes: it loses bits even in f64.
    assert!(l.max_lost_bits > 10.0, "{}", l.max_lost_bits);
    // Printed with 15 digits (two short of f64's 17), 3000 values are refused as too short.
    let o = run(&model, &csv("s.csv", |x| format!("{x:.14e}")), false);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("an f64 needs 17"),
        "{}",
        text(&o.stderr)
    );
    // The same weights saved as a float64 .npy (numpy's np.save): the same score.
    let w = dir.join("w.npy");
    std::fs::write(&w, npy_f64(&g.weights)).unwrap();
    let from_file = json(run(&["--weights-file", w.to_str().unwrap()], &npy, true));
    assert_eq!(from_file["ops"], from_csv["ops"]);
    // And as a text weights file, `vertex value` lines of 17 digits (most not f32 values),
    // read as f64: the same score. A vertex left out weighs 0: a different one.
    assert!(g.weights.iter().filter(|&&x| x as f32 as f64 != x).count() > n / 2);
    let lines = |skip: usize| -> String {
        (0..n)
            .filter(|&v| v != skip)
            .map(|v| format!("{v} {:.16e}\n", g.weights[v]))
            .collect()
    };
    let txt = dir.join("w.txt");
    std::fs::write(&txt, lines(n)).unwrap();
    let from_text = json(run(&["--weights-file", txt.to_str().unwrap()], &npy, true));
    assert_eq!(from_text["ops"], from_csv["ops"]);
    std::fs::write(&txt, lines(7)).unwrap();
    let missing = json(run(&["--weights-file", txt.to_str().unwrap()], &npy, true));
    assert_ne!(missing["ops"], from_csv["ops"]);
    // Beyond f32's range is an f64 weight like any other; beyond f64's, a one-line error.
    std::fs::write(&txt, "0 1e300\n1 -1e300\n").unwrap();
    let o = run(&["--weights-file", txt.to_str().unwrap()], &npy, false);
    assert!(
        !text(&o.stderr).contains("overflows"),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(&txt, "0 1e300\n1 1e309\n").unwrap();
    let o = run(&["--weights-file", txt.to_str().unwrap()], &npy, false);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("w.txt:2:") && err.contains("overflows f64"),
        "{err}"
    );
    // A tree file's own weights are read as f32: refused in f64, with where f64 weights go.
    let o = run(&[], &npy, false);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("precision=\"f64\""),
        "{}",
        text(&o.stderr)
    );
}
