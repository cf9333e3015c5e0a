//! Each kernel in every arithmetic the GPU computes in against its CPU twin in that
//! arithmetic, bit for bit: f16 and bf16 stored and added, or added in f32 and rounded once at
//! the store, on every topology, on model weights in the format, on sums that overflow the
//! format, on its subnormals, and on the exact scan's ties.

use super::{GpuTest, MODELS, gpu_algos, tree};
use analysis::orders::Walker;
use analysis::{Algorithm, Op};
use generators::{Arithmetic, Precision, Topology, Tree};
use treefix_accuracy::experiment::Backend;
use treefix_accuracy::gpu::Gpu;

/// This module's tests: name and body.
pub(super) const TESTS: &[(&str, GpuTest)] = &[
    (
        "narrow_formats_every_topology",
        narrow_formats_every_topology,
    ),
    ("narrow_formats_overflow", narrow_formats_overflow),
    (
        "narrow_formats_subnormals_and_ties",
        narrow_formats_subnormals_and_ties,
    ),
    ("f64_is_refused", f64_is_refused),
    (
        "cli_run_in_a_format_on_the_gpu",
        cli_run_in_a_format_on_the_gpu,
    ),
];

/// f16 and bf16, each stored and added in itself or added in f32.
fn arithmetics() -> Vec<Arithmetic> {
    use Precision::{Bf16, F16, F32};
    [(F16, F16), (F16, F32), (Bf16, Bf16), (Bf16, F32)]
        .map(|(s, a)| Arithmetic::new(s, a).unwrap())
        .to_vec()
}

/// GPU == twin in `arith` for every kernel whose order is written for it, both ops. NaNs (an
/// overflowed prefix minus another) compare as NaN: IEEE leaves their payload to the hardware.
fn check_in(gpu: &Gpu, tree: &Tree, w: &[f32], arith: Arithmetic, what: &str) -> usize {
    let walker = Walker::new(tree);
    let mut checked = 0;
    for algo in gpu_algos().into_iter().filter(|a| a.runs_in(arith)) {
        for op in Op::ALL {
            let got = gpu
                .compute_in(tree, w, algo, (op, arith))
                .unwrap_or_else(|e| panic!("{what} {algo} {op} {arith:?}: {e}"));
            let twin = algo.twin_in(&walker, w, op, arith);
            let same = |v: usize| {
                got[v].to_bits() == twin[v].to_bits() || (got[v].is_nan() && twin[v].is_nan())
            };
            if let Some(v) = (0..got.len()).find(|&v| !same(v)) {
                let bad = (0..got.len()).filter(|&v| !same(v)).count();
                panic!(
                    "{what} {algo} {op} in {}: {bad} of {} vertices differ; first at {v}: GPU {:e} ({:#010x}) vs twin {:e} ({:#010x})",
                    arith.describe(),
                    got.len(),
                    got[v],
                    got[v].to_bits(),
                    twin[v],
                    twin[v].to_bits()
                );
            }
            checked += 1;
        }
    }
    checked
}

/// Every topology at sizes from one vertex to several scan tiles and three scan levels' worth
/// of narrow runs, each model's weights brought into the format as `run --precision` does.
fn narrow_formats_every_topology(gpu: &Gpu) {
    let mut checked = 0;
    for arith in arithmetics() {
        for topology in Topology::all_defaults() {
            for n in [1, 3, 513, 5000] {
                let model = MODELS[n % MODELS.len()];
                let seed = n as u64 * 7 + arith.storage.p() as u64;
                let t = tree(topology, n, seed);
                let drawn = super::weights(model, n, seed);
                let w = generators::weights::in_format(drawn, arith.storage);
                checked += check_in(gpu, &t, &w, arith, &format!("{topology} n={n} {model}"));
            }
        }
    }
    // Every arithmetic runs parallel, the three f32-word scans and the exact scan at least.
    assert!(checked >= 4 * 5 * 2 * 4, "{checked}");
}

