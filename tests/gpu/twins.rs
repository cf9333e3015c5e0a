//! Each kernel against its CPU twin, bit for bit, on the shared adapter: every topology and
//! size class, deep and wide trees, signed zeros, child orders and the tree cache, gathers of
//! high-degree vertices, and subnormal weights.

use super::{GpuTest, MODELS, check, check_algos, gpu_algos, tree, weights};
use analysis::{Algorithm, Op};
use generators::{ChildOrder, Topology, WeightModel};
use treefix_accuracy::experiment::Backend;
use treefix_accuracy::gpu::{Gpu, GpuOptions};

/// This module's tests: name and body.
pub(super) const TESTS: &[(&str, GpuTest)] = &[
    (
        "every_topology_small_and_multi_tile_sizes",
        every_topology_small_and_multi_tile_sizes,
    ),
    ("two_levels_of_block_sums", two_levels_of_block_sums),
    ("deep_trees_parallel", deep_trees_parallel),
    ("signed_zeros", signed_zeros),
    ("child_orders_and_cache", child_orders_and_cache),
    ("wide_frontiers", wide_frontiers),
    ("gather_tiles_and_chunks", gather_tiles_and_chunks),
    ("subnormal_weights", subnormal_weights),
];

/// Sizes 1, 2, 3, non-powers of two, one tile (2n ≤ 1024), several tiles, one block-sum level.
fn every_topology_small_and_multi_tile_sizes(gpu: &Gpu) {
    for topology in Topology::all_defaults() {
        for n in [1, 2, 3, 7, 100, 511, 512, 513, 1000, 2049, 5000] {
            for (i, model) in MODELS.into_iter().enumerate() {
                let seed = n as u64 * 31 + i as u64;
                let t = tree(topology, n, seed);
                let w = weights(model, n, seed);
                check(gpu, &t, &w, &format!("{topology} n={n} {model}"));
            }
        }
    }
}

/// 2^20 + 7 vertices: E has 2^21 + 14 elements, so the scan has two levels of block sums. The
/// parallel kernel runs on the shallow ones (deep trees dispatch once per level).
fn two_levels_of_block_sums(gpu: &Gpu) {
    let n = (1 << 20) + 7;
    assert_eq!(analysis::scan_plan::level_sizes(2 * n).len(), 3);
    for (i, topology) in Topology::all_defaults().into_iter().enumerate() {
        let t = tree(topology, n, 77 + i as u64);
        let w = weights(MODELS[i % MODELS.len()], n, 77 + i as u64);
        let algos: Vec<Algorithm> = gpu_algos()
            .into_iter()
            .filter(|a| a.is_vectorial() || t.height() <= 4096)
            .collect();
        check_algos(gpu, &t, &w, &algos, &format!("{topology} n={n}"));
    }
}

/// Deep trees for the level-synchronous kernel: thousands of levels, several submissions.
fn deep_trees_parallel(gpu: &Gpu) {
    for topology in [
        Topology::Chain,
        Topology::CaterpillarLegs,
        Topology::Broom { handle: 0.9 },
    ] {
        let n = 40_000;
        let t = tree(topology, n, 5);
        let w = weights(WeightModel::Gensum, n, 5);
        check_algos(
            gpu,
            &t,
            &w,
            &[Algorithm::PARALLEL],
            &format!("{topology} n={n}"),
        );
    }
}

/// Signed zeros: w = ±0 makes E hold −0 (rootfix −w of +0) and sums of zeros of both signs.
fn signed_zeros(gpu: &Gpu) {
    for topology in Topology::all_defaults() {
        for n in [1, 2, 3, 600, 3000] {
            let t = tree(topology, n, 9);
            let patterns: [&dyn Fn(usize) -> f32; 3] =
                [&|_| 0.0, &|_| -0.0, &|v| [0.0, -0.0, 1.0, -1.0, 0.5][v % 5]];
            for (i, f) in patterns.iter().enumerate() {
                let w: Vec<f32> = (0..n).map(f).collect();
                check(gpu, &t, &w, &format!("{topology} n={n} zeros#{i}"));
            }
        }
    }
}

