//! GPU kernels against their CPU twins, bit for bit (DESIGN §4): every topology, both ops, both
//! algorithms, sizes from 1 to past two levels of block sums.
//!
//! Without an adapter every test prints "skipped: no adapter" and passes, unless
//! TREEFIX_REQUIRE_GPU=1, where it fails.

use analysis::{Algorithm, Op};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use std::sync::OnceLock;
use treefix_accuracy::experiment::Backend;
use treefix_accuracy::gpu::{Gpu, GpuOptions};
use treefix_accuracy::kernels;

fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    let gpu = GPU.get_or_init(|| match Gpu::new() {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("no adapter: {e}");
            None
        }
    });
    if gpu.is_none() {
        if std::env::var("TREEFIX_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("TREEFIX_REQUIRE_GPU=1 but no GPU adapter is usable");
        }
        eprintln!("skipped: no adapter");
    }
    gpu.as_ref()
}

fn tree(topology: Topology, n: usize, seed: u64) -> Tree {
    topology
        .generate(n, ChildOrder::Natural, &mut generators::rng(seed))
        .unwrap()
}

/// Weights of `model`; gensum (which needs n ≥ 2) targets κ = 1e8, and a single vertex gets a
/// normal weight instead.
fn weights(model: WeightModel, n: usize, seed: u64) -> Vec<f32> {
    let model = if model == WeightModel::Gensum && n < 2 {
        WeightModel::Normal
    } else {
        model
    };
    model
        .weights(n, 1e8, &mut generators::rng(seed ^ 0x5eed))
        .unwrap()
}

/// GPU == CPU twin for `algos` × both ops, and parallel GPU == sequential.
fn check_algos(gpu: &Gpu, tree: &Tree, w: &[f32], algos: &[Algorithm], what: &str) {
    for &algo in algos {
        for op in Op::ALL {
            let got = gpu
                .compute_timed(tree, w, algo, op)
                .unwrap_or_else(|e| panic!("{what} {algo} {op}: {e}"))
                .0;
            let twin = kernels::cpu(tree, w, algo, op);
            assert_bits(&got, &twin, &format!("{what} {algo} {op} vs CPU twin"));
            if algo == Algorithm::Parallel {
                let seq = kernels::cpu(tree, w, Algorithm::Sequential, op);
                assert_bits(&got, &seq, &format!("{what} {algo} {op} vs sequential"));
            }
        }
    }
}

fn check(gpu: &Gpu, tree: &Tree, w: &[f32], what: &str) {
    check_algos(
        gpu,
        tree,
        w,
        &[Algorithm::Parallel, Algorithm::Vectorial],
        what,
    );
}

fn assert_bits(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(v) = (0..got.len()).find(|&v| got[v].to_bits() != want[v].to_bits()) {
        let bad = (0..got.len())
            .filter(|&v| got[v].to_bits() != want[v].to_bits())
            .count();
        panic!(
            "{what}: {bad} of {} vertices differ; first at vertex {v}: GPU {:e} ({:#010x}) vs {:e} ({:#010x})",
            got.len(),
            got[v],
            got[v].to_bits(),
            want[v],
            want[v].to_bits()
        );
    }
}

const MODELS: [WeightModel; 4] = [
    WeightModel::Gensum,
    WeightModel::Normal,
    WeightModel::Uniform,
    WeightModel::Integers,
];