/// Weights near the format's largest value: partial sums overflow to ±∞ (in the format when
/// it adds, only at the store when f32 adds), and the vectorial leaffix subtracts them.
fn narrow_formats_overflow(gpu: &Gpu) {
    for arith in arithmetics() {
        let big = arith.storage.max_finite() as f32 / 3.0;
        for topology in [Topology::Chain, Topology::Star, Topology::RandomRecursive] {
            let n = 600;
            let t = tree(topology, n, 5);
            let w: Vec<f32> = (0..n)
                .map(|i| arith.storage.round_f32(if i % 5 == 4 { -big } else { big }))
                .collect();
            check_in(gpu, &t, &w, arith, &format!("{topology} overflow"));
        }
    }
}

/// The format's subnormals (sums of them and of normals), and weights whose exact sums fall
/// halfway between two values of the format: the exact scan rounds each to even, and the
/// f32 rounding of its sum must not decide the tie (a double rounding would).
fn narrow_formats_subnormals_and_ties(gpu: &Gpu) {
    for arith in arithmetics() {
        let p = arith.storage;
        let tiny = p.min_subnormal() as f32;
        let one = 1.0f32;
        // 1 + 2^-p is halfway between 1 and its successor; with a further tiny weight it is
        // above the tie; 3·2^-p ties the other way.
        let half_ulp = p.ulp(1.0) as f32 / 2.0;
        let patterns: [&[f32]; 4] = [
            &[tiny, 3.0 * tiny, -tiny, p.min_normal() as f32 - tiny],
            &[one, half_ulp, tiny, -tiny],
            &[one, half_ulp, half_ulp, -half_ulp],
            &[one, 3.0 * half_ulp, -half_ulp, tiny],
        ];
        for topology in [Topology::Chain, Topology::Star, Topology::Kary { k: 2 }] {
            let n = 1000;
            let t = tree(topology, n, 9);
            for (k, pattern) in patterns.iter().enumerate() {
                let w: Vec<f32> = (0..n)
                    .map(|i| p.round_f32(pattern[i % pattern.len()]))
                    .collect();
                check_in(gpu, &t, &w, arith, &format!("{topology} pattern {k}"));
            }
        }
    }
}

/// f64 has no WGSL type: the GPU says so instead of computing in something else.
fn f64_is_refused(gpu: &Gpu) {
    let t = tree(Topology::Chain, 10, 1);
    let w = vec![1.0f32; 10];
    let err = gpu
        .compute_in(
            &t,
            &w,
            Algorithm::PARALLEL,
            (Op::Rootfix, Arithmetic::same(Precision::F64)),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("WGSL has no f64"), "{err}");
}

/// `run --precision bf16 --accumulate f32 --backend gpu` runs the kernels in that arithmetic,
/// checks each against its twin, and prints the CPU run's table; `--precision f64` on the GPU
/// is refused with the reason.
fn cli_run_in_a_format_on_the_gpu(_: &Gpu) {
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
            .args([
                "run",
                "--topology",
                "random-recursive",
                "--nodes",
                "3000",
                "--cond",
                "1e4",
            ])
            .args(["--seed", "3"])
            .args(extra)
            .output()
            .unwrap()
    };
    let text = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).to_string();
    let mixed = ["--precision", "bf16", "--accumulate", "f32"];
    let gpu = run(&[&mixed[..], &["--backend", "gpu"]].concat());
    assert!(
        gpu.status.success(),
        "{}",
        String::from_utf8_lossy(&gpu.stderr)
    );
    let cpu = run(&mixed);
    assert!(
        cpu.status.success(),
        "{}",
        String::from_utf8_lossy(&cpu.stderr)
    );
    let (g, c) = (text(&gpu), text(&cpu));
    assert!(
        g.contains("equal their twins in bf16 with f32 accumulation"),
        "{g}"
    );
    // The same table: the GPU's values are the twins'.
    let table = |t: &str| {
        t.lines()
            .filter(|l| l.starts_with("rootfix") || l.starts_with("leaffix"))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(table(&g), table(&c));
    assert!(table(&g).iter().any(|l| l.contains("parallel")), "{g}");
    let f64 = run(&["--precision", "f64", "--backend", "gpu"]);
    assert!(!f64.status.success());
    let err = String::from_utf8_lossy(&f64.stderr);
    assert!(err.contains("WGSL has no f64"), "{err}");
}
