//! vectorial-compensated: the float-float scan against the exact reference on ill-conditioned
//! gensum sums — its bounds hold and it is correctly rounded (≤ 1 lost bit) wherever its
//! float-float bound proves it. Never losing more than `parallel` + 0.5 bits per tree is not
//! achieved: its error is about u_dw·Σ|E_i| over the Euler-tour prefix, so a node far below
//! that magnitude (a star leaf's rootfix, which parallel gets in one rounding) still loses
//! bits. What is asserted is that cause: wherever it loses more than parallel + 0.5 bits, its
//! worst node's scan accumulated more than that node's own terms (Σ_{i ≤ read}|E_i| >
//! Σ|terms of v|); a loss where the scan saw only the node's own terms would be a bug.

use analysis::{Algorithm, Op, ReferenceKind};
use analysis::{bounds, metrics};
use generators::{ChildOrder, Topology, WeightModel};
use treefix_accuracy::experiment::{self, Cpu, InstanceSpec};
use treefix_accuracy::verdict;

const TOPOLOGIES: [Topology; 5] = [
    Topology::Chain,
    Topology::Star,
    Topology::RandomRecursive,
    Topology::Prufer,
    Topology::CaterpillarLegs,
];
const CONDS: [f64; 4] = [1e2, 1e5, 1e8, 1e12];
const NODES: usize = 3000;
const TREES: u64 = 3;

/// Half an ulp of f32 at the exact value x ≠ 0: 2^(e − 24) for |x| in [2^e, 2^(e+1)), taken at
/// the f64 just below |x| (so an x rounded up to a power of two in f64 gets the smaller ulp),
/// and the subnormal spacing below 2^-126.
fn half_ulp_f32(x: f64) -> f64 {
    let below = f64::from_bits(x.abs().to_bits() - 1);
    let e = ((below.to_bits() >> 52) as i32 - 1023).max(-126);
    2f64.powi(e - 24)
}

