//! Accuracy of the gensum generators: for n × target, the fraction of 100 seeded draws whose
//! exact condition number is within a factor 3 of the target, the median and the worst
//! log10(achieved / target), the generation time per draw (excluding the exact check), and the
//! largest share max|z| / Σ|z| of a single value.
//!
//! cargo run --release -p generators --example gensum_table

use generators::exact_sum::condition_number;
use generators::gensum::{gensum_published, gensum_with_info};
use generators::rng;
use std::time::Instant;

const DRAWS: u64 = 100;

struct Stats {
    within: usize,
    median: f64,
    worst: f64,
    ms: f64,
    share: f64,
}

fn measure(g: &mut dyn FnMut(u64) -> Vec<f32>, n: usize, c: f64) -> Stats {
    let mut logs = Vec::with_capacity(DRAWS as usize);
    let mut secs = 0.0;
    let mut share = 0.0f64;
    for d in 0..DRAWS {
        let t = Instant::now();
        let z = g(d);
        secs += t.elapsed().as_secs_f64();
        assert_eq!(z.len(), n);
        let abs: f64 = z.iter().map(|v| v.abs() as f64).sum();
        let max = z.iter().fold(0.0f32, |m, v| m.max(v.abs())) as f64;
        share = share.max(max / abs);
        logs.push((condition_number(&z) / c).log10());
    }
    let lim = 3f64.log10();
    let within = logs.iter().filter(|l| l.abs() <= lim).count();
    let worst = logs
        .iter()
        .fold(0.0f64, |w, &l| if l.abs() > w.abs() { l } else { w });
    logs.sort_by(f64::total_cmp);
    let median = (logs[logs.len() / 2 - 1] + logs[logs.len() / 2]) / 2.0;
    Stats {
        within,
        median,
        worst,
        ms: secs * 1e3 / DRAWS as f64,
        share,
    }
}

fn row(s: &Stats) -> String {
    format!(
        "{:>5.2} {:>6.2} {:>9.1e} {:>7.3} {:>5.3}",
        s.within as f64 / DRAWS as f64,
        s.median,
        s.worst,
        s.ms,
        s.share
    )
}

fn main() {
    println!(
        "{DRAWS} draws per cell. in3x: fraction with c/3 <= kappa <= 3c; med, worst: \
         log10(kappa/c) (exact kappa, MPFR);\nms: generation time per draw; maxsh: largest \
         max|z|/sum|z| over the draws"
    );
    println!(
        "{:>6} {:>6} | {:^37} | {:^37}",
        "", "", "refined gensum", "published GenSum"
    );
    let head = format!(
        "{:>5} {:>6} {:>9} {:>7} {:>5}",
        "in3x", "med", "worst", "ms", "maxsh"
    );
    println!("{:>6} {:>6} | {head} | {head}", "n", "target");
    let (mut tot, mut cells, mut retries) = ([0usize; 2], 0u64, 0u64);
    for n in [100usize, 1000, 10_000, 100_000] {
        let mut sub = [0usize; 2];
        for k in 1..=30 {
            let c = 10f64.powi(k);
            let seed = |d: u64| rng(((n as u64) << 32) ^ ((k as u64) << 16) ^ d);
            let a = measure(
                &mut |d| {
                    let (z, info) = gensum_with_info(n, c, &mut seed(d)).unwrap();
                    retries += (info.attempts - 1) as u64;
                    z
                },
                n,
                c,
            );
            let b = measure(&mut |d| gensum_published(n, c, &mut seed(d)).unwrap(), n, c);
            sub[0] += a.within;
            sub[1] += b.within;
            cells += 1;
            println!(
                "{:>6} {:>6} | {} | {}",
                n,
                format!("1e{k}"),
                row(&a),
                row(&b)
            );
        }
        println!(
            "{:>6} {:>6} | {:>5.3} {:>31} | {:>5.3}",
            n,
            "all",
            sub[0] as f64 / (30 * DRAWS) as f64,
            "",
            sub[1] as f64 / (30 * DRAWS) as f64
        );
        tot[0] += sub[0];
        tot[1] += sub[1];
    }
    println!(
        "{:>6} {:>6} | {:>5.3} {:>31} | {:>5.3}",
        "all",
        "all",
        tot[0] as f64 / (cells * DRAWS) as f64,
        "",
        tot[1] as f64 / (cells * DRAWS) as f64
    );
    println!(
        "refined: {retries} redraws after a failed validity check in {} draws",
        cells * DRAWS
    );
}
