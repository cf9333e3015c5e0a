//! Long-run mutation fuzzer of the `.npy` results reader (`accuracy score --results
//! rootfix=r.npy`): numpy's files of format versions 1 to 3, mutated (header text, length
//! field, version, data cut short), read under `catch_unwind`. A panic, a result of another
//! length, a message that is not one short line of printable text, or a read slower than
//! 2 s is a finding, written to DIR (the input being read is in `DIR/current.npy`: a read
//! that never ends leaves it there). The seeded test is `tests/hostile_inputs.rs`.
//!
//! ```sh
//! nice -n 19 cargo run --release --example fuzz_npy -- --seconds 600 --seed 1 [--crashes DIR]
//! ```

#[allow(dead_code)]
#[path = "../tests/common/npy.rs"]
mod npy;

use npy::{audit, header, mutated, npy_file};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use treefix_accuracy::score::results::read_npy;

fn main() {
    let (mut seconds, mut seed) = (60.0, 1u64);
    let mut dir = PathBuf::from("target/fuzz-findings");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().expect("missing value");
        match a.as_str() {
            "--seconds" => seconds = val().parse().expect("--seconds"),
            "--seed" => seed = val().parse().expect("--seed"),
            "--crashes" => dir = PathBuf::from(val()),
            _ => panic!("unknown argument {a}"),
        }
    }
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = generators::rng(seed);
    let bases: Vec<(usize, Vec<u8>)> = [1usize, 7, 1000]
        .into_iter()
        .flat_map(|n| {
            let values: Vec<f32> = (0..n).map(|v| v as f32).collect();
            [1, 2, 3].map(|version| (n, npy_file(version, &header(n), &values)))
        })
        .collect();
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let (mut execs, mut findings) = (0u64, 0u64);
    while start.elapsed() < Duration::from_secs_f64(seconds) {
        let (n, base) = &bases[execs as usize % bases.len()];
        let input = mutated(&mut rng, base);
        execs += 1;
        // The input in hand, where a read that never ends can be found.
        std::fs::write(dir.join("current.npy"), &input).unwrap();
        let t0 = Instant::now();
        let problem = match catch_unwind(AssertUnwindSafe(|| read_npy("r.npy", &input, *n))) {
            Err(_) => Some("panic".to_string()),
            Ok(r) => audit(&r, *n),
        }
        .or_else(|| {
            let dt = t0.elapsed();
            (dt > Duration::from_secs(2)).then(|| format!("slow: {dt:?}"))
        });
        if let Some(p) = problem {
            findings += 1;
            let path = dir.join(format!("npy-{seed}-{execs}.npy"));
            std::fs::write(&path, &input).unwrap();
            eprintln!("finding: {p} -> {}", path.display());
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!("npy: {execs} executions in {secs:.0} s, {findings} findings");
}
