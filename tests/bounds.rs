//! Error bounds: the bounds hold on every node of random trees and weights, the
//! running-error replay is the CPU twin bit for bit, a wrong result is caught as a violation
//! (exit code 3), and the fast part of the lost-bits regression suite passes.
//!
//! Tolerances come from the formulas (γ_k, n·u), never from tuning.

mod common;
use common::mpfr::{mpfr_treefix, same};
use common::{accuracy, scratch};

use analysis::bounds::{self, APriori, LAMBDA, U, gamma};
use analysis::scan_plan;
use analysis::scan_value::ScanValue;
use analysis::{Algorithm, Op, ReferenceKind};
use generators::{ChildOrder, Rng, Topology, Tree, WeightModel};
use rand::RngExt as _;
use treefix_accuracy::check;
use treefix_accuracy::experiment::{self, Backend, Cpu, Instance, InstanceSpec};
use treefix_accuracy::verdict;

/// A random topology with random parameters.
fn random_topology(rng: &mut Rng) -> Topology {
    match rng.random_range(0..8) {
        0 => Topology::Chain,
        1 => Topology::Star,
        2 => Topology::RandomRecursive,
        3 => Topology::Prufer,
        4 => Topology::Kary {
            k: rng.random_range(2..9),
        },
        5 => Topology::Broom {
            handle: rng.random_range(0.05..0.95),
        },
        6 => Topology::CaterpillarLegs,
        _ => Topology::Profile {
            depth: rng.random_range(1..60),
            branching: rng.random_range(1.0..4.0),
        },
    }
}

/// Weights spanning many binades with cancellation: ±m·2^k, k uniform in −40..=40, and some
/// large ±pairs (the shape of gensum's output, without depending on it).
fn wide_weights(n: usize, rng: &mut Rng) -> Vec<f32> {
    (0..n)
        .map(|_| {
            let m: f32 = rng.random_range(1.0..2.0);
            let k = rng.random_range(-40..=40);
            let s = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            s * m * 2f32.powi(k)
        })
        .collect()
}

/// Weight kinds of the property test: 0–4 the plain models, 5–6 wide ±2^k weights, 7 gensum.
const KINDS: usize = 8;

fn random_instance(rng: &mut Rng, kind: usize) -> Instance {
    let topology = random_topology(rng);
    let n = rng.random_range(2..4000);
    let order = ChildOrder::ALL[rng.random_range(0..3)];
    let tree = topology.generate(n, order, rng).unwrap();
    // gensum: target κ log-uniform in [1, 1e14] (up to 1e12 and beyond).
    let cond = 10f64.powf(rng.random_range(0.0..14.0));
    let model = [
        WeightModel::Normal,
        WeightModel::Uniform,
        WeightModel::Integers,
        WeightModel::Lognormal,
        WeightModel::Ones,
        WeightModel::Normal, // replaced by wide weights below
        WeightModel::Normal, // replaced by wide weights below
        WeightModel::Gensum,
    ][kind];
    let weights = if kind == 5 || kind == 6 {
        wide_weights(n, rng)
    } else {
        model.weights(n, cond, rng).unwrap()
    };
    Instance {
        spec: InstanceSpec {
            topology,
            n,
            weights: model,
            target_cond: cond,
            child_order: order,
            seed: 0,
        },
        tree,
        weights,
    }
}

