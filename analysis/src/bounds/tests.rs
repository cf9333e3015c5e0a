use super::*;
use crate::Algorithm;
use crate::orders::Walker;
use crate::reference::ReferenceKind;
use generators::{ChildOrder, NO_PARENT};
use rug::Assign;
use rug::ops::Pow;

fn chain(n: usize) -> Tree {
    let parents = (0..n)
        .map(|v| if v == 0 { NO_PARENT } else { v as u32 - 1 })
        .collect();
    Tree::from_parents(parents, ChildOrder::Natural).unwrap()
}

/// `add_up` returns the exact sum rounded upward: never below it, at most one ulp above
/// the nearest sum, and exactly the sum when it is representable.
#[test]
fn add_up_rounds_upward() {
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..100_000 {
        let a = f64::from_bits(next() >> 2) % 1e30;
        let b = (next() >> 11) as f64 * 2f64.powi((next() % 200) as i32 - 100);
        let s = add_up(a, b);
        let mut exact = Float::with_val(2200, a);
        exact += b;
        assert!(Float::with_val(2200, s) >= exact, "{a} + {b}");
        assert!(s <= next_up(a + b));
        let mut diff = Float::with_val(2200, s);
        diff -= &exact;
        if diff.is_zero() {
            continue;
        }
        // Not exact: s is the smallest f64 above the exact sum.
        let below = f64::from_bits(s.to_bits() - 1);
        assert!(Float::with_val(2200, below) < exact, "{a} + {b}");
    }
    assert_eq!(add_up(1.0, 2.0), 3.0);
    assert_eq!(add_up(0.0, 0.0), 0.0);
    // add_down is its mirror image, for any signs.
    for (a, b) in [(1.0, 1e-30), (-1.0, 1e-30), (1e10, -3e-7), (-2.5, -1e-20)] {
        let (lo, hi) = (add_down(a, b), add_up(a, b));
        let mut exact = Float::with_val(2200, a);
        exact += b;
        assert!(Float::with_val(2200, lo) <= exact && exact <= Float::with_val(2200, hi));
        assert!(lo < hi && next_up(lo) == hi, "{a} + {b}");
    }
}

#[test]
fn gammas() {
    assert_eq!(gamma(0), 0.0);
    let g = gamma(1000);
    let exact = 1000.0 * U / (1.0 - 1000.0 * U);
    assert!(g >= exact && g <= exact * (1.0 + 4.0 * f64::EPSILON));
    assert_eq!(gamma(1 << 24), f64::INFINITY);
    // γ̃ grows like λ√k·u and is below γ_k for large k.
    let gt = gamma_tilde(10_000, LAMBDA);
    let x = LAMBDA * 100.0 * U + 10_000.0 * U * U / (1.0 - U);
    // x ≤ e^x − 1 ≤ x(1 + x) for 0 ≤ x ≤ 1.
    assert!(gt >= x && gt <= x * (1.0 + x), "{gt} {x}");
    assert!(gt < gamma(10_000));
    assert!(failure_probability(2f64.powi(49), LAMBDA) < 1e-6);
}

