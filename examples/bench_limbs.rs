//! The fixed-point width of vectorial-exact on the trees `accuracy bench` times: per generated
//! part (topology, 2^k vertices), L (32-bit words on the GPU, the kernel's limb count) and
//! the unit, as CSV. `scripts/gpu-measure.sh` joins it to bench.csv's rows, so that each of
//! vectorial-exact's timings is read with its L.
//!
//! `cargo run --release --example bench_limbs -- TOPOLOGIES MIN_LOG2 MAX_LOG2 [SEED]`
//! (TOPOLOGIES comma-separated, SEED as bench's `--seed`, default 1).

use generators::Topology;
use generators::fixed::Scale;
use treefix_accuracy::gpu::bench::generated_input;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: bench_limbs TOPOLOGIES MIN_LOG2 MAX_LOG2 [SEED]");
        std::process::exit(2);
    }
    let parse_log2 = |s: &str| -> u32 {
        s.parse().unwrap_or_else(|_| {
            eprintln!("bench_limbs: {s}: not a log2 size");
            std::process::exit(2)
        })
    };
    let (min, max) = (parse_log2(&args[1]), parse_log2(&args[2]));
    let seed: u64 = args.get(3).map_or(1, |s| {
        s.parse().unwrap_or_else(|_| {
            eprintln!("bench_limbs: {s}: not a seed");
            std::process::exit(2)
        })
    });
    println!("topology,n,limbs,unit");
    for name in args[0].split(',') {
        let topology: Topology = name.parse().unwrap_or_else(|e| {
            eprintln!("bench_limbs: {name}: {e}");
            std::process::exit(2)
        });
        for k in min..=max {
            let (_, w) = generated_input(topology, 1 << k, seed).unwrap_or_else(|e| {
                eprintln!("bench_limbs: {topology} n=2^{k}: {e}");
                std::process::exit(2)
            });
            match Scale::for_weights(&w) {
                Some(s) => println!("{topology},{},{},{}", w.len(), s.gpu_words(), s.unit()),
                None => println!("{topology},{},,", w.len()),
            }
        }
    }
}