/// Random trees × random weights (gensum up to κ = 1e14) ×
/// every algorithm × both ops: no node exceeds its deterministic bounds (a priori, sharp and
/// running), over at least 2·10^6 node checks.
#[test]
fn no_deterministic_bound_violation_over_two_million_nodes() {
    let mut rng = generators::rng(20_260_404);
    let (mut checks, mut prob_violations, mut trees) = (0usize, 0usize, 0usize);
    let (mut gensum_checks, mut max_gensum_cond) = (0usize, 0f64);
    let mut max_tightness = 0f64;
    while checks < 2_000_000 {
        let kind = trees % KINDS;
        let inst = random_instance(&mut rng, kind);
        let node_checks = inst.tree.len() * Op::ALL.len() * Algorithm::ALL.len();
        if kind == 7 {
            gensum_checks += node_checks;
            max_gensum_cond = max_gensum_cond.max(experiment::achieved_cond(&inst.weights));
        }
        let results =
            experiment::evaluate(&inst, &Op::ALL, &Algorithm::ALL, ReferenceKind::Exact, &Cpu)
                .unwrap();
        let bad = verdict::violations(&format!("{:?}", inst.spec), experiment::measured(&results));
        assert_eq!(bad.count, 0, "{}", bad.lines.join("\n"));
        for r in &results {
            for o in &r.outcomes {
                checks += o.values.len();
                prob_violations += o.bound_summary.prob_violations;
                max_tightness = max_tightness.max(o.bound_summary.max_tightness);
                // The replay bound applies: CPU twins' values equal the replay (which the
                // GPU check of a sweep relies on).
                assert_eq!(o.bounds.replay_mismatches, 0, "{} {}", o.algorithm, o.op);
                assert!(o.bounds.iter().all(|b| b.running.is_finite()));
            }
        }
        trees += 1;
    }
    assert!(max_tightness <= 1.0);
    assert!(gensum_checks >= 200_000 && max_gensum_cond >= 1e12);
    eprintln!(
        "{checks} node checks on {trees} trees ({gensum_checks} with gensum weights, achieved κ up to \
         {max_gensum_cond:.1e}): 0 deterministic violations, {prob_violations} probabilistic \
         (λ = {LAMBDA}), max tightness {max_tightness:.3}"
    );
}

/// The contraction order on chains, stars, random recursive trees, Prüfer trees and
/// caterpillars with gensum weights at κ = 1e2, 1e5, 1e8, 1e12: no node above its
/// deterministic bounds (a priori, sharp, running). And its summation tree is shallow, as its
/// schedule promises: a round adds at most one compress (1 addition) and one rake
/// (⌈log₂ m⌉ + 1, m ≤ Δ leaves) to a cluster's sum, and the uncontraction at most one
/// addition per round (plus the final + w[v] of rootfix), so every term goes through at most
/// rounds·(3 + ⌈log₂ Δ⌉) + 1 additions.
#[test]
fn contraction_bounds_hold_and_its_sums_are_shallow() {
    let n = 3000;
    for (i, topology) in [
        Topology::Chain,
        Topology::Star,
        Topology::RandomRecursive,
        Topology::Prufer,
        Topology::CaterpillarLegs,
    ]
    .into_iter()
    .enumerate()
    {
        for (j, cond) in [1e2, 1e5, 1e8, 1e12].into_iter().enumerate() {
            let spec = InstanceSpec {
                topology,
                n,
                weights: WeightModel::Gensum,
                target_cond: cond,
                child_order: ChildOrder::Natural,
                seed: (10 * i + j) as u64,
            };
            let inst = spec.generate().unwrap();
            let results = experiment::evaluate(
                &inst,
                &Op::ALL,
                &[Algorithm::CONTRACTION],
                ReferenceKind::Exact,
                &Cpu,
            )
            .unwrap();
            let bad = verdict::violations(&format!("{spec:?}"), experiment::measured(&results));
            assert_eq!(bad.count, 0, "{}", bad.lines.join("\n"));
            let rounds = analysis::orders::contraction::Schedule::new(&inst.tree)
                .rounds()
                .len() as u32;
            let log_delta = inst
                .tree
                .max_out_degree()
                .next_power_of_two()
                .trailing_zeros();
            for op in Op::ALL {
                let b: Vec<APriori> =
                    analysis::orders::contraction::order(&inst.tree, &inst.weights, op);
                let depth = b.iter().map(|x| x.depth).max().unwrap();
                assert!(
                    depth <= rounds * (3 + log_delta) + 1,
                    "{topology} {op}: depth {depth}, {rounds} rounds"
                );
            }
        }
    }
}

