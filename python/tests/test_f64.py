"""Kernels that store and add float64: graded in f64 (53 bits, f64 ulps) against the exact
treefix rounded once to f64, checked here by Python's own exact arithmetic (fractions)."""

from fractions import Fraction

import numpy as np
import pytest

import treefix_accuracy as ta

N = 2000


def ill_conditioned(n, seed=3):
    """f64 weights of 53 bits over twelve decades, their sum cancelled to almost nothing."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(n) * 10.0 ** rng.uniform(0, 12, n)
    w[-1] = -np.sum(w[:-1]) + 0.123456789
    return ta.generate_tree("chain", n), w


def exact_cumsum(w):
    """Every prefix sum exactly (fractions), rounded once to the nearest f64 (ties to even)."""
    acc, out = Fraction(0), []
    for x in w:
        acc += Fraction(float(x))
        out.append(float(acc))  # Fraction → float rounds to nearest, ties to even
    return np.array(out)


def test_the_exact_f64_treefix_is_the_exact_sums_rounded_once():
    chain, w = ill_conditioned(N)
    got = ta.exact(chain, w, "rootfix")
    assert got.dtype == np.float64
    assert np.array_equal(got, exact_cumsum(w))
    # The leaffix of a chain is the reversed cumsum of the reversed weights.
    assert np.array_equal(ta.exact(chain, w, "leaffix"), exact_cumsum(w[::-1])[::-1])


def test_numpys_float64_cumsum_is_our_sequential_twin_and_loses_bits():
    chain, w = ill_conditioned(N)
    mine = np.cumsum(w)
    assert np.array_equal(mine, ta.rootfix(chain, w, "sequential"))
    s = ta.score(chain, w, rootfix=mine).rootfix
    assert s.reference.dtype == np.float64
    assert np.array_equal(s.reference, exact_cumsum(w))
    # Out of 53 bits: the last sums cancel twelve decades.
    assert 20 < s.max_lost_bits <= 53 + 60
    assert s.within["any-order"] and s.within["balanced"] is not None
    # Each node's lost bits from its own exact error (fractions), out of 53.
    exact = [Fraction(0)]
    for x in w:
        exact.append(exact[-1] + Fraction(float(x)))
    for v in range(0, N, 97):
        e = exact[v + 1]
        if e != 0:
            rel = abs(Fraction(float(mine[v])) - e) / abs(e)
            want = max(0.0, np.log2(float(rel)) + 53) if rel else 0.0
            assert s.lost_bits[v] == pytest.approx(want, abs=1e-9)


def test_the_correctly_rounded_f64_results_lose_nothing():
    chain, w = ill_conditioned(N, seed=4)
    s = ta.assert_accurate(chain, w, rootfix=ta.exact(chain, w, "rootfix"), max_ulps=0)
    assert s.rootfix.max_lost_bits == 0.0 and s.rootfix.max_ulps == 0
    # One f64 ulp off at one node: 1 ulp, and the gate says so.
    off = ta.exact(chain, w, "rootfix")
    off[1000] = np.nextafter(off[1000], np.inf)
    with pytest.raises(ta.AccuracyError, match="1 node"):
        ta.assert_accurate(chain, w, rootfix=off, max_ulps=0)


def test_f64_runs_where_it_can_and_says_where_it_cannot():
    chain, w = ill_conditioned(50)
    for algo in ["parallel", "vectorial", "vectorial-chained", "vectorial-seqscan", "contraction"]:
        assert ta.leaffix(chain, w, algo).dtype == np.float64
    with pytest.raises(ta.InputError, match="does not run on f64 weights"):
        ta.rootfix(chain, w, "vectorial-compensated")
    with pytest.raises(ta.InputError, match="WGSL has no f64"):
        ta.rootfix(chain, w, backend="gpu")
    with pytest.raises(ta.InputError, match="order-independent"):
        ta.score(chain, w, rootfix=np.cumsum(w), algorithms=["sequential"])
    with pytest.raises(ta.InputError, match="f32"):
        ta.score(chain, w, rootfix=np.cumsum(w), accumulate="f32")


def test_gensum_draws_f64_weights_that_hit_the_condition_number():
    w, exact_sum, cond = ta.gensum(5000, 1e14, seed=3, precision="f64")
    assert w.dtype == np.float64 and abs(cond / 1e14 - 1) < 1e-12
    assert np.count_nonzero(w.astype(np.float32).astype(np.float64) != w) > 2500
    total = sum(Fraction(float(x)) for x in w)
    assert exact_sum == float(total)
    assert cond == float(sum(abs(Fraction(float(x))) for x in w)) / abs(float(total))
    with pytest.raises(ta.InputError, match="f32 or f64"):
        ta.gensum(10, 1e3, precision="f16")
