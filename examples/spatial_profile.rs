//! Where the time of laying out and counting a tree goes (`analysis::spatial`,
//! docs/design.md §12): each stage timed once, one after another — light-first layout,
//! renaming, Hilbert placement, the degree-4 virtual tree, contraction's schedule, then each
//! pattern's count, the virtual tree's and the layout's construction among them — and last the
//! whole `Laid::new` + `count` as `accuracy spatial` runs it,
//! each in wall and CPU seconds (a stage that runs in parallel shows more CPU than wall; on a
//! busy machine, wall time measures the neighbours too). `RAYON_NUM_THREADS=1` gives every
//! stage's work on one thread. The criterion bench `benches/spatial.rs` guards the total;
//! this splits it.
//!
//! `cargo run --release --example spatial_profile [N [TOPOLOGY]]` (default 2^22 random-recursive)

use analysis::Op;
use analysis::spatial::*;
use generators::{ChildOrder, Topology};
use std::time::Instant;

// The allocator `accuracy` uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
/// CPU seconds (user + system, every thread) this process has used: on a machine shared with
/// other work, wall time measures the neighbours too. Linux's /proc, in clock ticks of 1/100 s
/// (the kernel's USER_HZ on every architecture Rust targets on Linux but Alpha and IA-64).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    f.get(11)
        .zip(f.get(12))
        .map_or(f64::NAN, |(u, s)| (u + s) / 100.0)
}

/// A stage's start: prints as its wall and CPU seconds since.
struct Clock(Instant, f64);

impl Clock {
    fn now() -> Clock {
        Clock(Instant::now(), cpu_seconds())
    }
}

impl std::fmt::Display for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let wall = self.0.elapsed().as_secs_f64();
        write!(f, "{wall:.2} s wall, {:.2} s CPU", cpu_seconds() - self.1)
    }
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("N: a vertex count"))
        .unwrap_or(1 << 22);
    let topo: Topology = std::env::args()
        .nth(2)
        .unwrap_or("random-recursive".into())
        .parse()
        .expect("TOPOLOGY: a topology name (docs/inputs.md)");
    let tree = topo
        .generate(n, ChildOrder::Natural, &mut generators::rng(1))
        .unwrap();
    let t0 = Instant::now();
    let cpu0 = cpu_seconds();
    let t = Clock::now();
    let layout = Layout::new(&tree, LinearOrder::LightFirst);
    println!("layout {t}");
    let t = Clock::now();
    let r = layout.renamed(&tree);
    println!("renamed {t}");
    let t = Clock::now();
    let pl = [Placement::new(Curve::Hilbert, n).unwrap()];
    println!("placement {t}");
    let t = Clock::now();
    let vt = virtual_tree::VirtualTree::new(&r);
    println!("virtual tree {t}");
    let t = Clock::now();
    let s = analysis::orders::contraction::Schedule::new(&r);
    println!("schedule {t}");
    // The counts' processors: the tree is renamed by position.
    let pos = Renamed;
    let t = Clock::now();
    local::local_messaging(&vt, pos, &pl);
    println!("local {t}");
    let t = Clock::now();
    parallel::parallel(&r, pos, Op::Rootfix, &pl);
    println!("parallel {t}");
    let t = Clock::now();
    euler::euler_tour(&r, pos, Op::Rootfix, &pl, &[1, 2, 4]);
    println!("euler {t}");
    let t = Clock::now();
    contraction::contraction_ops(&r, &s, pos, [Op::Leaffix, Op::Rootfix], &pl);
    println!("contraction, both ops {t}");
    let id = Layout::identity(LinearOrder::LightFirst, n);
    let t = Clock::now();
    let lca = lca::BatchedLca::new(&r, &id).unwrap();
    println!("lca new {t} layers {}", lca.layers());
    let t = Clock::now();
    lca.cost(&vt, &pl);
    println!("lca cost {t}");
    let t = Clock::now();
    pram::pointer_jumping(&r, pos, &pl);
    println!("pointer jumping {t}");
    let t = Clock::now();
    virtual_tree::build_cost(&r, pos, &pl);
    println!("virtual tree's construction {t}");
    let t = Clock::now();
    construction::build(&tree, &layout, &r, &pl).unwrap();
    println!("layout's construction {t}");
    println!(
        "stages total {:.2} s wall, {:.2} s CPU",
        t0.elapsed().as_secs_f64(),
        cpu_seconds() - cpu0
    );
    let t = Clock::now();
    let laid = Laid::new(&tree, LinearOrder::LightFirst);
    println!("Laid::new {t}");
    let t = Clock::now();
    let pl = [Placement::new(Curve::Hilbert, n).unwrap()];
    let _ = count(&laid, &pl, &Op::ALL, 2, &[]);
    println!("placement + count {t}");
}