/// The running-error replay performs the twin's additions: equal values bit for bit. For a
/// correctly rounded algorithm the replay and the twin are the same computation (the exact
/// treefix rounded once), so equality between them proves nothing: both must equal MPFR's
/// rounding of the exact sums, computed here independently.
#[test]
fn running_replay_is_the_twin_bit_for_bit() {
    let mut rng = generators::rng(7);
    let mut against_mpfr = 0;
    for topology in Topology::all_defaults() {
        for n in [1, 2, 3, 511, 512, 513, 1500] {
            for order in ChildOrder::ALL {
                let tree = topology.generate(n, order, &mut rng).unwrap();
                let w = wide_weights(n, &mut rng);
                for op in Op::ALL {
                    let mpfr = mpfr_treefix(&tree, &w, op);
                    for algo in Algorithm::ALL {
                        let twin = algo.twin(&tree, &w, op);
                        let (replay, _) = algo.running(&tree, &w, op);
                        let same_bits = twin
                            .iter()
                            .zip(&replay)
                            .all(|(a, b)| a.to_bits() == b.to_bits());
                        assert!(same_bits, "{topology} n={n} {order} {algo} {op}");
                        if algo.correctly_rounded() {
                            against_mpfr += 1;
                            let v = (0..n).find(|&v| !same(replay[v], mpfr[v]));
                            assert_eq!(v, None, "{topology} n={n} {order} {algo} {op}: MPFR");
                        }
                    }
                }
            }
        }
    }
    assert!(
        against_mpfr > 0,
        "no correctly rounded algorithm was checked"
    );
}

/// The vectorial bound is at most γ_D·Σ_{i ≤ open v}|E_i| (κ^E's numerator) where D is the
/// scan plan's depth: ≤ 3 serial + 8 Kogge–Stone + 1 prefix = 12 additions within a tile,
/// and 12 + 12 + 1 = 25 with one level of block sums. Also parallel and sequential share a
/// bound (same additions), which never exceeds γ_depth·Σ_path|w|.
#[test]
fn bounds_match_the_closed_forms() {
    let mut rng = generators::rng(11);
    for (n, depth) in [(500usize, 12u64), (5000, 25)] {
        for topology in Topology::all_defaults() {
            let tree = topology.generate(n, ChildOrder::Natural, &mut rng).unwrap();
            let w = wide_weights(n, &mut rng);
            let b = Algorithm::VECTORIAL.a_priori(&tree, &w, Op::Rootfix, LAMBDA);
            let det = &b.det;
            // The sharp bound follows the same tree with smaller charges.
            assert!(b.sharp.iter().zip(det).all(|(s, d)| s <= d));
            let prefix = analysis::metrics::scan_abs_prefix(&tree, &w, Op::Rootfix);
            let g = gamma(depth);
            // The closed form is evaluated to nearest: its prefix sum of ≤ 2n terms and the
            // product round at most 2n + 1 times, each by ≤ ε/2 relative.
            let tol = 1.0 + (2 * n + 1) as f64 * f64::EPSILON;
            for v in 0..n {
                assert!(det[v] <= g * prefix[v] * tol, "{topology} n={n} v={v}");
            }
            let seq = Algorithm::SEQUENTIAL
                .a_priori(&tree, &w, Op::Rootfix, LAMBDA)
                .det;
            let par = Algorithm::PARALLEL
                .a_priori(&tree, &w, Op::Rootfix, LAMBDA)
                .det;
            assert_eq!(seq, par);
            let reference =
                analysis::Reference::compute(ReferenceKind::Exact, &tree, &w, Op::Rootfix);
            for (v, s) in seq.iter().enumerate() {
                let closed = gamma(tree.depth(v as u32) as u64) * reference.abs_sum_f64(v);
                assert!(
                    *s <= closed * (1.0 + 3.0 * f64::EPSILON),
                    "{topology} v={v}"
                );
            }
        }
    }
}

/// The probabilistic bound never exceeds the deterministic one by more than the final
/// subtraction's u·|l| terms allow, and it is below it once sums are deep: λ√D < D.
#[test]
fn probabilistic_bound_is_tighter_for_deep_sums() {
    let n = 20_000;
    let tree = Topology::Chain
        .generate(n, ChildOrder::Natural, &mut generators::rng(1))
        .unwrap();
    let w = vec![1.0f32; n];
    let b = Algorithm::SEQUENTIAL.a_priori(&tree, &w, Op::Rootfix, LAMBDA);
    let (det, prob) = (&b.det, &b.prob);
    // All ones on a chain: det ≥ u·d(d+1)/2 and prob = γ̃_d(λ)·(d+1) ≈ λ√d·u·(d+1), so the
    // probabilistic bound is the smaller once λ√d < d/2, i.e. d > 4λ²; from d = 5λ² on the
    // margin (√5/2) dwarfs γ̃'s second-order terms.
    for v in (5.0 * LAMBDA * LAMBDA) as usize..n {
        assert!(prob[v] < det[v], "v={v}");
    }
    // At depth 1 both are one rounding: γ̃_1(λ)·A ≈ λ·u·A ≥ u·A.
    assert!(prob[1] >= det[1]);
    // Unrolled a priori on all-ones at depth d: Σ_j ((1+u)^{d_j} − 1) ≥ u·d(d+1)/2 ... and
    // below γ_d·(d+1).
    let d = (n - 1) as f64;
    assert!(det[n - 1] >= U * d * (d + 1.0) / 2.0);
    assert!(det[n - 1] <= gamma(n as u64 - 1) * (d + 1.0));
}

