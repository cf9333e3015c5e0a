//! Long-run mutation fuzzer of the readers (cargo-fuzz needs nightly; this needs nothing).
//!
//! ```sh
//! nice -n 19 cargo run --release -p generators --example fuzz_readers -- \
//!     --reader newick --seconds 600 --seed 1 [--crashes DIR] [--memory-limit BYTES]
//! ```
//!
//! Readers: newick, nexus, mtx, parents, weights, gzip; and two sources without a size:
//! `stdin` (mutated inputs delivered as a pipe does, in pieces of any length with interrupted
//! reads; one in eight repeated forever) and `device` (`/dev/zero`, `/dev/urandom`,
//! `/dev/null`, and a named pipe fed mutated inputs, one in four forever): a source must read
//! as the file of its bytes, and one without end must be refused at the limit
//! ([`streams`]). The corpus is the copied real files
//! of tests/data and generated files (random trees written by the tests' writers); every
//! iteration applies 1–8 random mutations (bit flips, byte sets, truncations, deletions,
//! inserted syntax tokens and hostile numbers, repeated tokens, duplicated/deleted/swapped
//! lines) and reads the result under `catch_unwind`. A panic, an inconsistent result (weights
//! not one per vertex, a non-normal weight, a multi-line message) or a read slower than 2 s
//! is a finding (a slow one confirmed by the best of
//! three more reads): its input is written to DIR (default target/fuzz-findings). Inputs that
//! reach an error kind not seen before join the corpus. The corpus also holds inputs built to
//! exhaust memory (a gzip bomb of `(`, parentheses nested 10^5 deep), and every read gets the
//! memory limit (default 64 MB) the readers must refuse them under; `readers_limits.rs`
//! measures that they keep to it.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "fuzz_readers/streams.rs"]
mod streams;

use common::*;
use generators::io::{ReadOptions, Reason, TreeFile, read_tree_bytes, read_weights_bytes};
use rand::RngExt;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn kind(r: Option<&Reason>) -> String {
    match r {
        None => "Io".into(),
        Some(r) => {
            let d = format!("{r:?}");
            d.split([' ', '(', '{']).next().unwrap_or("").to_string()
        }
    }
}

fn seeds(target: Target, rng: &mut generators::Rng) -> Vec<Vec<u8>> {
    let data = data_dir();
    let file = |f: &str| std::fs::read(data.join(f)).unwrap();
    let gunzip = |g: Vec<u8>| {
        use std::io::Read;
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&g[..])
            .read_to_end(&mut out)
            .unwrap();
        out
    };
    let mut out = Vec::new();
    for n in [1usize, 2, 3, 10, 50, 300] {
        let choices: Vec<u32> = (1..n).map(|_| rng.random()).collect();
        let t = tree_from_choices(&choices);
        let w: Vec<f32> = (0..n).map(|_| rng.random_range(-3.0f32..3.0)).collect();
        let labels: Vec<String> = (0..n).map(|v| format!("v{v}")).collect();
        let order: Vec<u32> = (0..n as u32).collect();
        match target {
            Target::Newick | Target::Gzip => {
                out.push(write_newick(&t, Some(&w), Some(&labels)).into_bytes());
                out.push(write_newick(&t, None, None).into_bytes());
            }
            Target::Nexus => out.push(
                write_nexus(
                    &[write_newick(&t, Some(&w), Some(&labels))],
                    &[("1".into(), "x y".into())],
                )
                .into_bytes(),
            ),
            Target::Mtx => {
                out.push(write_mtx(&t, Some(&w), &order).into_bytes());
                out.push(write_mtx(&t, None, &order).into_bytes());
            }
            Target::Parents => {
                out.push(write_parents(&t, Some(&w), 0, false, &order).into_bytes());
                out.push(write_parents(&t, None, 1, true, &order).into_bytes());
            }
            Target::Weights => {}
        }
    }
    match target {
        Target::Newick => {
            for f in [
                "ape_bird_families.nwk",
                "unifrac_crawford.tre",
                "ete3_diauxic.nw",
            ] {
                out.push(file(f));
            }
        }
        Target::Nexus => out.push(file("biopython_bats.nex")),
        Target::Mtx => {
            out.push(gunzip(file("HB_494_bus.mtx.gz")));
            out.push(gunzip(file("3elt.mtx.gz")));
        }
        Target::Parents => {}
        Target::Weights => {
            out.push(b"Struthionidae 1.5\nRheidae,2\n# c\n7 -0.25\nCasuariidae\t1e-3\n".to_vec());
            out.push(b"1 0.5\n2,1e-3\n4 -2\n3 7\n".to_vec());
        }
        Target::Gzip => {
            let plain = std::mem::take(&mut out);
            out = plain.iter().map(|p| gzip(p)).collect();
            out.push(file("HB_494_bus.mtx.gz"));
            // A bomb: 32 MiB of '(' in about 150 kB.
            out.push(gzip(&vec![b'('; 32 << 20]));
        }
    }
    if target == Target::Newick {
        out.push(vec![b'('; 100_000]);
    }
    out
}

/// A finding's description, or None if the read was fine.
fn audit(r: &Result<TreeFile, generators::ReadError>) -> Option<String> {
    match r {
        Ok(t) => {
            let n = t.tree.len();
            if let Some(own) = &t.weights {
                if own.len() != n {
                    return Some(format!("{} weights for {n} vertices", own.len()));
                }
                match own.get() {
                    Ok(w) => {
                        if let Some(x) = w.iter().find(|x| !(**x == 0.0 || x.is_normal())) {
                            return Some(format!("weight {x} is not normal"));
                        }
                    }
                    Err(e) => {
                        let m = e.to_string();
                        if m.contains('\n') {
                            return Some(format!("multi-line message: {m}"));
                        }
                    }
                }
            }
            None
        }
        Err(e) => {
            let m = e.to_string();
            m.contains('\n').then(|| format!("multi-line message: {m}"))
        }
    }
}

