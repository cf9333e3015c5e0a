//! Where vectorial leaffix loses its bits: the scan's *breaks*.
//!
//! `l[v] = S[close v] − S[open v − 1]` loses nothing beyond the roundings between the two
//! positions when S[close v] is computed from S[open v − 1] itself (the sequential scan): the
//! roundings they share cancel. A parallel scan has breaks, positions whose prefix is not
//! computed from the previous one (a thread's or a tile's first element); a node with a small
//! subtree sum l next to a break loses about log2(|S| / |l|) bits, whatever else the plan does.
//!
//! This example measures vectorial leaffix's max lost bits (exact reference, gensum weights,
//! one tree per seed in each cell, the tree and its weights drawn from `generators::rng(seed)`)
//! under several scans of the same Euler tour:
//! - `plan`: the scan plan (`vectorial`);
//! - `chained`: the plan with chained tile prefixes (`vectorial-chained`);
//! - `seqscan`: left to right (`vectorial-seqscan`);
//! - `thread-serial T×I`: a CUB-like tile, T threads of I consecutive items, each thread's
//!   items added one by one onto its exclusive prefix (Kogge–Stone over the thread totals),
//!   tiles chained through the previous tile's last output: breaks only at thread starts.
//!   128 × 15 is CUB's shape for f32 scans.
//!
//! A chain of 10 000 and one of 9 990 show that which scan wins on a chain is where the
//! chain's leaf falls against the breaks, not a property of the scan. The maxima move with the
//! seeds: quote them with their range.
//!
//! Run: `cargo run --release -p analysis --example scan_breaks -- [FIRST..=LAST]` (the seeds,
//! inclusive; default 1..=10).

use analysis::orders::euler;
use analysis::reference::{Reference, ReferenceKind, lost_bits};
use analysis::{Op, scan_plan};
use generators::{ChildOrder, Topology};

/// Kogge–Stone exclusive scan of the thread totals.
fn kogge_stone_exclusive(totals: &[f32]) -> Vec<f32> {
    let mut s = totals.to_vec();
    let mut d = 1;
    while d < s.len() {
        for t in (d..s.len()).rev() {
            s[t] += s[t - d];
        }
        d *= 2;
    }
    let mut ex = vec![0.0; s.len()];
    ex[1..].copy_from_slice(&s[..s.len() - 1]);
    ex
}

/// The CUB-like scan: see the module comment.
fn thread_serial(e: &mut [f32], threads: usize, items: usize) {
    let tile_len = threads * items;
    let mut carry: Option<f32> = None;
    for tile in e.chunks_mut(tile_len) {
        let mut a = vec![0f32; tile_len];
        a[..tile.len()].copy_from_slice(tile);
        let totals: Vec<f32> = a
            .chunks(items)
            .map(|c| c[1..].iter().fold(c[0], |s, &x| s + x))
            .collect();
        let ex = kogge_stone_exclusive(&totals);
        let mut out = vec![0f32; tile_len];
        for t in 0..threads {
            // The thread's seed: nothing (the very first thread), its tile-local exclusive
            // prefix, the previous tile's last output, or both added.
            let mut acc = match (carry, t) {
                (None, 0) => None,
                (None, _) => Some(ex[t]),
                (Some(c), 0) => Some(c),
                (Some(c), _) => Some(c + ex[t]),
            };
            for j in 0..items {
                let x = a[items * t + j];
                let s = acc.map_or(x, |s| s + x);
                out[items * t + j] = s;
                acc = Some(s);
            }
        }
        carry = Some(out[tile_len - 1]);
        tile.copy_from_slice(&out[..tile.len()]);
    }
}

/// The seeds from the command line: `FIRST..=LAST`, default 1..=10.
fn seeds() -> std::ops::RangeInclusive<u64> {
    let usage = "usage: scan_breaks [FIRST..=LAST] (seeds, inclusive; default 1..=10)";
    let mut args = std::env::args().skip(1);
    let Some(arg) = args.next() else {
        return 1..=10;
    };
    let parsed = arg.split_once("..=").and_then(|(a, b)| {
        let (a, b) = (a.parse::<u64>().ok()?, b.parse::<u64>().ok()?);
        (a <= b).then_some(a..=b)
    });
    match (parsed, args.next()) {
        (Some(r), None) => r,
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}

fn main() {
    let seeds = seeds();
    type Scan = fn(&mut [f32]);
    let scans: [(&str, Scan); 6] = [
        ("plan", scan_plan::inclusive_scan),
        ("chained", scan_plan::chained_inclusive_scan),
        ("seqscan", scan_plan::sequential_scan),
        ("thread-serial 256x4", |e| thread_serial(e, 256, 4)),
        ("thread-serial 256x16", |e| thread_serial(e, 256, 16)),
        ("thread-serial 128x15", |e| thread_serial(e, 128, 15)),
    ];
    println!(
        "vectorial leaffix, max lost bits over seeds {}..={} ({} trees per cell)",
        seeds.start(),
        seeds.end(),
        seeds.clone().count()
    );
    print!("{:<17} {:>6}", "topology n", "κ");
    for (name, _) in &scans {
        print!(" {name:>20}");
    }
    println!();
    // A chain of 9 990 puts its leaf's close (position n) at a thread start of the 128 × 15
    // tile: the same scan then breaks where the 10 000-chain did not.
    for (topology, n) in [
        ("chain", 10_000),
        ("chain", 9_990),
        ("star", 10_000),
        ("random-recursive", 10_000),
        ("prufer", 10_000),
    ] {
        let topology: Topology = topology.parse().unwrap();
        for cond in [1e2, 1e5, 1e8] {
            let mut worst = vec![0f64; scans.len()];
            for seed in seeds.clone() {
                let mut rng = generators::rng(seed);
                let tree = topology.generate(n, ChildOrder::Natural, &mut rng).unwrap();
                let w = generators::gensum::gensum(n, cond, &mut rng).unwrap();
                let reference = Reference::compute(ReferenceKind::Exact, &tree, &w, Op::Leaffix);
                for (k, (_, scan)) in scans.iter().enumerate() {
                    let mut s: Vec<f32> = euler::write(&tree, &w, Op::Leaffix);
                    scan(&mut s);
                    let out = euler::read(&tree, Op::Leaffix, &s[..]);
                    for (v, &x) in out.iter().enumerate() {
                        let exact = reference.value_f64(v);
                        let rel = match exact {
                            0.0 if x == 0.0 => 0.0,
                            0.0 => f64::INFINITY,
                            _ => ((x as f64 - exact) / exact).abs(),
                        };
                        worst[k] = worst[k].max(lost_bits(rel));
                    }
                }
            }
            print!("{:<17} {:>6.0e}", format!("{topology} {n}"), cond);
            for b in worst {
                print!(" {b:>20.1}");
            }
            println!();
        }
    }
}