/// Exact zeros (padding, leaffix's E[close] = 0) are free: a scan of a vector whose nonzero
/// entries are all at one position has bound 0 everywhere.
#[test]
fn exact_zeros_cost_nothing() {
    let mut e: Vec<APriori> = (0..3000)
        .map(|i| APriori::term(if i == 1234 { 3.5 } else { 0.0 }))
        .collect();
    scan_plan::inclusive_scan(&mut e);
    assert!(
        e.iter()
            .all(|x| x.err == 0.0 && x.sharp == 0.0 && x.depth == 0)
    );
    assert_eq!(APriori::zero().plus(APriori::term(1.0)), APriori::term(1.0));
}

/// One rounding, charged u·|x| by the sharp bound: a star's rootfix is one addition per
/// leaf, correctly rounded, so the sharp bound allows 0 lost bits (lost_bits(u) = 0) however
/// much the addition cancels, while Σγ|t_i| allows log2 κ_v of them.
#[test]
fn sharp_bound_of_one_addition_is_one_rounding() {
    let n = 1000;
    let tree = Topology::Star
        .generate(n, ChildOrder::Natural, &mut generators::rng(1))
        .unwrap();
    let mut w = wide_weights(n, &mut generators::rng(2));
    w[0] = 1e6;
    let b = Algorithm::PARALLEL.a_priori(&tree, &w, Op::Rootfix, LAMBDA);
    let r = analysis::Reference::compute(ReferenceKind::Exact, &tree, &w, Op::Rootfix);
    for v in 1..n {
        let x = r.value_f64(v).abs();
        // u·|x| rounded up through an enclosure: within a relative 4ε of it.
        assert!(b.sharp[v] >= U * x && b.sharp[v] <= U * x * (1.0 + 4.0 * f64::EPSILON));
        assert_eq!(bounds::bound_lost_bits(b.sharp[v], x), Some(0.0));
        // Σγ|t_i| charges u·(|w_0| + |w_v|), rounded up.
        let a = w[0].abs() as f64 + w[v].abs() as f64;
        assert!(b.det[v] >= U * a * (1.0 - f64::EPSILON));
    }
}

/// A backend returning wrong values: the deterministic bounds catch them, and the error is
/// the documented exit code 3.
#[test]
fn a_wrong_result_is_a_violation_with_exit_code_3() {
    struct Corrupt;
    impl Backend for Corrupt {
        fn describe(&self) -> String {
            "corrupt".into()
        }
        fn device(&self) -> treefix_accuracy::Device {
            treefix_accuracy::Device::Gpu
        }
        fn compute(
            &self,
            tree: &Tree,
            w: &[f32],
            algo: Algorithm,
            op: Op,
        ) -> Result<Vec<f32>, treefix_accuracy::Error> {
            let mut v = algo.twin(tree, w, op);
            // 1% relative on one node: far above any bound at this size and conditioning.
            v[tree.len() / 2] *= 1.01;
            Ok(v)
        }
    }
    let spec = InstanceSpec {
        topology: Topology::Prufer,
        n: 1000,
        weights: WeightModel::Lognormal,
        target_cond: 1.0,
        child_order: ChildOrder::Natural,
        seed: 3,
    };
    let inst = spec.generate().unwrap();
    let results = experiment::evaluate(
        &inst,
        &Op::ALL,
        &[Algorithm::PARALLEL, Algorithm::VECTORIAL],
        ReferenceKind::Exact,
        &Corrupt,
    )
    .unwrap();
    let bad = verdict::violations("test", experiment::measured(&results));
    // Every corrupted node violates both a priori bounds (Σγ|t| and sharp).
    assert_eq!(bad.count, 8, "{:?}", bad.lines);
    assert!(bad.lines.iter().all(|l| l.contains("vertex 500")));
    let err = verdict::fail_on_violations(&bad, ReferenceKind::Exact).unwrap_err();
    assert_eq!(err.exit_code(), 3);
    // The replay does not describe a corrupted value: no running bound is claimed there.
    let o = &results[0].outcomes[0];
    assert_eq!(o.bounds[500].running, f64::INFINITY);
    assert_eq!(o.bounds.replay_mismatches, 1);
}