/// On a chain, the term at depth j reaches the node at depth d through d − j + 1 additions
/// (the root's through d): the recursion must equal Σ((1+u)^{d_i} − 1)|t_i| up to the f64
/// roundings of its evaluation — at most 3 upward-rounded operations per addition, each
/// off by ≤ 2 ulp, so a relative 6·(d + 1)·2^-52 — and never be below it.
#[test]
fn recursion_unrolls_to_the_closed_form() {
    let n = 3000;
    let t = chain(n);
    // No zero weight: adding an exact zero is exact and the recursion rightly skips it.
    let w: Vec<f32> = (0..n)
        .map(|i| ((i * 37 % 101) as f32 - 50.5) / 7.0)
        .collect();
    let det = Algorithm::SEQUENTIAL
        .a_priori(&t, &w, Op::Rootfix, LAMBDA)
        .det;
    for v in [1usize, 2, 10, 999, n - 1] {
        let mut exact = Float::with_val(2000, 0);
        let one_plus_u = Float::with_val(2000, 1.0 + U);
        for (j, wj) in w.iter().enumerate().take(v + 1) {
            let d = if j == 0 { v } else { v - j + 1 };
            let mut f = one_plus_u.clone().pow(d as u32);
            f -= 1;
            f *= wj.abs();
            exact += f;
        }
        let tol = 6.0 * (v as f64 + 1.0) * f64::EPSILON;
        assert!(
            Float::with_val(2000, det[v]) >= exact,
            "v={v} {} {}",
            det[v],
            exact.to_f64()
        );
        assert!(
            det[v] <= exact.to_f64() * (1.0 + tol),
            "v={v} {} {}",
            det[v],
            exact.to_f64()
        );
    }
    // And never above the docs/design.md §9.1 closed form γ_depth·Σ_path|w|.
    let mags = orders::tree::rootfix_sequential::<APriori>(&t, &w);
    for v in 0..n {
        let closed = mul_up(gamma(v as u64), mags[v].mag);
        assert!(det[v] <= closed * (1.0 + 4.0 * f64::EPSILON), "v={v}");
    }
}

/// Integer weights make every partial sum exact; the running bound then knows it (0),
/// while the a priori bound cannot.
#[test]
fn running_bound_sees_exact_sums() {
    let t = chain(100);
    let w: Vec<f32> = (0..100).map(|i| (i % 7) as f32 - 3.0).collect();
    for algo in Algorithm::ALL {
        for op in Op::ALL {
            let (_, err) = algo.running(&t, &w, op);
            assert!(err.iter().all(|&e| e == 0.0), "{algo} {op}");
        }
    }
}

/// The scan plan's padding and leaffix's E[close] = 0 are exact and cost nothing: a
/// single vertex has bound 0 for every algorithm.
#[test]
fn zeros_are_free() {
    let t = chain(1);
    for algo in Algorithm::ALL {
        for op in Op::ALL {
            let b = algo.a_priori(&t, &[0.1], op, LAMBDA);
            assert_eq!(
                (b.det[0], b.sharp[0], b.prob[0]),
                (0.0, 0.0, 0.0),
                "{algo} {op}"
            );
        }
    }
}

/// Every bound holds against the exact reference on a small adversarial case:
/// huge cancelling weights beside tiny ones.
#[test]
fn bounds_hold_on_cancellation() {
    let n = 2000;
    let t = chain(n);
    let w: Vec<f32> = (0..n)
        .map(|i| match i % 3 {
            0 => 1e20,
            1 => 3.7e-3 * (i as f32),
            _ => -1e20,
        })
        .collect();
    let mut scratch = Float::new(320);
    for op in Op::ALL {
        let r = Reference::compute(ReferenceKind::Exact, &t, &w, op);
        for algo in Algorithm::ALL {
            let (values, _) = algo.running(&t, &w, op);
            let errors: Vec<NodeError> = values
                .iter()
                .enumerate()
                .map(|(v, &x)| r.error(v, x))
                .collect();
            let b = algo.node_bounds(&t, &w, op, &values);
            let s = summarize(&r, &values, &errors, &b, &mut scratch);
            assert_eq!(
                (s.bound_violations, s.sharp_violations, s.running_violations),
                (0, 0, 0),
                "{algo} {op}: {:?}",
                s.violations
            );
            assert!(s.max_tightness <= 1.0);
        }
    }
}