/// Child orders change the Euler tour and the BFS order; the cache must not confuse trees with
/// the same parents and another order, nor evicted trees.
fn child_orders_and_cache(gpu: &Gpu) {
    let base = tree(Topology::RandomRecursive, 3000, 11);
    let w = weights(WeightModel::Normal, 3000, 11);
    for _ in 0..2 {
        for order in ChildOrder::ALL {
            let t = base.with_order(order);
            check(gpu, &t, &w, &format!("random-recursive {order}"));
        }
    }
}

/// Wide frontiers: the degree prefix sum of the BFS needs two scan levels (> 1024 vertices per
/// level), and a star's 2^18 children are expanded one thread each.
fn wide_frontiers(gpu: &Gpu) {
    for (topology, n) in [
        (Topology::Kary { k: 2 }, 300_000),
        (Topology::Star, 1 << 18),
        (
            Topology::Profile {
                depth: 5,
                branching: 8.0,
            },
            200_000,
        ),
    ] {
        let t = tree(topology, n, 3);
        let w = weights(WeightModel::Uniform, n, 3);
        check(gpu, &t, &w, &format!("{topology} n={n}"));
    }
}

/// High-degree vertices gathered by a workgroup (children staged through workgroup memory a
/// tile at a time): tile boundaries, and vertices with more children than one dispatch takes
/// (the running sum goes on in the next dispatch, in child order).
fn gather_tiles_and_chunks(gpu: &Gpu) {
    let chunked = Gpu::with_options(GpuOptions {
        gather_chunk: Some(3000),
        ..Default::default()
    })
    .unwrap();
    for n in [257, 1024, 1025, 1026, 2049, 6001, 50_000] {
        let t = tree(Topology::Star, n, 2);
        let w = weights(WeightModel::Normal, n, 2);
        check(gpu, &t, &w, &format!("star n={n}"));
        check(&chunked, &t, &w, &format!("star n={n} chunks of 3000"));
        let t = tree(Topology::Broom { handle: 0.1 }, n, 2);
        check(gpu, &t, &w, &format!("broom:0.1 n={n}"));
        check(&chunked, &t, &w, &format!("broom:0.1 n={n} chunks of 3000"));
    }
}

/// Subnormal weights and partial sums: every weight a multiple of the smallest subnormal
/// (2^-149) and every sum below 2^-126, so every addition is exact and subnormal. A device
/// either keeps subnormals, and then equals the twin bit for bit, or flushes them to zero
/// (Vulkan allows it; wgpu cannot request SPIR-V DenormPreserve), and then every result that
/// differs is a zero where the twin has a subnormal or zero. Anything else (a wrong order, a
/// lost addition) fails. Which behaviour the device has is printed.
fn subnormal_weights(gpu: &Gpu) {
    let tiny = f32::from_bits(1); // 2^-149
    let (mut same, mut flushed) = (0usize, 0usize);
    for topology in Topology::all_defaults() {
        for n in [2, 100, 3000] {
            let t = tree(topology, n, 13);
            let w: Vec<f32> = (0..n)
                .map(|v| tiny * ((v * 7919 % 201) as f32 - 100.0))
                .collect();
            assert!(w.iter().any(|x| x.is_subnormal()));
            for algo in gpu_algos() {
                for op in Op::ALL {
                    let got = gpu.compute(&t, &w, algo, op).unwrap();
                    let twin = algo.twin(&t, &w, op);
                    assert!(twin.iter().any(|x| x.is_subnormal()));
                    for (v, (&g, &c)) in got.iter().zip(&twin).enumerate() {
                        if g.to_bits() == c.to_bits() {
                            same += 1;
                        } else {
                            assert!(
                                g == 0.0 && (c == 0.0 || c.is_subnormal()),
                                "{topology} n={n} {algo} {op} vertex {v}: GPU {g:e} vs twin {c:e} is no flush to zero"
                            );
                            flushed += 1;
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "subnormals: {same} results equal to the twin, {flushed} flushed to zero ({})",
        if flushed == 0 {
            "the device keeps subnormals"
        } else {
            "the device flushes subnormals"
        }
    );
}
