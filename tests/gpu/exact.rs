//! The exact treefix on the GPU (vectorial-exact's scan): every scale of weights, the exact
//! reference computed from it, and the CPU's exact treefix equal to the kernel.

use super::{GpuTest, assert_bits, check_algos, tree, weights};
use analysis::{Algorithm, Op};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use treefix_accuracy::experiment::Backend;
use treefix_accuracy::gpu::{Gpu, GpuOptions};

/// This module's tests: name and body.
pub(super) const TESTS: &[(&str, GpuTest)] = &[
    ("exact_scan_at_every_scale", exact_scan_at_every_scale),
    ("exact_reference_on_the_gpu", exact_reference_on_the_gpu),
    (
        "exact_references_of_a_forest_reuse_its_upload",
        exact_references_of_a_forest_reuse_its_upload,
    ),
    (
        "exact_treefix_equals_the_kernel",
        exact_treefix_equals_the_kernel,
    ),
];

/// vectorial-exact on one uploaded tree with weights of every width, one after another (its
/// buffers are remade for each scale): one limb (integers), a few (gensum to κ = 1e30), ten
/// (normal weights from near the subnormals to near f32::MAX, whose sums overflow to ±∞ and
/// whose leaffix differences can be subnormal), and a forest of trees of different scales.
fn exact_scan_at_every_scale(gpu: &Gpu) {
    use rand::RngExt;
    let algo = Algorithm::VECTORIAL_EXACT;
    let t = tree(Topology::RandomRecursive, 3000 + 7, 8);
    let n = t.len();
    let mut rng = generators::rng(21);
    let wide: Vec<f32> = (0..n)
        .map(|_| {
            let m: f32 = rng.random_range(1.0..1.9);
            let e = if rng.random_bool(0.5) {
                rng.random_range(-126..-110)
            } else {
                rng.random_range(110..127)
            };
            let s = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            s * m * 2f32.powi(e)
        })
        .collect();
    let cases: Vec<(&str, Vec<f32>)> = vec![
        ("integers", weights(WeightModel::Integers, n, 1)),
        (
            "gensum 1e30",
            WeightModel::Gensum
                .weights(n, 1e30, &mut generators::rng(2))
                .unwrap(),
        ),
        ("both ends of the range", wide),
        ("normal", weights(WeightModel::Normal, n, 3)),
    ];
    for (what, w) in &cases {
        let limbs = generators::fixed::Scale::for_weights(w)
            .unwrap()
            .gpu_words();
        check_algos(gpu, &t, w, &[algo], &format!("{what} ({limbs} limbs)"));
    }
    let trees: Vec<Tree> = (0..3).map(|i| tree(Topology::Prufer, 2000, i)).collect();
    let jobs: Vec<(&Tree, &[f32])> = trees
        .iter()
        .zip(&cases)
        .map(|(t, (_, w))| (t, &w[..t.len()]))
        .collect();
    for op in Op::ALL {
        let many = gpu.compute_many(&jobs, algo, op).unwrap();
        for (k, (t, w)) in jobs.iter().enumerate() {
            assert_bits(
                &many[k],
                &algo.twin(t, w, op),
                &format!("forest job {k}, {op}"),
            );
        }
    }
}

/// Weights of both signs near 2^-120 and 2^120: nine limbs, sums of both extremes.
fn wide_weights(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let e = if i % 2 == 0 { -120 } else { 120 };
            (1.0 + (i % 7) as f32 / 8.0) * 2f32.powi(e) * if i % 3 == 0 { -1.0 } else { 1.0 }
        })
        .collect()
}

/// Every node's exact reference from the GPU equal to the CPU's: its exact value, Σ|terms|
/// and value rounded to f64, bit for bit.
fn assert_same_reference(from_gpu: &analysis::Reference, cpu: &analysis::Reference, what: &str) {
    assert_eq!(from_gpu.len(), cpu.len(), "{what}: length");
    for v in 0..cpu.len() {
        assert_eq!(
            from_gpu.value_exact(v),
            cpu.value_exact(v),
            "{what} vertex {v}"
        );
        assert_eq!(
            from_gpu.abs_sum_f64(v).to_bits(),
            cpu.abs_sum_f64(v).to_bits(),
            "{what} vertex {v}: Σ|terms|"
        );
        assert_eq!(
            from_gpu.value_f64(v).to_bits(),
            cpu.value_f64(v).to_bits(),
            "{what} vertex {v}: rounded"
        );
    }
}