/// The streamed scan's outputs are the plan's, bit for bit, for every plan and batch size.
#[test]
fn streamed_scan_is_the_plan() {
    fn check<T: Charged + std::fmt::Debug>(e: &[f32], same: impl Fn(&T, &T) -> bool) {
        let term = |p: usize| T::term(e[p]);
        for plan in [Plan::Tiled, Plan::Chained, Plan::Sequential] {
            let mut expected: Vec<T> = e.iter().map(|&x| T::term(x)).collect();
            plan.scan(&mut expected);
            let scan = Scan::new(plan, e.len(), &term);
            for batch_tiles in [1, 3, batch_tiles()] {
                let mut got: Vec<T> = Vec::with_capacity(e.len());
                scan.for_each_batch(&term, batch_tiles, |start, at| {
                    assert_eq!(start, got.len());
                    got.extend(at.iter().map(|a| a.out));
                });
                assert_eq!(got.len(), expected.len());
                let bad = got.iter().zip(&expected).position(|(g, x)| !same(g, x));
                assert_eq!(
                    bad,
                    None,
                    "{plan:?}, {} terms, {batch_tiles} tiles a batch",
                    e.len()
                );
            }
        }
    }
    for len in [1usize, 5, 1024, 1025, 3000, 2 * 1024 * 1024 + 7] {
        let e: Vec<f32> = (0..len)
            .map(|i| ((i * 7919 % 1013) as f32 - 506.3) * 1.7f32.powi((i % 23) as i32 - 11))
            .collect();
        check::<APriori>(&e, |a, b| a == b);
        check::<Running>(&e, |a, b| {
            a.value.to_bits() == b.value.to_bits() && a.err == b.err
        });
    }
}

/// The vectorial bounds read as the scan streams do not depend on how it is cut into batches:
/// one tile a batch keeps most S[open v − 1] on the open path, one batch keeps none there.
#[test]
fn streamed_read_does_not_depend_on_the_batches() {
    let mut rng = generators::rng(11);
    let trees = [
        chain(3000),
        generators::Topology::RandomRecursive
            .generate(5000, ChildOrder::Natural, &mut rng)
            .unwrap(),
    ];
    for t in &trees {
        let w: Vec<f32> = (0..t.len())
            .map(|i| ((i * 7919 % 1013) as f32 - 506.3) * 1.7f32.powi((i % 23) as i32 - 11))
            .collect();
        for op in Op::ALL {
            for plan in [Plan::Tiled, Plan::Chained, Plan::Sequential] {
                let reader = APrioriRead::<F32Add>::new(
                    &TourVertices::new(t, &w),
                    op,
                    GammaTilde::new(LAMBDA),
                );
                let a_priori = |batch_tiles| {
                    let mut out = vec![(0.0, 0.0, 0.0); t.len()];
                    read_tour(
                        (t, &TourVertices::new(t, &w)),
                        (op, plan),
                        &reader,
                        batch_tiles,
                        |v, b| out[v] = b,
                    );
                    out
                };
                assert_eq!(a_priori(1), a_priori(1 << 20), "{op} {plan:?}");
                let running = |batch_tiles| {
                    let mut out = vec![(0u32, 0.0); t.len()];
                    read_tour::<Running, _>(
                        (t, &TourVertices::new(t, &w)),
                        (op, plan),
                        &ReadRunning,
                        batch_tiles,
                        |v, (x, b)| out[v] = (x.to_bits(), b),
                    );
                    out
                };
                assert_eq!(running(1), running(1 << 20), "{op} {plan:?}");
            }
        }
    }
}

#[test]
fn exact_comparison_at_equality() {
    let t = chain(2);
    let w = [1.0f32, 2f32.powi(-24)];
    let r = Reference::compute(ReferenceKind::Exact, &t, &w, Op::Rootfix);
    let mut s = Float::new(320);
    // 1 + 2^-24 rounds (ties to even) to 1: error exactly 2^-24.
    let e = r.error(1, 1.0);
    assert_eq!(e.abs, 2f64.powi(-24));
    assert!(!exceeds(&r, 1, 1.0, e.abs, e.abs, &mut s));
    assert!(exceeds(&r, 1, 1.0, e.abs, e.abs * 0.5, &mut s));
    s.assign(0);
}

