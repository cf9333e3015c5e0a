//! The correctly rounded treefix's time through the library API, to set beside the same call
//! from Python (`python/tests/exact_timing.py` prints the other side): best and median of `REPS`
//! calls of `exact` on a random-recursive tree of 2^22 vertices, gensum weights κ = 1e8.
//!
//! `cargo run --release --example exact_timing [LOG2_N]`

use std::time::Instant;
use treefix_accuracy::{Op, Topology};

const REPS: usize = 7;

fn main() -> Result<(), treefix_accuracy::Error> {
    let log2: u32 = std::env::args()
        .nth(1)
        .map_or(22, |s| s.parse().expect("LOG2_N"));
    let n = 1usize << log2;
    let topology: Topology = "random-recursive".parse().expect("a topology");
    let tree = treefix_accuracy::generate_tree(&topology, n, 1)?;
    let w = treefix_accuracy::gensum(n, 1e8, 1)?.weights;
    for op in Op::ALL {
        let mut times = Vec::with_capacity(REPS);
        for _ in 0..REPS {
            let t = Instant::now();
            let x = treefix_accuracy::exact(&tree, &w, op)?;
            times.push(t.elapsed().as_secs_f64());
            std::hint::black_box(x);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "rust exact {op} n=2^{log2}: best {:.3} s, median {:.3} s",
            times[0],
            times[REPS / 2]
        );
    }
    Ok(())
}
