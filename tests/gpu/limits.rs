//! Devices of their own that look smaller than they are (folded dispatches, tiny windows and
//! loop budgets), so that small trees take every path a large device takes on large ones; and
//! the stages each kernel runs are its registered recipe.

use super::{GpuTest, check_algos, gpu_algos, tree, weights};
use analysis::algorithms::Stage;
use analysis::{Algorithm, Op};
use generators::{ChildOrder, Topology, WeightModel};
use std::collections::BTreeSet;
use treefix_accuracy::experiment::Backend;
use treefix_accuracy::gpu::{Gpu, GpuOptions};

/// This module's tests: name and body.
pub(super) const TESTS: &[(&str, GpuTest)] = &[
    ("stages_run_are_the_recipe", stages_run_are_the_recipe),
    ("folded_dispatches_and_limits", folded_dispatches_and_limits),
    (
        "every_parallel_path_on_small_trees",
        every_parallel_path_on_small_trees,
    ),
    (
        "chained_scan_respects_the_loop_budget",
        chained_scan_respects_the_loop_budget,
    ),
];

/// The stages each kernel dispatches are its recipe in the registry: none outside it, and
/// every one of it on some tree (the uniform add needs two levels of block sums: 2n > 2^20).
/// On a device of its own: the record of stages run is the device's, and the other tests
/// share the common one from other threads.
fn stages_run_are_the_recipe(_: &Gpu) {
    let gpu = &Gpu::new().unwrap();
    let small = tree(Topology::RandomRecursive, 5000, 3);
    let big_n = (1 << 19) + 7;
    let big = tree(Topology::RandomRecursive, big_n, 4);
    for algo in gpu_algos() {
        let recipe: BTreeSet<Stage> = algo.gpu().unwrap().stages().into_iter().collect();
        let mut seen = BTreeSet::new();
        gpu.stages_run();
        for (t, n) in [(&small, 5000), (&big, big_n)] {
            if n == big_n && !algo.is_vectorial() {
                continue;
            }
            let w = weights(WeightModel::Normal, n, 5);
            for op in Op::ALL {
                gpu.compute(t, &w, algo, op).unwrap();
                let run: BTreeSet<Stage> = gpu.stages_run().into_iter().collect();
                assert!(
                    run.is_subset(&recipe),
                    "{algo} {op} n={n} ran {run:?}, its recipe is {recipe:?}"
                );
                seen.extend(run);
            }
        }
        assert_eq!(seen, recipe, "{algo}: stages run vs its recipe");
    }
}

/// A device that looks smaller: dispatches fold into 2D above 3 workgroups per dimension (the
/// real limit, 65 535, needs trees of 2^24 vertices), and a tree too big for the binding limit
/// is a clear error.
fn folded_dispatches_and_limits(_: &Gpu) {
    let small = Gpu::with_options(GpuOptions {
        max_workgroups_per_dimension: Some(3),
        max_storage_buffer_binding_size: Some(1 << 16),
        ..Default::default()
    })
    .unwrap();
    for topology in Topology::all_defaults() {
        for n in [1, 5, 3000, 8000] {
            let t = tree(topology, n, 21);
            let w = weights(WeightModel::Normal, n, 21);
            // Float-float E takes 8 bytes per position (2n·8 > 2^16 bytes from n = 4097), the
            // contraction's slots up to 4n + 1 words.
            let wide = |a: &Algorithm| a.gpu().is_some_and(|k| (k.words_per_vertex)(&w) > 2);
            let fits = |a: &Algorithm| !wide(a) || 16 * n <= 1 << 16;
            let algos: Vec<Algorithm> = gpu_algos().into_iter().filter(fits).collect();
            check_algos(&small, &t, &w, &algos, &format!("folded {topology} n={n}"));
        }
    }
    let t = tree(Topology::Chain, 8000, 21);
    let w = weights(WeightModel::Normal, 8000, 21);
    let e = small
        .compute(&t, &w, Algorithm::VECTORIAL_COMPENSATED, Op::Rootfix)
        .unwrap_err();
    assert!(e.to_string().contains("128000 bytes"), "{e}");
    let n = 10_000;
    let t = tree(Topology::Chain, n, 1);
    let w = weights(WeightModel::Normal, n, 1);
    let e = small
        .compute(&t, &w, Algorithm::VECTORIAL, Op::Rootfix)
        .unwrap_err();
    // A usage error (exit code 2): a smaller tree, or the CPU twins.
    assert!(matches!(e, treefix_accuracy::Error::GpuLimit(_)), "{e}");
    assert_eq!(e.exit_code(), 2);
    let e = e.to_string();
    assert!(
        e.contains("80000 bytes") && e.contains("max_storage_buffer_binding_size of 65536"),
        "{e}"
    );
}

/// A device that looks tiny to the level-synchronous kernels: windows of 8 vertices, wide
/// levels from 7, workgroup gathers from 3 children in chunks of 5, narrow runs cut every 100
/// loop iterations. Small trees then take every path: narrow windows (serial and parallel
/// steps) next to wide levels, gather tasks resumed over several dispatches, split runs.
fn every_parallel_path_on_small_trees(_: &Gpu) {
    let tiny = Gpu::with_options(GpuOptions {
        narrow_capacity: Some(10),
        gather_min_degree: Some(3),
        gather_chunk: Some(5),
        loop_budget: Some(100),
        ..Default::default()
    })
    .unwrap();
    for topology in Topology::all_defaults() {
        for n in [1, 2, 5, 9, 40, 300, 2000] {
            for order in ChildOrder::ALL {
                let t = topology
                    .generate(n, order, &mut generators::rng(n as u64 + 7))
                    .unwrap();
                let w = weights(WeightModel::Gensum, n, n as u64);
                check_algos(
                    &tiny,
                    &t,
                    &w,
                    &[Algorithm::PARALLEL],
                    &format!("tiny {topology} {order} n={n}"),
                );
            }
        }
    }
}

/// The chained plan's one-workgroup chain counts against the adapter's loop budget: past it,
/// `vectorial-chained` is refused with a limit error (exit code 2), while `vectorial` on the
/// same uploaded tree still runs and equals its twin.
fn chained_scan_respects_the_loop_budget(_: &Gpu) {
    let small = Gpu::with_options(GpuOptions {
        loop_budget: Some(100),
        ..Default::default()
    })
    .unwrap();
    // 2·40 000 positions: 79 tile totals, + 64 iterations of slack > 100.
    let n = 40_000;
    let t = tree(Topology::RandomRecursive, n, 3);
    let w = weights(WeightModel::Normal, n, 3);
    let e = small
        .compute(&t, &w, Algorithm::VECTORIAL_CHAINED, Op::Leaffix)
        .unwrap_err();
    assert!(matches!(e, treefix_accuracy::Error::GpuLimit(_)), "{e}");
    assert!(e.to_string().contains("79 tile totals"), "{e}");
    check_algos(
        &small,
        &t,
        &w,
        &[Algorithm::VECTORIAL],
        "vectorial under a small loop budget",
    );
}