/// One walk of an order on (replay, a priori) pairs gives each component what a walk of its
/// own gives, bit for bit: the Euler-tour orders on every plan (f32 and float-float), the
/// tree orders (parallel's level-by-level order included, whose additions are sequential's)
/// and contraction, both ops, weights with zeros and cancellation.
#[test]
fn walking_together_is_walking_alone() {
    let mut rng = generators::rng(12);
    let trees = [
        chain(3000),
        generators::Topology::RandomRecursive
            .generate(5000, ChildOrder::Natural, &mut rng)
            .unwrap(),
        generators::Topology::Star
            .generate(2100, ChildOrder::LightFirst, &mut rng)
            .unwrap(),
    ];
    let bits = |x: &[f64]| x.iter().map(|b| b.to_bits()).collect::<Vec<_>>();
    for t in &trees {
        let w: Vec<f32> = (0..t.len())
            .map(|i| match i % 11 {
                0 => 0.0,
                5 => 3e30,
                6 => -3e30,
                _ => ((i * 7919 % 1013) as f32 - 506.3) * 1.7f32.powi((i % 23) as i32 - 11),
            })
            .collect();
        let walker = Walker::new(t);
        for op in Op::ALL {
            let together = |walked: Walked| {
                let a = walked.a_priori();
                let values: Vec<u32> = walked.values.iter().map(|x| x.to_bits()).collect();
                (
                    values,
                    bits(&walked.running()),
                    bits(&a.det),
                    bits(&a.sharp),
                    bits(&a.prob),
                )
            };
            let tour = TourVertices::new(t, &w);
            for plan in [Plan::Tiled, Plan::Chained, Plan::Sequential] {
                let reader = APrioriRead::<F32Add>::new(&tour, op, GammaTilde::new(LAMBDA));
                let mut alone = Walked::zeros(t.len());
                read_tour((t, &tour), (op, plan), &reader, batch_tiles(), |v, a| {
                    alone.set(v, (0.0, 0.0), a)
                });
                read_tour::<Running, _>((t, &tour), (op, plan), &ReadRunning, 3, |v, (x, b)| {
                    (alone.values[v], alone.bounds[v].running) = (x, b)
                });
                let got = walk_tour(&walker, &w, plan, op, LAMBDA, Arithmetic::F32);
                assert_eq!(together(got), together(alone), "{op} {plan:?}");
            }
            let reader = APrioriRead::<DwAdd>::new(&tour, op, GammaTilde::new(LAMBDA));
            let mut alone = Walked::zeros(t.len());
            read_tour((t, &tour), (op, Plan::Tiled), &reader, 1, |v, a| {
                alone.set(v, (0.0, 0.0), a)
            });
            read_tour::<RunningDw, _>((t, &tour), (op, Plan::Tiled), &ReadRunning, 5, |v, r| {
                (alone.values[v], alone.bounds[v].running) = r
            });
            let got = walk_tour_dw(&walker, &w, Plan::Tiled, op, LAMBDA, Arithmetic::F32);
            assert_eq!(together(got), together(alone), "{op} compensated");
            let gammas = GammaTilde::new(LAMBDA);
            let of_sums = |a: Vec<APriori>, r: Vec<Running>| {
                let mut out = Walked::zeros(t.len());
                for v in 0..t.len() {
                    out.set(v, (r[v].value, r[v].err_up()), gammas.bounds(&a[v]));
                }
                together(out)
            };
            let tree_alone = of_sums(
                orders::tree::parallel(t, &w, op),
                orders::tree::parallel(t, &w, op),
            );
            assert_eq!(
                together(walk_tree(&walker, &w, op, LAMBDA, Arithmetic::F32)),
                tree_alone,
                "{op}"
            );
            let contraction_alone = of_sums(
                orders::contraction::order(t, &w, op),
                orders::contraction::order(t, &w, op),
            );
            let got = walk_contraction(&walker, &w, op, LAMBDA, Arithmetic::F32);
            assert_eq!(together(got), contraction_alone, "{op} contraction");
        }
        // Four orders of three kinds, two ops: one schedule, built on first use.
        assert_eq!(walker.walks(), 2 * 6);
        assert_eq!(walker.schedules_built(), 1);
    }
}

