"""Kernels that store float16 or bfloat16 (and add in it, or in float32): graded in their own
format, against the exact treefix rounded to it, by numpy's and ml_dtypes' own arithmetic."""

import ml_dtypes
import numpy as np
import pytest

import treefix_accuracy as ta

N = 3000


def chain_and_weights(dtype, seed=7):
    chain = ta.generate_tree("chain", N)
    w = np.random.default_rng(seed).uniform(-1.0, 4.0, N).astype(dtype)
    return chain, w


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_a_cumsum_in_the_format_is_the_sequential_twin_in_it(dtype):
    chain, w = chain_and_weights(dtype)
    kernel = np.cumsum(w)  # each partial sum rounded to the format
    assert kernel.dtype == dtype
    twin = ta.rootfix(chain, w, "sequential")
    assert twin.dtype == dtype
    assert np.array_equal(twin.view(np.uint16), kernel.view(np.uint16))


def test_float32_accumulation_rounds_once_at_the_store():
    chain, w = chain_and_weights(np.float16)
    kernel = np.cumsum(w, dtype=np.float32).astype(np.float16)
    twin = ta.rootfix(chain, w, "sequential", accumulate="f32")
    assert np.array_equal(twin.view(np.uint16), kernel.view(np.uint16))
    # Adding in f32 loses less than adding in f16.
    s16 = ta.score(chain, w, rootfix=np.cumsum(w))
    s32 = ta.score(chain, w, rootfix=kernel, accumulate="f32")
    assert s32.rootfix.max_lost_bits < s16.rootfix.max_lost_bits
    assert s32.rootfix.max_ulps < s16.rootfix.max_ulps


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_the_exact_treefix_in_the_format_is_zero_ulps_away(dtype):
    chain, w = chain_and_weights(dtype)
    x = ta.exact(chain, w, "rootfix")
    assert x.dtype == dtype
    s = ta.score(chain, w, rootfix=x)
    assert s.rootfix.max_ulps == 0
    # The exact sums, rounded from float64 partial sums (exact here: 3000 terms of 11 or 8
    # bits never need more than 53), agree.
    exact64 = np.cumsum(w.astype(np.float64)).astype(dtype)
    assert np.array_equal(x.view(np.uint16), exact64.view(np.uint16))


def test_lost_bits_and_ulps_are_the_formats_own():
    chain, w = chain_and_weights(np.float16)
    x = ta.exact(chain, w, "rootfix")
    off = x.copy()
    off[-1] = np.nextafter(x[-1], np.float16(np.inf))
    s = ta.score(chain, w, rootfix=off)
    assert s.rootfix.max_ulps == 1
    # One f16 ulp is 2^-10 relative at most: ≤ 1 bit of 11, not 14 of f32's 24.
    assert 0 < s.rootfix.max_lost_bits <= 1.0


def test_the_algorithms_that_add_a_nodes_own_terms_stay_within_the_order_free_bound():
    # (A scan's results are differences of prefixes, not sums of the node's own terms: the
    # order-free bounds do not hold them, in bf16 as in f32.)
    t = ta.generate_tree("random-recursive", N, seed=3)
    w = ta.gensum(N, 1e3, 5)[0].astype(ml_dtypes.bfloat16)
    for algo in ["sequential", "parallel", "contraction", "vectorial-exact"]:
        r = ta.rootfix(t, w, algo)
        l = ta.leaffix(t, w, algo)
        s = ta.score(t, w, rootfix=r, leaffix=l)
        assert s.rootfix.within["any-order"] and s.leaffix.within["any-order"], algo


def test_mixed_formats_are_refused():
    chain, w = chain_and_weights(np.float16)
    with pytest.raises(ta.InputError, match="f16 values and rootfix f32"):
        ta.score(chain, w, rootfix=np.cumsum(w).astype(np.float32) + np.float32(1e-4))
    # f64 weights with f32 results: the kernel stored another format than it read.
    w64 = np.random.default_rng(2).uniform(-1.0, 1.0, N)
    with pytest.raises(ta.InputError, match="f64 values and rootfix f32"):
        ta.score(chain, w64, rootfix=np.cumsum(w64).astype(np.float32))
    with pytest.raises(ta.InputError, match="vectorial-compensated adds in f32 only"):
        ta.score(chain, w, rootfix=np.cumsum(w), algorithms=["vectorial-compensated"])
    with pytest.raises(ta.InputError, match="cannot be added in f16"):
        ta.rootfix(chain, w.astype(np.float32), accumulate="f16")


def test_our_bounds_judge_kernels_in_their_own_format():
    # numpy's float16 cumsum adds in float16, in sequential's order: within sequential's
    # bounds in f16, and outside the bounds of the same order adding in f32 (rounded once).
    chain, w = chain_and_weights(np.float16)
    mine = np.cumsum(w)
    assert mine.dtype == np.float16
    assert np.array_equal(mine, ta.rootfix(chain, w, "sequential"))
    ta.assert_accurate(chain, w, rootfix=mine, within="sequential")
    s = ta.score(chain, w, rootfix=mine, algorithms=["sequential"], accumulate="f32").rootfix
    assert not s.within["sequential"]
    # A bf16 kernel adding in f32 and rounding once: within sequential's bounds in bf16+f32.
    chain, wb = chain_and_weights(ml_dtypes.bfloat16)
    mixed = ta.rootfix(chain, wb, "sequential", accumulate="f32")
    s = ta.score(chain, wb, rootfix=mixed, algorithms=["sequential"], accumulate="f32")
    assert s.rootfix.within["sequential"]


def test_torch_tensors_of_every_format_through_dlpack():
    torch = pytest.importorskip("torch", reason="torch is not installed (PyPI's wheel is 2.8 GB)")
    chain = ta.generate_tree("chain", N)
    for dtype, np_dtype in [
        (torch.float32, np.float32),
        (torch.float16, np.float16),
        (torch.bfloat16, ml_dtypes.bfloat16),
    ]:
        w = torch.tensor(np.random.default_rng(3).uniform(-1.0, 4.0, N)).to(dtype)
        mine = torch.cumsum(w, 0)
        # The same bits as numpy arrays of the format (torch's bf16 has no numpy dtype).
        def as_numpy(t):
            return np.asarray(t.view(torch.int16)).view(np_dtype) if t.itemsize == 2 else t.numpy()

        w_np, mine_np = as_numpy(w), as_numpy(mine)
        assert ta.exact(chain, w, "rootfix").dtype == np_dtype
        assert np.array_equal(ta.exact(chain, w, "rootfix"), ta.exact(chain, w_np, "rootfix"))
        from_torch = ta.score(chain, w, rootfix=mine).rootfix
        from_numpy = ta.score(chain, w_np, rootfix=mine_np).rootfix
        assert (from_torch.max_ulps, from_torch.max_lost_bits) == (
            from_numpy.max_ulps,
            from_numpy.max_lost_bits,
        ), dtype