/// The exact reference from the GPU's exact scan: every node's value and Σ|terms| equal the
/// CPU reference's (1 to 9 limbs, both ops), a −0 weight falls back to the CPU, and a sweep
/// writes the same results.csv bytes with `--exact-on gpu` as without.
fn exact_reference_on_the_gpu(gpu: &Gpu) {
    use analysis::{Reference, ReferenceKind};
    let t = tree(Topology::RandomRecursive, 5000, 12);
    let n = t.len();
    for w in [
        weights(WeightModel::Integers, n, 1),
        weights(WeightModel::Gensum, n, 2),
        wide_weights(n),
    ] {
        for op in Op::ALL {
            let from_gpu = gpu
                .exact_reference_of(&t, &w, op)
                .unwrap()
                .expect("finite, no -0");
            let cpu = Reference::compute(ReferenceKind::Exact, &t, &w, op);
            assert_same_reference(&from_gpu, &cpu, &op.to_string());
        }
    }
    let mut zero = weights(WeightModel::Normal, n, 4);
    zero[3] = -0.0;
    assert!(
        gpu.exact_reference_of(&t, &zero, Op::Leaffix)
            .unwrap()
            .is_none()
    );

    let base = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let sweep = |exact_on: &str| -> Vec<u8> {
        let dir = base.join(format!("exact-reference-{exact_on}"));
        let _ = std::fs::remove_dir_all(&dir);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
            .args([
                "sweep",
                "--cond",
                "1e2,1e12,1e30",
                "--trees",
                "2",
                "--quiet",
            ])
            .args([
                "--topology",
                "chain,star,random-recursive",
                "--nodes",
                "20000",
            ])
            .args(["--algos", "parallel,vectorial,vectorial-exact"])
            .args(["--backend", "gpu", "--exact-on", exact_on])
            .args(["--out", dir.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read(dir.join("results.csv")).unwrap()
    };
    assert!(
        sweep("cpu") == sweep("gpu"),
        "results.csv differs with the exact reference computed on the GPU"
    );
}

/// The exact references of a sweep's batch come from the forest its kernels ran on, with no
/// upload of its own: after vectorial-exact on the forest, the references of every tree equal
/// the CPU's, though the forest's scale is finer than some trees' (integers beside weights near
/// 2^-120: the words are read at each tree's own scale), and a tree with a −0 weight gets
/// none (the CPU computes it). On a device of its own, so that no other test uploads meanwhile.
fn exact_references_of_a_forest_reuse_its_upload(_: &Gpu) {
    use analysis::{Reference, ReferenceKind};
    let gpu = Gpu::with_options(GpuOptions {
        exact_reference: true,
        ..GpuOptions::default()
    })
    .unwrap();
    let trees = [
        tree(Topology::Chain, 3000, 1),
        tree(Topology::RandomRecursive, 5000, 2),
        tree(Topology::Star, 2000, 3),
        tree(Topology::RandomRecursive, 1000, 4),
    ];
    let mut zero = weights(WeightModel::Normal, 1000, 4);
    zero[7] = -0.0;
    let ws = [
        weights(WeightModel::Integers, 3000, 1),
        wide_weights(5000),
        weights(WeightModel::Gensum, 2000, 3),
        zero,
    ];
    let jobs: Vec<(&Tree, &[f32])> = trees.iter().zip(&ws).map(|(t, w)| (t, &w[..])).collect();
    for op in Op::ALL {
        gpu.compute_many(&jobs, Algorithm::VECTORIAL_EXACT, op)
            .unwrap();
        let uploads = gpu.uploads();
        let references = gpu.exact_references_of(&jobs, op).unwrap();
        assert_eq!(
            gpu.uploads(),
            uploads,
            "{op}: the references uploaded the trees again"
        );
        assert_eq!(uploads, 1, "one forest for the kernel and the references");
        assert_eq!(references.len(), jobs.len());
        for (k, ((t, w), r)) in jobs.iter().zip(&references).enumerate() {
            match (k, r) {
                (3, None) => {}
                (3, Some(_)) => panic!("{op}: a −0 weight's tree got a GPU reference"),
                (_, None) => panic!("{op}: tree {k} got no reference"),
                (_, Some(r)) => {
                    let cpu = Reference::compute(ReferenceKind::Exact, t, w, op);
                    assert_same_reference(r, &cpu, &format!("{op} tree {k}"));
                }
            }
        }
    }
}

/// The CPU's exact treefix (`analysis::exact`, one walk of the tree's own order) against the
/// vectorial-exact kernel (an Euler-tour scan): both are the correctly rounded value, so they
/// agree bit for bit whatever the order of their additions. Every topology × child order ×
/// weight model at a few thousand vertices; 2^20 + 7 (two levels of block sums on the GPU, many
/// blocks of the CPU's parallel walk) on a shallow and a deep tree, the deep one with weights
/// spanning f32's whole range (the most limbs, sums overflowing to ±∞).
fn exact_treefix_equals_the_kernel(gpu: &Gpu) {
    let check = |t: &Tree, w: &[f32], what: &str| {
        for op in Op::ALL {
            let got = gpu
                .compute_timed(t, w, Algorithm::VECTORIAL_EXACT, op)
                .unwrap_or_else(|e| panic!("{what} {op}: {e}"))
                .0;
            let want = analysis::exact::correctly_rounded(t, w, op);
            assert_bits(
                &got,
                &want,
                &format!("{what} {op}: kernel vs exact treefix"),
            );
        }
    };
    let n = 3001;
    for topology in Topology::all_defaults() {
        for order in ChildOrder::ALL {
            let t = topology
                .generate(n, order, &mut generators::rng(5))
                .unwrap();
            for model in WeightModel::ALL {
                let w = weights(model, n, 6);
                check(&t, &w, &format!("{topology} {order:?} {model} n={n}"));
            }
        }
    }
    let big = (1 << 20) + 7;
    let t = tree(Topology::RandomRecursive, big, 9);
    check(
        &t,
        &weights(WeightModel::Gensum, big, 10),
        "random-recursive gensum n=2^20+7",
    );
    let full: Vec<f32> = (0..big)
        .map(|i| [f32::from_bits(1), 3e38, -1.5, -3e38, 1e-30][i % 5])
        .collect();
    let t = tree(Topology::Chain, big, 11);
    check(&t, &full, "chain full-range n=2^20+7");
}
