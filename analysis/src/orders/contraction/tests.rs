use super::*;
use crate::orders::tree;
use generators::{ChildOrder, Topology, WeightModel};

/// Integer weights: every sum is exact in f32 (|Σ| ≤ 8n < 2²⁴), so contraction must equal
/// the sequential order exactly, on every topology, child order and several seeds.
#[test]
fn exact_on_integer_weights() {
    for topo in Topology::all_defaults() {
        for n in [1, 2, 3, 7, 64, 1000] {
            for order in ChildOrder::ALL {
                let mut rng = generators::rng(n as u64);
                let t = topo.generate(n, order, &mut rng).unwrap();
                let w = WeightModel::Integers.weights(n, 1.0, &mut rng).unwrap();
                for seed in [SEED, 1, 2] {
                    let s = Schedule::with_seed(&t, seed);
                    let seq: Vec<f32> = tree::rootfix_sequential(&t, &w);
                    assert_eq!(rootfix_on::<f32>(&s, &w), seq, "{topo} {n} {order:?}");
                    let seq: Vec<f32> = tree::leaffix_sequential(&t, &w);
                    assert_eq!(leaffix_on::<f32>(&s, &w), seq, "{topo} {n} {order:?}");
                }
            }
        }
    }
}

/// The schedule merges every non-root vertex exactly once, each compress is valid when it
/// happens, and every rake's leaves are children of its p in child order.
#[test]
fn schedule_merges_every_vertex_once() {
    for topo in Topology::all_defaults() {
        let mut rng = generators::rng(5);
        let t = topo.generate(3000, ChildOrder::Natural, &mut rng).unwrap();
        let s = Schedule::new(&t);
        let mut merged = vec![0u32; t.len()];
        for c in s.all_compresses() {
            merged[c.c as usize] += 1;
        }
        for r in &s.rakes {
            let leaves = s.leaves(r);
            for &v in leaves {
                merged[v as usize] += 1;
            }
            if leaves.len() > 1 {
                // Several leaves: p is a single vertex and they are its children.
                let kids = t.children(r.p);
                let pos: Vec<usize> = leaves
                    .iter()
                    .map(|v| kids.iter().position(|k| k == v).unwrap())
                    .collect();
                assert!(pos.windows(2).all(|p| p[0] < p[1]), "{topo}");
            }
        }
        for v in 0..t.len() as u32 {
            let want = u32::from(v != t.root());
            assert_eq!(merged[v as usize], want, "{topo} vertex {v}");
        }
    }
}

/// The pairwise split equals the level-by-level reduce of adjacent pairs.
#[test]
fn pairwise_is_the_level_reduce() {
    for m in 1..200usize {
        let leaves: Vec<u32> = (0..m as u32).collect();
        // The pairing, as a string.
        fn show(l: &[u32]) -> String {
            match l {
                [v] => v.to_string(),
                _ => {
                    let h = pairwise_split(l.len());
                    format!("({}+{})", show(&l[..h]), show(&l[h..]))
                }
            }
        }
        let mut level: Vec<String> = leaves.iter().map(|v| v.to_string()).collect();
        while level.len() > 1 {
            level = level
                .chunks(2)
                .map(|c| match c {
                    [a, b] => format!("({a}+{b})"),
                    [a] => a.clone(),
                    _ => unreachable!(),
                })
                .collect();
        }
        assert_eq!(show(&leaves), level[0], "m = {m}");
    }
}

/// O(log n) rounds on a chain of 10⁵, the worst case of the sequential order. On a chain
/// a round compresses each inner vertex with probability 1/4 (heads below tails), so
/// about log_{4/3} n ≈ 2.41·log₂ n rounds are expected (Miller & Reif); c = 3 leaves room
/// for the fluctuation. Measured: 37 rounds, 2.23·log₂ n (seeds SEED..SEED+4: 35 to 38).
#[test]
fn rounds_logarithmic_on_a_chain() {
    let n = 100_000;
    let t = Topology::Chain
        .generate(n, ChildOrder::Natural, &mut generators::rng(1))
        .unwrap();
    let rounds = Schedule::new(&t).rounds().len() as f64;
    let log2n = (n as f64).log2();
    assert!(rounds <= 3.0 * log2n, "{rounds} rounds, n = {n}");
    // A star is one rake.
    let t = Topology::Star
        .generate(n, ChildOrder::Natural, &mut generators::rng(1))
        .unwrap();
    assert_eq!(Schedule::new(&t).rounds().len(), 1);
}

/// The schedule is the documented one, recomputed here from the tree alone: round 0
/// compresses exactly the clusters c that are viable (one child, and a parent with one
/// child), show heads and whose parent shows tails, the coins being the bits of
/// `rng(derive_seed(seed, 0))`, 64 per `next_u64`, least significant first, in cluster
/// order (the root, then the CSR children array). Another seed, another schedule.
#[test]
fn first_round_follows_the_documented_coins() {
    for topo in Topology::all_defaults() {
        let mut rng = generators::rng(3);
        let t = topo
            .generate(20_000, ChildOrder::Natural, &mut rng)
            .unwrap();
        for seed in [SEED, SEED + 1] {
            let order: Vec<u32> = std::iter::once(t.root())
                .chain(t.csr().1.iter().copied())
                .collect();
            let mut coins = generators::rng(generators::derive_seed(seed, 0));
            let mut heads = vec![false; t.len()];
            let mut word = 0;
            for (i, &v) in order.iter().enumerate() {
                if i % 64 == 0 {
                    word = coins.next_u64();
                }
                heads[v as usize] = word >> (i % 64) & 1 == 1;
            }
            let want: Vec<Compress> = order[1..]
                .iter()
                .map(|&c| (c, t.parents()[c as usize]))
                .filter(|&(c, p)| {
                    t.children(c).len() == 1
                        && t.children(p).len() == 1
                        && heads[c as usize]
                        && !heads[p as usize]
                })
                .map(|(c, p)| Compress {
                    c,
                    p,
                    x: t.children(c)[0],
                })
                .collect();
            let s = Schedule::with_seed(&t, seed);
            assert_eq!(
                s.compresses(&s.rounds()[0]),
                &want[..],
                "{topo} seed {seed}"
            );
        }
        // (A tree without compresses, a star, has one schedule whatever the coins.)
        if !Schedule::new(&t).all_compresses().is_empty() {
            assert_ne!(
                Schedule::new(&t),
                Schedule::with_seed(&t, SEED + 1),
                "{topo}"
            );
        }
    }
}
