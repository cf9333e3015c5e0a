//! vectorial-exact: every node's result is the exact rootfix or leaffix rounded to the nearest
//! f32, ties to even, as MPFR rounds it — the exact values summed along the tree in MPFR here,
//! independently of the fixed-point walk (its twin) and of the exact reference — and neither
//! the scan plan of its GPU kernel nor the walk's order changes a bit (any pairing of integer
//! additions gives the same sums).

mod common;
use common::mpfr::{PREC, mpfr_treefix, same};

use analysis::bounds;
use analysis::orders::euler;
use analysis::scan_plan::Plan;
use analysis::scan_value::ScanValue;
use analysis::{Algorithm, Op, ReferenceKind, metrics};
use generators::fixed::{Fixed, Scale};
use generators::io::{ReadOptions, read_tree};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use rug::Float;
use std::path::Path;
use treefix_accuracy::experiment::{self, Cpu, InstanceSpec};
use treefix_accuracy::verdict;

/// Asserts the twin's results are MPFR's correct rounding on every node and op; returns the
/// nodes checked.
fn check(what: &str, tree: &Tree, w: &[f32]) -> usize {
    for op in Op::ALL {
        let got = Algorithm::VECTORIAL_EXACT.twin(tree, w, op);
        let want = mpfr_treefix(tree, w, op);
        let bad: Vec<usize> = (0..tree.len())
            .filter(|&v| !same(got[v], want[v]))
            .collect();
        assert!(
            bad.is_empty(),
            "{what} {op}: {} of {} nodes not correctly rounded, first vertex {}: {:e} against MPFR {:e}",
            bad.len(),
            tree.len(),
            bad[0],
            got[bad[0]],
            want[bad[0]]
        );
    }
    2 * tree.len()
}

fn instance(
    topology: Topology,
    n: usize,
    weights: WeightModel,
    cond: f64,
    order: ChildOrder,
    seed: u64,
) -> experiment::Instance {
    InstanceSpec {
        topology,
        n,
        weights,
        target_cond: cond,
        child_order: order,
        seed,
    }
    .generate()
    .unwrap()
}

/// Every topology family × every weight model (gensum at κ 1e1 … 1e30) × every child order.
#[test]
fn correctly_rounded_on_every_family_model_and_order() {
    let mut nodes = 0;
    for topology in Topology::all_defaults() {
        for order in ChildOrder::ALL {
            for model in WeightModel::ALL {
                let conds: &[f64] = if model == WeightModel::Gensum {
                    &[1e1, 1e4, 1e8, 1e12, 1e16, 1e20, 1e30]
                } else {
                    &[1.0]
                };
                for (seed, &cond) in conds.iter().enumerate() {
                    let inst = instance(topology, 1500, model, cond, order, seed as u64);
                    let what = format!("{topology} {order} {model} κ={cond:e}");
                    nodes += check(&what, &inst.tree, &inst.weights);
                }
            }
        }
    }
    assert!(nodes > 8 * 3 * 12 * 2 * 1500 - 1, "{nodes} nodes checked");
}

/// Sizes from one vertex to past two levels of block sums (2^20 + 7 vertices: a tour of
/// 2^21 + 14 positions, three levels of the scan plan).
#[test]
fn correctly_rounded_at_every_size() {
    for (i, n) in [1, 2, 3, 511, 512, 513, 1024, 1025, 4099, 100_003]
        .into_iter()
        .enumerate()
    {
        for topology in [Topology::Chain, Topology::Star, Topology::RandomRecursive] {
            // gensum needs a few terms to reach its condition number.
            let model = if n < 3 {
                WeightModel::Normal
            } else {
                WeightModel::Gensum
            };
            let inst = instance(topology, n, model, 1e12, ChildOrder::Natural, i as u64);
            check(&format!("{topology} n={n}"), &inst.tree, &inst.weights);
        }
    }
    for topology in [Topology::Chain, Topology::RandomRecursive] {
        let inst = instance(
            topology,
            (1 << 20) + 7,
            WeightModel::Gensum,
            1e8,
            ChildOrder::Natural,
            11,
        );
        check(&format!("{topology} n=2^20+7"), &inst.tree, &inst.weights);
    }
}