/// Sizes 1, 2, 3, non-powers of two, one tile (2n ≤ 1024), several tiles, one block-sum level.
#[test]
fn every_topology_small_and_multi_tile_sizes() {
    let Some(gpu) = gpu() else { return };
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
#[test]
fn two_levels_of_block_sums() {
    let Some(gpu) = gpu() else { return };
    let n = (1 << 20) + 7;
    assert_eq!(analysis::scan_plan::level_sizes(2 * n).len(), 3);
    for (i, topology) in Topology::all_defaults().into_iter().enumerate() {
        let t = tree(topology, n, 77 + i as u64);
        let w = weights(MODELS[i % MODELS.len()], n, 77 + i as u64);
        let algos: &[Algorithm] = if t.height() <= 4096 {
            &[Algorithm::Parallel, Algorithm::Vectorial]
        } else {
            &[Algorithm::Vectorial]
        };
        check_algos(gpu, &t, &w, algos, &format!("{topology} n={n}"));
    }
}

/// Deep trees for the level-synchronous kernel: thousands of levels, several submissions.
#[test]
fn deep_trees_parallel() {
    let Some(gpu) = gpu() else { return };
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
            &[Algorithm::Parallel],
            &format!("{topology} n={n}"),
        );
    }
}

/// Signed zeros: w = ±0 makes E hold −0 (rootfix −w of +0) and sums of zeros of both signs.
#[test]
fn signed_zeros() {
    let Some(gpu) = gpu() else { return };
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
#[test]
fn child_orders_and_cache() {
    let Some(gpu) = gpu() else { return };
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
#[test]
fn wide_frontiers() {
    let Some(gpu) = gpu() else { return };
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

/// A device that looks smaller: dispatches fold into 2D above 3 workgroups per dimension (the
/// real limit, 65 535, needs trees of 2^24 vertices), and a tree too big for the binding limit
/// is a clear error.
#[test]
fn folded_dispatches_and_limits() {
    if gpu().is_none() {
        return;
    }
    let small = Gpu::with_options(GpuOptions {
        max_workgroups_per_dimension: Some(3),
        max_storage_buffer_binding_size: Some(1 << 16),
    })
    .unwrap();
    for topology in Topology::all_defaults() {
        for n in [1, 5, 3000, 8000] {
            let t = tree(topology, n, 21);
            let w = weights(WeightModel::Normal, n, 21);
            check(&small, &t, &w, &format!("folded {topology} n={n}"));
        }
    }
    let n = 10_000;
    let t = tree(Topology::Chain, n, 1);
    let w = weights(WeightModel::Normal, n, 1);
    let e = small
        .compute(&t, &w, Algorithm::Vectorial, Op::Rootfix)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("80000 bytes") && e.contains("max_storage_buffer_binding_size of 65536"),
        "{e}"
    );
}

/// Vertices with more children than one gather dispatch takes (16384): the running sum goes on
/// over several dispatches, in child order.
#[test]
fn gather_chunk_boundaries() {
    let Some(gpu) = gpu() else { return };
    for n in [16_384, 16_385, 16_386, 32_769, 50_000] {
        let t = tree(Topology::Star, n, 2);
        let w = weights(WeightModel::Normal, n, 2);
        check(gpu, &t, &w, &format!("star n={n}"));
        let t = tree(Topology::Broom { handle: 0.1 }, n, 2);
        check(gpu, &t, &w, &format!("broom:0.1 n={n}"));
    }
}

/// End to end through the CLI: `run --backend gpu` dumps exactly the rows of `--backend cpu`
/// (results, errors and bounds), on a tree with several levels and tiles.
#[test]
fn cli_gpu_dump_equals_cpu_dump() {
    if gpu().is_none() {
        return;
    }
    let dir = std::env::temp_dir();
    let dump = |backend: &str| {
        let path = dir.join(format!(
            "treefix-gpu-cli-{backend}-{}.csv",
            std::process::id()
        ));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
            .args([
                "run",
                "--topology",
                "profile:12:3",
                "--nodes",
                "3000",
                "--cond",
                "1e9",
                "--seed",
                "4",
            ])
            .args(["--backend", backend, "--dump", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        (text, stderr)
    };
    let (cpu, _) = dump("cpu");
    let (gpu, stderr) = dump("gpu");
    assert!(stderr.contains("backend: gpu"), "{stderr}");
    assert_eq!(cpu.lines().count(), 1 + 3000 * 2 * 4);
    assert!(cpu == gpu, "the GPU dump differs from the CPU dump");
}
