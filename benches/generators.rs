//! Time per draw of the ill-conditioned sum generator: ours (`gensum`, refined to hit the
//! target κ) against the published Ogita–Rump–Oishi algorithm (`gensum_published`), at
//! n = 10^4 and 10^5. `cargo bench --bench generators`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use generators::gensum::{gensum, gensum_published};
use std::hint::black_box;

// The allocator `accuracy` itself uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn generators(c: &mut Criterion) {
    let mut group = c.benchmark_group("gensum");
    for n in [10_000usize, 100_000] {
        group.throughput(Throughput::Elements(n as u64));
        for cond in [1e4, 1e12] {
            let mut rng = generators::rng(3);
            group.bench_with_input(
                BenchmarkId::new(format!("refined-cond{cond:e}"), n),
                &n,
                |b, &n| b.iter(|| gensum(black_box(n), cond, &mut rng).unwrap()),
            );
            let mut rng = generators::rng(3);
            group.bench_with_input(
                BenchmarkId::new(format!("published-cond{cond:e}"), n),
                &n,
                |b, &n| b.iter(|| gensum_published(black_box(n), cond, &mut rng).unwrap()),
            );
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = generators
}
criterion_main!(benches);