/// The library's `exact` is MPFR's rounding bit for bit, IEEE's signs of zero and non-finite
/// sums included (`exact::rounded`): on finite weights it takes vectorial-exact's twin
/// (several blocks of its walk on 2 threads at this size) and sets the sums of −0 terms to
/// −0, on the others the exact sums along the sequential orders.
#[test]
fn the_library_exact_is_mpfr_bit_for_bit() {
    let n = 100_003;
    for (i, topology) in [Topology::Chain, Topology::Star, Topology::RandomRecursive]
        .into_iter()
        .enumerate()
    {
        let inst = instance(
            topology,
            n,
            WeightModel::Gensum,
            1e8,
            ChildOrder::Natural,
            i as u64,
        );
        let finite = inst.weights;
        // Every other weight −0 (a leaf of −0, and a star's root and its −0 leaves, sum to −0),
        // and a ±∞ pair (sums holding both are NaN).
        let mut zeros = finite.clone();
        zeros.iter_mut().step_by(2).for_each(|x| *x = -0.0);
        let mut infinite = finite.clone();
        infinite[n / 3] = f32::INFINITY;
        infinite[2 * n / 3] = f32::NEG_INFINITY;
        for (what, w) in [("finite", finite), ("-0", zeros), ("±∞", infinite)] {
            for op in Op::ALL {
                let got = treefix_accuracy::exact(&inst.tree, &w, op).unwrap();
                let want = mpfr_treefix(&inst.tree, &w, op);
                let bad: Vec<usize> = (0..n)
                    .filter(|&v| {
                        got[v].to_bits() != want[v].to_bits()
                            && !(got[v].is_nan() && want[v].is_nan())
                    })
                    .collect();
                assert!(
                    bad.is_empty(),
                    "{topology} {what} {op}: {} of {n} differ, first vertex {}: {:e} against MPFR {:e}",
                    bad.len(),
                    bad[0],
                    got[bad[0]],
                    want[bad[0]]
                );
                // Some result is −0 to check (the root's rootfix is its weight, −0 here, and so
                // is the leaffix of a leaf of −0), so the comparison above covers the sign.
                if what == "-0" {
                    assert!(
                        got.iter().any(|x| x.to_bits() == 0x8000_0000),
                        "{topology} {op}"
                    );
                }
            }
        }
    }
}

/// The real trees of the test data, with their own branch lengths or matrix values and with
/// gensum weights at κ = 1e16.
#[test]
fn correctly_rounded_on_real_trees() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("generators/tests/data");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let file = read_tree(&path, &ReadOptions::default()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Ok(Some(own)) = file.own_weights() {
            check(&format!("{name} (own weights)"), &file.tree, own);
        }
        let mut rng = generators::rng(5);
        let w = WeightModel::Gensum
            .weights(file.tree.len(), 1e16, &mut rng)
            .unwrap();
        check(&format!("{name} (gensum 1e16)"), &file.tree, &w);
        files += 1;
    }
    assert!(files >= 6, "{files} tree files");
}

/// Weights that reach the ends of f32's range: the most limbs, subnormal and infinite results.
#[test]
fn correctly_rounded_at_the_ends_of_the_range() {
    let tree = instance(
        Topology::RandomRecursive,
        3000,
        WeightModel::Ones,
        1.0,
        ChildOrder::Natural,
        3,
    )
    .tree;
    let mut rng = generators::rng(9);
    use rand::RngExt;
    for case in 0..6 {
        let w: Vec<f32> = (0..tree.len())
            .map(|_| {
                let m: f32 = rng.random_range(1.0..2.0);
                let s = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
                let e = match case {
                    // Normal weights near the subnormals: subnormal leaffix differences.
                    0 => rng.random_range(-126..-100),
                    // Near the top: sums beyond f32's range are ±∞.
                    1 => rng.random_range(100..128),
                    // Both ends at once: 10 limbs.
                    2 => {
                        if rng.random_bool(0.5) {
                            rng.random_range(-126..-120)
                        } else {
                            rng.random_range(120..128)
                        }
                    }
                    _ => rng.random_range(-60..60),
                };
                if e == 127 {
                    s * m.min(1.9) * 2f32.powi(126) * 2.0
                } else {
                    s * m * 2f32.powi(e)
                }
            })
            .collect();
        assert!(w.iter().all(|x| x.is_normal()));
        check(&format!("range case {case}"), &tree, &w);
    }
}

/// Another scan shape: tiles of `tile` elements scanned left to right, their totals scanned the
/// same way (recursively), each tile after the first offset by the prefix of the tiles before.
fn blocked_scan<T: ScanValue>(data: &mut [T], tile: usize) {
    let sequential = |c: &mut [T]| {
        for i in 1..c.len() {
            c[i] = c[i - 1].plus(c[i]);
        }
    };
    if data.len() <= tile {
        sequential(data);
        return;
    }
    let mut prefix: Vec<T> = data
        .chunks_mut(tile)
        .map(|c| {
            sequential(c);
            *c.last().unwrap()
        })
        .collect();
    blocked_scan(&mut prefix, tile);
    for (k, c) in data.chunks_mut(tile).enumerate().skip(1) {
        for x in c {
            *x = prefix[k - 1].plus(*x);
        }
    }
}

