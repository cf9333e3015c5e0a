//! GPU kernels against their CPU twins, bit for bit (docs/design.md §10): every topology, both ops, both
//! algorithms, sizes from 1 to past two levels of block sums.
//!
//! Without an adapter every test is reported as ignored, with the reason, in cargo's summary;
//! with TREEFIX_REQUIRE_GPU=1 (CI) that is a failure. A custom harness (libtest-mimic): the
//! built-in one cannot decide at run time to ignore.
//!
//! One module per concept, each listing its tests in `TESTS`: `twins` (each kernel against its
//! twin), `formats` (each kernel in f16 and bf16 against its twin in that arithmetic), `limits` (devices that look smaller), `forests`, `cli` (end to end through the
//! binary), `exact` (the exact treefix) and `hint` (the answer's GPU price command); the helpers they share are here.

use analysis::{Algorithm, Op};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::sync::OnceLock;
use treefix_accuracy::gpu::Gpu;

/// A test's body, given the shared adapter.
type GpuTest = fn(&Gpu);

mod cli;
mod exact;
mod forests;
mod formats;
mod hint;
mod limits;
mod twins;

/// Every test of this target, module by module: its name and its body, which gets the shared
/// adapter. A test function not listed in its module's `TESTS` does not run (the compiler
/// warns that it is never used).
fn tests() -> Vec<(&'static str, GpuTest)> {
    [
        twins::TESTS,
        limits::TESTS,
        forests::TESTS,
        cli::TESTS,
        exact::TESTS,
        formats::TESTS,
        hint::TESTS,
    ]
    .concat()
}

fn main() {
    let args = Arguments::from_args();
    let trials = tests()
        .into_iter()
        .map(|(name, test)| Trial::ignorable_test(name, move || with_gpu(test)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

/// Runs `test` on the shared adapter; without one, ignored with the reason, or a failure under
/// TREEFIX_REQUIRE_GPU=1. A panic in `test` is the harness's failure.
fn with_gpu(test: fn(&Gpu)) -> Result<Completion, Failed> {
    match gpu() {
        Ok(gpu) => {
            test(gpu);
            Ok(Completion::Completed)
        }
        Err(reason) if std::env::var("TREEFIX_REQUIRE_GPU").as_deref() == Ok("1") => {
            Err(format!("TREEFIX_REQUIRE_GPU=1, but {reason}").into())
        }
        Err(reason) => Ok(Completion::ignored_with(reason)),
    }
}

/// The adapter every test shares, or why there is none.
fn gpu() -> Result<&'static Gpu, &'static str> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    GPU.get_or_init(|| Gpu::new().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(String::as_str)
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
            let twin = algo.twin(tree, w, op);
            assert_bits(&got, &twin, &format!("{what} {algo} {op} vs CPU twin"));
            if algo == Algorithm::PARALLEL {
                let seq = Algorithm::SEQUENTIAL.twin(tree, w, op);
                assert_bits(&got, &seq, &format!("{what} {algo} {op} vs sequential"));
            }
        }
    }
}

/// Every algorithm with a GPU kernel.
fn gpu_algos() -> Vec<Algorithm> {
    Algorithm::ALL
        .into_iter()
        .filter(|a| a.has_gpu_kernel())
        .collect()
}

fn check(gpu: &Gpu, tree: &Tree, w: &[f32], what: &str) {
    check_algos(gpu, tree, w, &gpu_algos(), what);
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
