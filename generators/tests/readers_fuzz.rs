//! Property tests of the readers: valid files round-trip (same parent structure, same weight
//! bits, same labels); near-valid files (valid ones with random mutations) never panic and
//! give either a consistent tree or a one-line error. Seeded ChaCha runners with fixed case
//! counts: reproducible in CI. The long-run driver is `examples/fuzz_readers.rs`.

mod common;

use common::*;
use generators::Tree;
use generators::io::{
    Format, Label, Labels, ReadError, ReadOptions, Reason, TreeFile, TreeStats, read_tree_bytes,
    read_weights_bytes,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::Path;

fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 1000,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

/// Finite normal or zero f32 of both signs: the values the readers accept.
fn weight() -> impl Strategy<Value = f32> {
    use proptest::num::f32::*;
    POSITIVE | NEGATIVE | NORMAL | ZERO
}

const ALPHABET: &[char] = &[
    'a', 'B', 'z', '_', ' ', '\'', '(', ')', ',', ':', ';', '[', ']', 'é', '1', '.', '-',
];

fn label() -> impl Strategy<Value = String> {
    prop::collection::vec(0..ALPHABET.len(), 0..6)
        .prop_map(|ix| ix.into_iter().map(|i| ALPHABET[i]).collect())
}

/// A random tree (parent of v uniform-ish in 0..v), 1..max vertices.
fn tree(max: usize) -> impl Strategy<Value = Tree> {
    prop::collection::vec(any::<u32>(), 0..max).prop_map(|c| tree_from_choices(&c))
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<u32>().prop_map(|a| a as usize);
    prop_oneof![
        (at.clone(), any::<u8>()).prop_map(|(at, bit)| Mutation::FlipBit { at, bit }),
        (at.clone(), any::<u8>()).prop_map(|(at, byte)| Mutation::SetByte { at, byte }),
        at.clone().prop_map(|at| Mutation::Truncate { at }),
        (at.clone(), 1..16usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (at.clone(), any::<u16>()).prop_map(|(at, t)| Mutation::InsertToken {
            at,
            token: t as usize
        }),
        (at.clone(), any::<u16>()).prop_map(|(at, t)| Mutation::InsertToken {
            at,
            token: t as usize
        }),
        (at.clone(), any::<u16>(), 0..2048usize).prop_map(|(at, t, times)| {
            Mutation::RepeatToken {
                at,
                token: t as usize,
                times,
            }
        }),
        at.clone().prop_map(|line| Mutation::DuplicateLine { line }),
        at.clone().prop_map(|line| Mutation::DeleteLine { line }),
        (at.clone(), at).prop_map(|(a, b)| Mutation::SwapLines { a, b }),
    ]
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(mutation(), 1..4)
}

/// What every successful read must satisfy, and every error: one line naming the file.
fn check(path: &Path, r: &Result<TreeFile, ReadError>) -> Result<(), TestCaseError> {
    match r {
        Ok(t) => {
            let n = t.tree.len();
            prop_assert!(n >= 1);
            if let Some(own) = &t.weights {
                prop_assert_eq!(own.len(), n);
                // Valid weights, or one line naming the file and the value.
                match own.get() {
                    Ok(w) => prop_assert!(
                        w.iter()
                            .all(|x| x.is_finite() && (*x == 0.0 || x.is_normal()))
                    ),
                    Err(e) => {
                        let msg = e.to_string();
                        prop_assert!(!msg.contains('\n'), "multi-line message: {msg}");
                        prop_assert!(msg.starts_with(&path.display().to_string()));
                    }
                }
            }
            match &t.labels {
                Labels::Names { spans, text } => {
                    prop_assert_eq!(spans.len(), n);
                    prop_assert!(
                        spans
                            .iter()
                            .all(|&(a, b)| a <= b && b as usize <= text.len())
                    );
                }
                Labels::FileIds { len, .. } => prop_assert!(*len <= n),
                Labels::Listed(ids) => prop_assert_eq!(ids.len(), n),
                Labels::None => {}
            }
            let s = TreeStats::of(&t.tree);
            prop_assert!(s.leaves >= 1 && s.levels == s.height as usize + 1);
        }
        Err(e) => {
            let msg = e.to_string();
            prop_assert!(!msg.contains('\n'), "multi-line message: {msg}");
            prop_assert!(msg.starts_with(&path.display().to_string()));
        }
    }
    Ok(())
}

fn read(name: &str, bytes: &[u8], opts: &ReadOptions) -> Result<TreeFile, ReadError> {
    read_tree_bytes(Path::new(name), bytes, opts)
}

fn corpus(files: &[&str]) -> Vec<Vec<u8>> {
    files
        .iter()
        .map(|f| std::fs::read(data_dir().join(f)).unwrap())
        .collect()
}

/// Position of every vertex in the preorder (= the id a Newick/NEXUS reader gives it).
fn preorder_ids(t: &Tree) -> Vec<u32> {
    let mut pos = vec![0u32; t.len()];
    for (i, &v) in t.preorder().iter().enumerate() {
        pos[v as usize] = i as u32;
    }
    pos
}

fn bits(w: &[f32]) -> Vec<u32> {
    w.iter().map(|x| x.to_bits()).collect()
}

// ------------------------------------------------------------------ round trips

#[test]
fn newick_round_trip() {
    let strat = (
        tree(120),
        prop::option::of(prop::collection::vec(weight(), 120)),
        prop::option::of(prop::collection::vec(label(), 120)),
    );
    runner(300, 1)
        .run(&strat, |(t, w, l)| {
            let n = t.len();
            let w = w.map(|w| w[..n].to_vec());
            let l = l.map(|l| l[..n].to_vec());
            let s = write_newick(&t, w.as_deref(), l.as_deref());
            let r = read("t.nwk", s.as_bytes(), &ReadOptions::default());
            if n == 1 && w.is_none() && l.as_ref().is_none_or(|l| l[0].is_empty()) {
                // Nothing to write: ";" is no tree.
                prop_assert!(matches!(r.unwrap_err().reason(), Some(Reason::EmptyTree)));
                return Ok(());
            }
            let r = r.map_err(|e| TestCaseError::fail(format!("{e}\n{s}")))?;
            prop_assert_eq!(r.format, Format::Newick);
            let pos = preorder_ids(&t);
            let got = r.tree.parents();
            for v in 0..n {
                let want = t
                    .parent(v as u32)
                    .map_or(generators::NO_PARENT, |p| pos[p as usize]);
                prop_assert_eq!(got[pos[v] as usize], want);
            }
            match &w {
                Some(w) => {
                    let read = r.own_weights().unwrap().unwrap();
                    let want: Vec<f32> = (0..n).map(|i| w[t.preorder()[i] as usize]).collect();
                    prop_assert_eq!(bits(read), bits(&want));
                }
                None => prop_assert!(r.weights.is_none()),
            }
            for v in 0..n {
                let want = l.as_ref().map(|l| l[v].as_str()).filter(|s| !s.is_empty());
                let got = match r.labels.get(pos[v]) {
                    Some(Label::Name(s)) => Some(s),
                    Some(Label::FileId(_)) => panic!("Newick labels are names"),
                    None => None,
                };
                prop_assert_eq!(got, want);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn nexus_round_trip_with_translate() {
    let strat = (
        tree(80),
        prop::collection::vec(weight(), 80),
        prop::collection::vec(label(), 80),
        0..3usize,
    );
    runner(200, 2)
        .run(&strat, |(t, w, l, which)| {
            let n = t.len();
            // Leaves are written as TRANSLATE keys 1, 2, ...; internal labels stay.
            let mut translate = Vec::new();
            let mut written = l[..n].to_vec();
            for v in 0..n as u32 {
                if t.children(v).is_empty() && !l[v as usize].is_empty() {
                    let key = (translate.len() + 1).to_string();
                    translate.push((key.clone(), l[v as usize].clone()));
                    written[v as usize] = key;
                }
            }
            let one = write_newick(&t, Some(&w[..n]), Some(&written));
            let other = "(x:1,(y:2,z:3):4);\n".to_string();
            let mut trees = vec![other.clone(), other.clone(), other];
            trees[which] = one;
            let s = write_nexus(&trees, &translate);
            let opts = ReadOptions {
                tree_index: which,
                ..Default::default()
            };
            let r = read("t.nex", s.as_bytes(), &opts)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{s}")))?;
            prop_assert_eq!(r.trees_in_file, 3);
            let pos = preorder_ids(&t);
            for v in 0..n {
                let want = t
                    .parent(v as u32)
                    .map_or(generators::NO_PARENT, |p| pos[p as usize]);
                prop_assert_eq!(r.tree.parents()[pos[v] as usize], want);
                prop_assert_eq!(
                    r.own_weights().unwrap().unwrap()[pos[v] as usize].to_bits(),
                    w[v].to_bits()
                );
                let want = Some(l[v].as_str()).filter(|s| !s.is_empty());
                let got = r.labels.get(pos[v]).map(|x| x.to_string());
                prop_assert_eq!(got.as_deref(), want);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn parent_array_round_trip() {
    let strat = tree(150).prop_flat_map(|t| {
        let n = t.len();
        (
            Just(t),
            Just((0..n as u32).collect::<Vec<u32>>()).prop_shuffle(),
            prop::option::of(prop::collection::vec(weight(), n)),
            0..2u64,
            any::<bool>(),
        )
    });
    runner(300, 3)
        .run(&strat, |(t, order, w, base, comma)| {
            let s = write_parents(&t, w.as_deref(), base, comma, &order);
            let r = read("t.txt", s.as_bytes(), &ReadOptions::default())
                .map_err(|e| TestCaseError::fail(format!("{e}\n{s}")))?;
            prop_assert_eq!(r.format, Format::ParentArray);
            prop_assert_eq!(r.tree.parents(), t.parents());
            prop_assert_eq!(r.own_weights().unwrap().map(bits), w.as_deref().map(bits));
            prop_assert_eq!(r.labels.get(0), Some(Label::FileId(base)));
            Ok(())
        })
        .unwrap();
}

#[test]
fn matrix_market_round_trip() {
    let strat = tree(150).prop_flat_map(|t| {
        let n = t.len();
        (
            Just(t),
            Just((0..n as u32).collect::<Vec<u32>>()).prop_shuffle(),
            prop::option::of(prop::collection::vec(weight(), n)),
        )
    });
    runner(300, 4)
        .run(&strat, |(t, order, w)| {
            let s = write_mtx(&t, w.as_deref(), &order);
            let gz = gzip(s.as_bytes());
            // Gzip detected by content, whatever the name.
            let r = read("graph.mtx", &gz, &ReadOptions::default())
                .map_err(|e| TestCaseError::fail(format!("{e}\n{s}")))?;
            prop_assert!(r.gzipped);
            prop_assert_eq!(r.format, Format::MatrixMarket);
            // BFS from vertex 1 (the root) of a tree's graph is the tree itself.
            prop_assert_eq!(r.tree.parents(), t.parents());
            prop_assert_eq!(r.own_weights().unwrap().map(bits), w.as_deref().map(bits));
            Ok(())
        })
        .unwrap();
}

#[test]
fn weights_file_round_trip() {
    let strat = tree(100).prop_flat_map(|t| {
        let n = t.len();
        (
            Just(t),
            prop::collection::vec(prop::option::of(weight()), n),
            any::<bool>(),
        )
    });
    runner(200, 5)
        .run(&strat, |(t, w, by_label)| {
            // Unique labels "v<i>" so that every vertex can be named.
            let labels: Vec<String> = (0..t.len()).map(|v| format!("v{v}")).collect();
            let nwk = write_newick(&t, None, Some(&labels));
            let tf = read("t.nwk", nwk.as_bytes(), &ReadOptions::default()).unwrap();
            let pos = preorder_ids(&t);
            let mut file = String::from("# key weight\n");
            for (v, x) in w.iter().enumerate() {
                if let Some(x) = x {
                    let key = if by_label {
                        labels[v].clone()
                    } else {
                        pos[v].to_string()
                    };
                    file.push_str(&format!("{key} {}\n", num(*x, v)));
                }
            }
            let got = read_weights_bytes(Path::new("w.txt"), file.as_bytes(), &tf)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{file}")))?
                .weights;
            for v in 0..t.len() {
                prop_assert_eq!(
                    got[pos[v] as usize].to_bits(),
                    w[v].unwrap_or(0.0).to_bits()
                );
            }
            Ok(())
        })
        .unwrap();
}

// ------------------------------------------------------------------ mutations

/// Runs `cases` mutated inputs; returns how many read as trees and how many were errors.
fn fuzz(target: Target, seeds: &[Vec<u8>], name: &str, cases: u32, seed: u8) -> (u32, u32) {
    let strat = (0..seeds.len(), mutations());
    let ok = std::cell::Cell::new(0);
    let err = std::cell::Cell::new(0);
    runner(cases, seed)
        .run(&strat, |(i, muts)| {
            let input = mutate(&seeds[i], target, &muts);
            let r = read(name, &input, &ReadOptions::default());
            let c = if r.is_ok() { &ok } else { &err };
            c.set(c.get() + 1);
            check(Path::new(name), &r)
        })
        .unwrap();
    eprintln!(
        "{}: {} read, {} refused",
        target.name(),
        ok.get(),
        err.get()
    );
    (ok.get(), err.get())
}

fn generated(f: impl Fn(&Tree, &[f32], &[u32]) -> String) -> Vec<Vec<u8>> {
    let mut rng = generators::rng(7);
    use rand::RngExt;
    (0..4)
        .map(|k| {
            let n = [1, 2, 17, 60][k];
            let choices: Vec<u32> = (1..n).map(|_| rng.random()).collect();
            let t = tree_from_choices(&choices);
            let w: Vec<f32> = (0..n).map(|_| rng.random_range(-2.0f32..2.0)).collect();
            let order: Vec<u32> = (0..n as u32).rev().collect();
            f(&t, &w, &order).into_bytes()
        })
        .collect()
}

#[test]
fn fuzz_newick() {
    let mut seeds = corpus(&["ape_bird_families.nwk", "unifrac_crawford.tre"]);
    seeds.extend(generated(|t, w, _| {
        let l: Vec<String> = (0..t.len()).map(|v| format!("n{v}")).collect();
        write_newick(t, Some(w), Some(&l))
    }));
    seeds.push(b"(a,(b,c)d:1[x])'e f':2;\n((x));\n".to_vec());
    let (ok, err) = fuzz(Target::Newick, &seeds, "f.nwk", 18000, 11);
    assert!(
        ok > 0 && err > 0,
        "mutations should give both valid and invalid files"
    );
}

#[test]
fn fuzz_nexus() {
    let mut seeds = corpus(&["biopython_bats.nex"]);
    seeds.extend(generated(|t, w, _| {
        write_nexus(
            &[write_newick(t, Some(w), None)],
            &[("1".into(), "a b".into())],
        )
    }));
    let (ok, err) = fuzz(Target::Nexus, &seeds, "f.nex", 8000, 12);
    assert!(
        ok > 0 && err > 0,
        "mutations should give both valid and invalid files"
    );
}

#[test]
fn fuzz_matrix_market() {
    let raw = corpus(&["HB_494_bus.mtx.gz"]);
    let mut seeds: Vec<Vec<u8>> = raw
        .iter()
        .map(|g| {
            let mut out = Vec::new();
            use std::io::Read;
            flate2::read::GzDecoder::new(&g[..])
                .read_to_end(&mut out)
                .unwrap();
            out
        })
        .collect();
    seeds.extend(generated(|t, w, o| write_mtx(t, Some(w), o)));
    seeds.extend(generated(|t, _, o| write_mtx(t, None, o)));
    let (ok, err) = fuzz(Target::Mtx, &seeds, "f.mtx", 12000, 13);
    assert!(
        ok > 0 && err > 0,
        "mutations should give both valid and invalid files"
    );
}

#[test]
fn fuzz_parent_array() {
    let mut seeds = generated(|t, w, o| write_parents(t, Some(w), 0, false, o));
    seeds.extend(generated(|t, _, o| write_parents(t, None, 1, true, o)));
    let (ok, err) = fuzz(Target::Parents, &seeds, "f.txt", 18000, 14);
    assert!(
        ok > 0 && err > 0,
        "mutations should give both valid and invalid files"
    );
}

#[test]
fn fuzz_gzip_layer() {
    let mut seeds = corpus(&["HB_494_bus.mtx.gz"]);
    seeds.push(gzip(
        &std::fs::read(data_dir().join("ape_bird_families.nwk")).unwrap(),
    ));
    let (ok, err) = fuzz(Target::Gzip, &seeds, "f.gz", 8000, 15);
    assert!(
        ok > 0 && err > 0,
        "mutations should give both valid and invalid files"
    );
}

#[test]
fn fuzz_weights_file() {
    let tf_nwk = read(
        "t.nwk",
        &std::fs::read(data_dir().join("ape_bird_families.nwk")).unwrap(),
        &ReadOptions::default(),
    )
    .unwrap();
    let tf_parents = read("t.txt", b"1 -1\n2 1\n3 1\n4 3\n", &ReadOptions::default()).unwrap();
    let seeds: Vec<Vec<u8>> = vec![
        b"Struthionidae 1.5\nRheidae,2\n# c\n7 -0.25\n".to_vec(),
        b"1 0.5\n2,1e-3\n4 -2\n".to_vec(),
    ];
    let strat = (0..2usize, mutations());
    runner(15000, 16)
        .run(&strat, |(i, muts)| {
            let input = mutate(&seeds[i], Target::Weights, &muts);
            let tf = if i == 0 { &tf_nwk } else { &tf_parents };
            match read_weights_bytes(Path::new("w.txt"), &input, tf) {
                Ok(w) => {
                    let w = w.weights;
                    prop_assert_eq!(w.len(), tf.tree.len());
                    prop_assert!(w.iter().all(|x| *x == 0.0 || x.is_normal()));
                }
                Err(e) => prop_assert!(!e.to_string().contains('\n')),
            }
            Ok(())
        })
        .unwrap();
}

/// Every strict prefix of a one-member gzip file is an error, never short data.
#[test]
fn truncated_gzip_is_always_an_error() {
    let raw = std::fs::read(data_dir().join("HB_494_bus.mtx.gz")).unwrap();
    assert!(read("x.mtx.gz", &raw, &ReadOptions::default()).is_ok());
    for len in 2..raw.len() {
        let r = read("x.mtx.gz", &raw[..len], &ReadOptions::default());
        let e = r
            .err()
            .unwrap_or_else(|| panic!("prefix of {len} bytes read as a tree"));
        let msg = e.to_string();
        assert!(matches!(e, ReadError::AtByte { .. }), "{len}: {msg}");
        assert!(!msg.contains('\n'));
    }
}

/// Regression (found by `fuzz_readers --reader nexus`): a stray quote made the "unexpected"
/// token span lines, and the message with it.
#[test]
fn regression_quoted_token_spanning_lines_stays_one_line() {
    let e = read("f.nex", b"#NEXUS'\n#NEXUS'\n", &ReadOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        r"f.nex:1:7: unexpected '\n#NEXUS'; expected BEGIN"
    );
}