/// The fixed-point Euler-tour scan with [`blocked_scan`]'s shape, read and rounded as the
/// algorithm reads and rounds.
fn exact_with_tiles(tree: &Tree, w: &[f32], op: Op, tile: usize) -> Vec<u32> {
    let scale = Scale::for_weights(w).unwrap();
    analysis::with_limbs!(scale.limbs(), L => {
        let mut s: Vec<Fixed<L>> = euler::write_with(tree, w, op, |x| scale.term(x));
        blocked_scan(&mut s, tile);
        (0..tree.len())
            .map(|v| {
                let open = tree.open()[v] as usize;
                let k = match op {
                    Op::Rootfix => s[open],
                    Op::Leaffix => {
                        let close = s[tree.close()[v] as usize];
                        if open == 0 { close } else { close - s[open - 1] }
                    }
                };
                scale.to_f32(k).to_bits()
            })
            .collect()
    })
}

/// The plan does not matter: the tiled plan (the GPU kernel's), the chained plan, the plain
/// sequential scan and blocked scans with tiles of 3, 100 and 5000 elements give the same bits
/// on a tour of three plan levels, and so does the twin's walk of the tree.
#[test]
fn the_plan_changes_no_bit() {
    let inst = instance(
        Topology::RandomRecursive,
        (1 << 19) + 3,
        WeightModel::Gensum,
        1e16,
        ChildOrder::LightFirst,
        4,
    );
    for op in Op::ALL {
        let bits = |plan| -> Vec<u32> {
            euler::vectorial_exact(&inst.tree, &inst.weights, plan, op)
                .into_iter()
                .map(f32::to_bits)
                .collect()
        };
        let tiled = bits(Plan::Tiled);
        let twin: Vec<u32> = Algorithm::VECTORIAL_EXACT
            .twin(&inst.tree, &inst.weights, op)
            .into_iter()
            .map(f32::to_bits)
            .collect();
        assert_eq!(tiled, twin, "{op}: the twin's walk");
        assert_eq!(tiled, bits(Plan::Chained), "{op}: chained");
        assert_eq!(tiled, bits(Plan::Sequential), "{op}: sequential");
        for tile in [3, 100, 5000] {
            assert_eq!(
                tiled,
                exact_with_tiles(&inst.tree, &inst.weights, op, tile),
                "{op}: tiles of {tile}"
            );
        }
    }
}

/// Through the toolkit: the exact reference (fixed point with round to odd, another
/// implementation) finds 0 ulps and 0 lost bits at every node, and the half-ulp bound holds.
#[test]
fn zero_ulps_against_the_reference_and_bounds_hold() {
    for topology in Topology::all_defaults() {
        for (seed, cond) in [1e2, 1e8, 1e12, 1e30].into_iter().enumerate() {
            let inst = instance(
                topology,
                2000,
                WeightModel::Gensum,
                cond,
                ChildOrder::Natural,
                seed as u64,
            );
            let results = experiment::evaluate(
                &inst,
                &Op::ALL,
                &[Algorithm::VECTORIAL, Algorithm::VECTORIAL_EXACT],
                ReferenceKind::Exact,
                &Cpu,
            )
            .unwrap();
            let what = format!("{topology} κ={cond:e}");
            let bad = verdict::violations(&what, experiment::measured(&results));
            assert_eq!(bad.count, 0, "{}", bad.lines.join("\n"));
            for r in &results {
                let exact = &r.outcomes[1];
                assert_eq!(exact.algorithm, Algorithm::VECTORIAL_EXACT);
                for (v, &x) in exact.values.iter().enumerate() {
                    assert_eq!(
                        metrics::ulps(x, r.reference.rounded_f32(v)),
                        Some(0),
                        "{what} {} vertex {v}",
                        r.op
                    );
                }
                assert_eq!(exact.summary.max_lost_bits, 0.0, "{what} {}", r.op);
                assert_eq!(exact.bound_summary.prob_violations, 0);
            }
        }
    }
}

/// One ulp off is a violation of its bound: the check can fail.
#[test]
fn one_ulp_off_violates_the_bound() {
    let inst = instance(
        Topology::Prufer,
        500,
        WeightModel::Gensum,
        1e8,
        ChildOrder::Natural,
        2,
    );
    let op = Op::Leaffix;
    let (tree, w) = (&inst.tree, &inst.weights);
    let reference = analysis::Reference::compute(ReferenceKind::Exact, tree, w, op);
    let mut scratch = Float::new(PREC);
    let mut summarize = |values: &[f32]| {
        let errors: Vec<_> = (0..tree.len())
            .map(|v| reference.error(v, values[v]))
            .collect();
        let node_bounds = Algorithm::VECTORIAL_EXACT.node_bounds(tree, w, op, values);
        bounds::summarize(&reference, values, &errors, &node_bounds, &mut scratch)
    };
    let mut values = Algorithm::VECTORIAL_EXACT.twin(tree, w, op);
    assert_eq!(summarize(&values).bound_violations, 0);
    values[7] = f32::from_bits(values[7].to_bits() + 1);
    let off = summarize(&values);
    assert_eq!((off.bound_violations, off.sharp_violations), (1, 1));
}
