//! From a program to the command line and back: a tree, its weights and a kernel's results
//! written with the library's writers (the Python package's `Tree.save`, `write_weights`,
//! `write_results`) are what `accuracy score` reads, and its `--json` is the library's own
//! score document; `--weights gensum --cond C --seed S` draws `gensum(n, C, S)` bit for bit.

mod common;
use common::{accuracy, scratch, text};
use serde_json::Value;
use treefix_accuracy::score::{ScoreOptions, json};
use treefix_accuracy::{Algorithm, Cpu, Op, Topology};

/// The document without what names the inputs (the CLI names files, the library arrays).
fn comparable(mut v: Value) -> Value {
    for k in ["tree", "results", "precision"] {
        v.as_object_mut().unwrap().remove(k);
    }
    v
}

#[test]
fn written_files_score_as_the_library_scores() {
    let dir = scratch("api-files");
    let t =
        treefix_accuracy::generate_tree(&"random-recursive".parse::<Topology>().unwrap(), 700, 3)
            .unwrap();
    let (cond, seed) = (1e7, 11);
    let g = treefix_accuracy::gensum(t.len(), cond, seed).unwrap();
    let r = treefix_accuracy::rootfix(&t, &g.weights, Algorithm::VECTORIAL, &Cpu).unwrap();
    let l = treefix_accuracy::leaffix(&t, &g.weights, Algorithm::PARALLEL, &Cpu).unwrap();
    let results = [(Op::Rootfix, &r[..]), (Op::Leaffix, &l[..])];
    let options = ScoreOptions {
        algorithms: vec![Algorithm::VECTORIAL],
        ..ScoreOptions::default()
    };
    // A parent-array file labels each vertex with its id.
    let label = |v: usize| Some(v.to_string());
    let mine = treefix_accuracy::score(&t, &g.weights, &results, &options, &label).unwrap();
    let want = comparable(
        serde_json::from_str(&json::to_json(&json::document(
            &mine,
            "".into(),
            "".into(),
            None,
        )))
        .unwrap(),
    );

    let (tree, weights) = (dir.join("t.txt"), dir.join("w.txt"));
    treefix_accuracy::write_tree(&tree, &t, None).unwrap();
    treefix_accuracy::write_weights(&weights, &g.weights).unwrap();
    let csv = dir.join("r.csv");
    treefix_accuracy::write_results(&csv, &results).unwrap();
    let (rn, ln) = (dir.join("r.npy"), dir.join("l.npy"));
    treefix_accuracy::write_results(&rn, &results[..1]).unwrap();
    treefix_accuracy::write_results(&ln, &results[1..]).unwrap();
    assert!(treefix_accuracy::write_results(&dir.join("both.npy"), &results).is_err());
    let (t_, w_) = (tree.to_str().unwrap(), weights.to_str().unwrap());
    let rootfix = format!("rootfix={}", rn.display());
    let leaffix = format!("leaffix={}", ln.display());
    let cond_s = cond.to_string();
    let seed_s = seed.to_string();
    for weights_args in [
        vec!["--weights-file", w_],
        vec!["--weights", "gensum", "--cond", &cond_s, "--seed", &seed_s],
    ] {
        for results_args in [
            vec!["--results", csv.to_str().unwrap()],
            vec!["--results", &rootfix, "--results", &leaffix],
        ] {
            let json = dir.join("s.json");
            let mut args = vec!["score", "--tree", t_, "--algos", "vectorial"];
            args.extend(&weights_args);
            args.extend(&results_args);
            args.extend(["--json", json.to_str().unwrap()]);
            let o = accuracy(&args);
            assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
            let got: Value =
                serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            assert_eq!(comparable(got), want, "{args:?}");
        }
    }
    // The weights on the tree file's lines are its own weights, bit for bit.
    let with = dir.join("tw.txt");
    treefix_accuracy::write_tree(&with, &t, Some(&g.weights)).unwrap();
    let file = treefix_accuracy::read_tree(&with).unwrap();
    assert_eq!(file.tree.parents(), t.parents());
    let own: Vec<u32> = file
        .own_weights()
        .unwrap()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    let drawn: Vec<u32> = g.weights.iter().map(|x| x.to_bits()).collect();
    assert_eq!(own, drawn);
}

#[test]
fn edge_lists_make_the_same_tree_as_parents() {
    let t =
        treefix_accuracy::generate_tree(&"prufer".parse::<Topology>().unwrap(), 300, 5).unwrap();
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    for (v, &p) in t.parents().iter().enumerate() {
        if p != generators::NO_PARENT {
            src.push(i64::from(p));
            dst.push(v as i64);
        }
    }
    let directed = treefix_accuracy::tree_from_edges(&src, &dst, None).unwrap();
    assert_eq!(directed.parents(), t.parents());
    // Undirected, reversed, hung from the same root.
    let root = Some(i64::from(t.root()));
    let undirected = treefix_accuracy::tree_from_edges(&dst, &src, root).unwrap();
    assert_eq!(undirected.parents(), t.parents());
    let e = treefix_accuracy::tree_from_edges(&[0, 1], &[1, 0], None).unwrap_err();
    assert!(e.to_string().contains("cycle"), "{e}");
    let e = treefix_accuracy::tree_from_edges(&[0, 1], &[1, 0], Some(0)).unwrap_err();
    assert!(e.to_string().contains("not reached"), "{e}");
}