/// Evaluates parallel and vectorial-compensated on the grid (topologies × κ × trees, gensum
/// weights) and checks, at every node: no deterministic bound violated (a priori, sharp,
/// running), no probabilistic one either (it is the deterministic one), and the correct
/// rounding the float-float bound proves: if |ŝ − s| ≤ ulp(s)/2 for the float-float value ŝ,
/// then r̂ = RN(ŝ) lies within one ulp(s) of s (RN is monotone and RN(s ± ulp(s)/2) is
/// within ulp(s) of s), a relative error ≤ 2^-23: at most 1 lost bit. Returns the (tree, op)
/// where compensated's worst node loses more than parallel's + 0.5 bits.
fn evaluate_grid() -> Vec<String> {
    let (mut covered, mut nodes) = ([0usize; 2], [0usize; 2]);
    let (mut lines, mut misses) = (Vec::new(), Vec::new());
    for topology in TOPOLOGIES {
        for cond in CONDS {
            let mut worst = [[0f64; 2]; 2]; // [op][parallel, compensated]
            for seed in 0..TREES {
                let spec = InstanceSpec {
                    topology,
                    n: NODES,
                    weights: WeightModel::Gensum,
                    target_cond: cond,
                    child_order: ChildOrder::Natural,
                    seed,
                };
                let inst = spec.generate().unwrap();
                let results = experiment::evaluate(
                    &inst,
                    &Op::ALL,
                    &[Algorithm::PARALLEL, Algorithm::VECTORIAL_COMPENSATED],
                    ReferenceKind::Exact,
                    &Cpu,
                )
                .unwrap();
                let bad = verdict::violations(&format!("{spec:?}"), experiment::measured(&results));
                assert_eq!(bad.count, 0, "{}", bad.lines.join("\n"));
                for (i, r) in results.iter().enumerate() {
                    let [par, vcp] = [0, 1].map(|k| &r.outcomes[k]);
                    assert_eq!(vcp.algorithm, Algorithm::VECTORIAL_COMPENSATED);
                    // Its probabilistic bound is the deterministic one: rigorous.
                    assert_eq!(vcp.bound_summary.prob_violations, 0);
                    let max_bits = |o: &experiment::Outcome| {
                        o.errors.iter().map(|e| e.lost_bits()).fold(0f64, f64::max)
                    };
                    let (p, c) = (max_bits(par), max_bits(vcp));
                    worst[i][0] = worst[i][0].max(p);
                    worst[i][1] = worst[i][1].max(c);
                    if c > p + 0.5 {
                        let worst = (0..vcp.errors.len())
                            .max_by(|&a, &b| {
                                vcp.errors[a]
                                    .lost_bits()
                                    .total_cmp(&vcp.errors[b].lost_bits())
                            })
                            .unwrap();
                        let scanned =
                            metrics::scan_abs_prefix(&inst.tree, &inst.weights, r.op)[worst];
                        let own = r.reference.abs_sum_f64(worst);
                        let line = format!(
                            "{topology} κ={cond:e} seed {seed} {}: compensated {c:.2} bits, \
                             parallel {p:.2}; at vertex {worst} the scan saw {:.1e}× its own terms",
                            r.op,
                            scanned / own
                        );
                        // Both are f64 sums of up to 2·NODES terms (relative error < 1e-12): "more"
                        // means beyond that.
                        assert!(
                            scanned > own * (1.0 + 1e-9),
                            "a loss the scan's magnitude does not explain: {line}"
                        );
                        misses.push(line);
                    }
                    // No flagged node either (x = 0 computed as nonzero): its error has no
                    // relative measure, so count it as a failure of the comparison above.
                    let flagged =
                        |o: &experiment::Outcome| o.errors.iter().filter(|e| e.flagged()).count();
                    assert!(
                        flagged(vcp) <= flagged(par),
                        "{topology} κ={cond:e} {}",
                        r.op
                    );
                    let ff =
                        bounds::compensated_float_float_bounds(&inst.tree, &inst.weights, r.op);
                    for (v, e) in vcp.errors.iter().enumerate() {
                        let x = r.reference.value_f64(v);
                        if x == 0.0 {
                            continue;
                        }
                        nodes[i] += 1;
                        if ff.sharp[v] <= half_ulp_f32(x) {
                            covered[i] += 1;
                            assert!(
                                e.lost_bits() <= 1.0,
                                "{topology} κ={cond:e} seed {seed} {} vertex {v}: {:.2} bits \
                                 with a float-float bound {:e} ≤ half an ulp of {x:e}",
                                r.op,
                                e.lost_bits(),
                                ff.sharp[v]
                            );
                        }
                    }
                }
            }
            lines.push(format!(
                "{:<18} {cond:>7.0e}  rootfix par {:>6.2} vcp {:>6.2}   leaffix par {:>6.2} vcp {:>6.2}",
                topology.to_string(),
                worst[0][0],
                worst[0][1],
                worst[1][0],
                worst[1][1]
            ));
        }
    }
    eprintln!(
        "max lost bits over {TREES} trees of {NODES}:\n{}",
        lines.join("\n")
    );
    eprintln!(
        "correctly rounded by the float-float bound: rootfix {}/{} nodes, leaffix {}/{}",
        covered[0], nodes[0], covered[1], nodes[1]
    );
    // The criterion is not vacuous: it applies to nodes of both ops.
    assert!(covered[0] > 0 && covered[1] > 0);
    misses
}

#[test]
fn compensated_bounds_hold_and_prove_correct_rounding() {
    let misses = evaluate_grid();
    eprintln!(
        "{} of {} (tree, op) lose more than parallel + 0.5 bits, each explained by the scan:\n{}",
        misses.len(),
        TOPOLOGIES.len() * CONDS.len() * TREES as usize * 2,
        misses.join("\n")
    );
}

/// The full a priori bound is the float-float part plus the final rounding to f32,
/// (1 + u)·B_ff + u·|s|, so never below it; and vectorial-compensated's probabilistic bound
/// is its deterministic one.
#[test]
fn final_rounding_only_adds() {
    let inst = InstanceSpec {
        topology: Topology::Prufer,
        n: 2000,
        weights: WeightModel::Gensum,
        target_cond: 1e8,
        child_order: ChildOrder::Natural,
        seed: 9,
    }
    .generate()
    .unwrap();
    for op in Op::ALL {
        let ff = bounds::compensated_float_float_bounds(&inst.tree, &inst.weights, op);
        let full = Algorithm::VECTORIAL_COMPENSATED.a_priori(
            &inst.tree,
            &inst.weights,
            op,
            bounds::LAMBDA,
        );
        for v in 0..inst.tree.len() {
            assert!(
                ff.det[v] <= full.det[v] && ff.sharp[v] <= full.sharp[v],
                "{op} {v}"
            );
            assert!(ff.sharp[v] <= ff.det[v], "{op} {v}");
            // A probabilistic bound equal to the deterministic one (documented choice).
            assert_eq!(full.prob[v], full.det[v]);
        }
    }
}