/// The fastest part of `accuracy check` — one tree of every cell of the
/// suite — against the committed baseline.
#[test]
fn fast_check_suite_against_the_baseline() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(check::DEFAULT_BASELINE);
    let baseline = check::read_baseline(&path).expect("reports/baseline.json is committed");
    assert_eq!(
        baseline.suite,
        check::suite(),
        "the suite changed: run `accuracy check --update`"
    );
    let m = check::measure(&check::fast_suite(), &Cpu).unwrap();
    assert_eq!(m.violations.count, 0, "{}", m.violations.lines.join("\n"));
    let changed = check::changed_instances(&baseline, &m.instances);
    assert!(changed.is_empty(), "{}", changed.join("\n"));
    let diffs = check::compare(&baseline, &m.entries, check::TOLERANCE_BITS);
    let failures: Vec<_> = diffs.iter().filter(|d| d.fails).cloned().collect();
    assert!(
        failures.is_empty(),
        "\n{}",
        check::render_differences(&failures, check::TOLERANCE_BITS)
    );
}

/// `bounds-table` prints the table and writes CSV, JSON and text; `sweep` and `run` carry
/// the bound columns.
#[test]
fn cli_bound_outputs() {
    let dir = scratch("cli");
    let table = dir.join("table");
    let o = accuracy(&[
        "bounds-table",
        "--nodes",
        "300",
        "--trees",
        "1",
        "--cond",
        "1e3,1e6",
        "--topology",
        "chain,star",
        "--out",
        table.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("κ target 1e6") && stdout.contains("vectorial-seqscan"));
    let csv = std::fs::read_to_string(table.join("bounds-table.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for col in [
        "max_lost_bits",
        "max_bound_lost_bits",
        "median_tightness",
        "extra_bits_agreement",
    ] {
        assert!(header.split(',').any(|c| c == col), "{col}");
    }
    // 2 topologies × 2 conds × 2 ops × every algorithm (the default).
    assert_eq!(csv.lines().count(), 1 + 8 * Algorithm::ALL.len());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(table.join("bounds-table.json")).unwrap())
            .unwrap();
    assert_eq!(json["lambda"], LAMBDA);
    assert!(table.join("bounds-table.txt").exists());

    let sweep = dir.join("sweep");
    let o = accuracy(&[
        "sweep",
        "--cond",
        "1e4",
        "--points",
        "1",
        "--trees",
        "1",
        "--nodes",
        "200",
        "--quiet",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(sweep.join("results.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for col in [
        "bound_violations",
        "prob_violations",
        "median_tightness",
        "max_tightness",
    ] {
        assert!(header.split(',').any(|c| c == col), "{col}");
    }

    // Vectorial rows of the dump carry predicted and measured extra bits; others leave them empty.
    let dump = dir.join("dump.csv");
    let o = accuracy(&[
        "run",
        "--topology",
        "prufer",
        "--nodes",
        "100",
        "--dump",
        dump.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&dump).unwrap();
    let mut lines = text.lines();
    let cols: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| cols.iter().position(|c| *c == name).unwrap();
    let (algo, bound, pred, meas) = (
        at("algorithm"),
        at("bound"),
        at("pred_extra_bits"),
        at("meas_extra_bits"),
    );
    let mut filled = 0;
    for line in lines {
        let r: Vec<&str> = line.split(',').collect();
        assert!(r[bound].parse::<f64>().unwrap() >= 0.0);
        // Empty where x = 0 (no relative error) and for the non-vectorial rows.
        assert_eq!(r[pred].is_empty(), r[meas].is_empty());
        if !r[algo].starts_with("vectorial") {
            assert!(r[pred].is_empty());
        } else if !r[pred].is_empty() {
            filled += 1;
        }
    }
    assert!(filled > 0);
    let _ = std::fs::remove_dir_all(&dir);

    for bad in [
        &["bounds-table", "--cond", "-5"][..],
        &["check", "--frobnicate"],
    ] {
        assert_eq!(accuracy(bad).status.code(), Some(2), "{bad:?}");
    }
}