/// The a priori values evaluated to nearest and raised when read (docs/design.md §9.5) bound
/// what they stand for, where every rounding of their evaluation goes down: 1 followed by
/// terms just below half an ulp of 1, each of which the f64 sums lose. Checked on a chain
/// against the recursions evaluated exactly (MPFR): Σ|t_i|, the deterministic bound, the
/// sharp bound with the exact |s| (the smallest it may charge), and the enclosure of s.
#[test]
fn rounding_down_every_time_is_accounted_for() {
    let n = 3000;
    let t = chain(n);
    let tiny = (1.0 - 2f32.powi(-24)) * 2f32.powi(-53);
    let w: Vec<f32> = (0..n).map(|i| if i == 0 { 1.0 } else { tiny }).collect();
    let sums = orders::tree::rootfix_sequential::<APriori>(&t, &w);
    let prec = 4000;
    let (u, one_plus_u) = (Float::with_val(prec, U), Float::with_val(prec, 1.0 + U));
    let mut s = Float::with_val(prec, 0);
    let (mut err, mut sharp) = (Float::with_val(prec, 0), Float::with_val(prec, 0));
    let mut lost = false;
    for (v, x) in sums.iter().enumerate() {
        s += w[v];
        if v > 0 {
            // (1 + u)·B_prev + u·(|t_prev| + |t_v|): here Σ|t| = s.
            err = Float::with_val(prec, &err * &one_plus_u) + Float::with_val(prec, &s * &u);
            sharp = Float::with_val(prec, &sharp * &one_plus_u) + Float::with_val(prec, &s * &u);
        }
        let at_least = |computed: f64, exact: &Float, what: &str| {
            assert!(Float::with_val(prec, computed) >= *exact, "v={v} {what}");
        };
        at_least(x.mag_up(), &s, "Σ|t|");
        at_least(x.err_up(), &err, "deterministic");
        at_least(x.sharp_up(), &sharp, "sharp");
        assert!(Float::with_val(prec, x.lo()) <= s && s <= Float::with_val(prec, x.hi()));
        lost |= Float::with_val(prec, x.mag) < s;
    }
    // The f64 sums did lose the terms: without the raising the bounds would fall short.
    assert!(lost);
}

/// Σ|w| over the subtrees read off the Euler tour is the tree order's, bit for bit, on every
/// topology and child order, with weights whose sums round (exponents 2^-140 to 2^120), zeros
/// of both signs and a vertex of degree in the thousands (the star).
#[test]
fn subtree_magnitudes_on_the_tour_are_the_tree_orders() {
    let mut rounded = false;
    for topology in generators::Topology::all_defaults() {
        for order in ChildOrder::ALL {
            let mut rng = generators::rng(17);
            let t = topology.generate(4099, order, &mut rng).unwrap();
            let w: Vec<f32> = (0..t.len())
                .map(|i| match i % 31 {
                    0 => 0.0,
                    1 => -0.0,
                    _ => {
                        let m = (i * 7919 % 1013) as f32 - 506.3;
                        m * 2f32.powi((i * 37 % 260) as i32 - 140)
                    }
                })
                .collect();
            let want = subtree_magnitudes_in_postorder(&t, &w);
            let got = subtree_magnitudes_on_tour(&TourVertices::new(&t, &w));
            let bits = |x: &[f64]| x.iter().map(|m| m.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "{topology} {order:?}");
            // Some sum rounded: the same order rounded to nearest differs somewhere, so the
            // upward roundings are compared, not only exact sums.
            let nearest = orders::tree::leaffix_sequential::<crate::scan_value::Abs<f64>>(&t, &w);
            rounded |= t
                .postorder()
                .iter()
                .zip(&want)
                .any(|(&v, &m)| m != nearest[v as usize].0);
        }
    }
    assert!(rounded, "no sum rounded");
}