fn main() {
    let mut reader = "newick".to_string();
    let mut seconds = 60.0;
    let mut seed = 1u64;
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/fuzz-findings");
    let mut memory_limit = 64_000_000u64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().expect("missing value");
        match a.as_str() {
            "--reader" => reader = val(),
            "--seconds" => seconds = val().parse().expect("--seconds"),
            "--seed" => seed = val().parse().expect("--seed"),
            "--crashes" => dir = PathBuf::from(val()),
            "--memory-limit" => memory_limit = val().parse().expect("--memory-limit"),
            _ => panic!("unknown argument {a}"),
        }
    }
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(source) = streams::Source::parse(&reader) {
        streams::run(source, seconds, seed, memory_limit, &dir);
        return;
    }
    let target = Target::parse(&reader).unwrap_or_else(|| {
        panic!(
            "unknown reader '{reader}' (newick, nexus, mtx, parents, weights, gzip, stdin, device)"
        )
    });
    let mut rng = generators::rng(seed);
    let mut corpus = seeds(target, &mut rng);
    let name = match target {
        Target::Newick => "f.nwk",
        Target::Nexus => "f.nex",
        Target::Mtx => "f.mtx",
        Target::Parents | Target::Weights => "f.txt",
        Target::Gzip => "f.nwk.gz",
    };
    let opts = ReadOptions {
        memory_limit: Some(memory_limit),
        ..Default::default()
    };
    let trees: Vec<TreeFile> = [
        (
            "t.nwk",
            std::fs::read(data_dir().join("ape_bird_families.nwk")).unwrap(),
        ),
        ("t.txt", b"1 -1\n2 1\n3 1\n4 3\n".to_vec()),
    ]
    .iter()
    .map(|(n, b)| read_tree_bytes(Path::new(n), b, &opts).unwrap())
    .collect();

    // Panics are findings, reported below; keep the default hook quiet.
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let budget = Duration::from_secs_f64(seconds);
    let (mut execs, mut ok, mut findings) = (0u64, 0u64, 0u64);
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    let mut slowest = (Duration::ZERO, 0usize);
    while start.elapsed() < budget {
        for _ in 0..64 {
            let i = rng.random_range(0..corpus.len());
            let k = 1 + (rng.random::<u32>() % 8).min(rng.random::<u32>() % 8) as usize;
            let muts: Vec<Mutation> = (0..k).map(|_| random_mutation(&mut rng)).collect();
            let input = mutate(&corpus[i], target, &muts);
            // One read: (a finding, the error kind).
            let exec = |input: &[u8]| -> (Option<String>, Option<String>) {
                if target == Target::Weights {
                    let tf = &trees[i % 2];
                    match read_weights_bytes(Path::new(name), input, tf) {
                        Ok(w) if w.weights.len() != tf.tree.len() => {
                            (Some("weights length".to_string()), None)
                        }
                        Ok(_) => (None, None),
                        Err(e) => (
                            e.to_string()
                                .contains('\n')
                                .then(|| "multi-line".to_string()),
                            Some(kind(e.reason())),
                        ),
                    }
                } else {
                    let r = read_tree_bytes(Path::new(name), input, &opts);
                    let k = r.as_ref().err().map(|e| kind(e.reason()));
                    (audit(&r), k)
                }
            };
            let t0 = Instant::now();
            let result = catch_unwind(AssertUnwindSafe(|| exec(&input)));
            let dt = t0.elapsed();
            execs += 1;
            if dt > slowest.0 {
                slowest = (dt, input.len());
            }
            let problem = match result {
                Err(p) => Some(format!(
                    "panic: {}",
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default()
                )),
                Ok((problem, k)) => {
                    match k {
                        None => ok += 1,
                        Some(k) => {
                            let c = kinds.entry(k).or_insert(0);
                            if *c == 0 && corpus.len() < 1000 {
                                corpus.push(input.clone());
                            }
                            *c += 1;
                        }
                    }
                    problem.or_else(|| {
                        // Wall time misleads on a loaded machine: confirm with the best of
                        // three more reads.
                        if dt <= Duration::from_secs(2) {
                            return None;
                        }
                        let best = (0..3)
                            .map(|_| {
                                let t = Instant::now();
                                let _ = exec(&input);
                                t.elapsed()
                            })
                            .min()
                            .unwrap_or(dt);
                        (best > Duration::from_secs(2)).then(|| format!("slow: {best:?}"))
                    })
                }
            };
            if let Some(p) = problem {
                findings += 1;
                let path = dir.join(format!("{}-{seed}-{execs}.bin", target.name()));
                std::fs::write(&path, &input).unwrap();
                eprintln!("finding: {p} -> {}", path.display());
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "reader {}: {execs} executions in {secs:.0} s ({:.0}/s), {ok} read, {} refused, {findings} findings, corpus {}, slowest {:?} ({} bytes)",
        target.name(),
        execs as f64 / secs,
        execs - ok - findings,
        corpus.len(),
        slowest.0,
        slowest.1
    );
    let list: Vec<String> = kinds.iter().map(|(k, c)| format!("{k} {c}")).collect();
    println!("error kinds: {}", list.join(", "));
}
