"""scripts/real-kernels.py grades the cumsums of real libraries as rootfixes on gensum chains:
what it reports is checked here against the oracle and our twins, on a small configuration.
numpy always runs; JAX, polars and torch run where they import, else are skipped with the
ImportError (the summary of `pytest -rs` says which and why)."""

import importlib.util
import pathlib
import warnings

import numpy as np
import pytest

import treefix_accuracy as ta

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMALL = ["--n", "2000", "--seeds", "1-2"]


def load_script():
    path = ROOT / "scripts" / "real-kernels.py"
    spec = importlib.util.spec_from_file_location("real_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rk = load_script()


def import_error(name):
    """None when `name` imports, else why not (the skip reason)."""
    try:
        with warnings.catch_warnings():
            # Only whether it imports matters for the skip (a warning at import would fail
            # collection of the whole file); what the tests then compute with it runs under
            # the suite's filterwarnings = error.
            warnings.simplefilter("ignore")
            importlib.import_module(name)
    except ImportError as e:
        return f"{name} not installed: {type(e).__name__}: {e}"
    return None


def needs(name):
    why = import_error(name)
    return pytest.mark.skipif(why is not None, reason=why or "")


@pytest.fixture(scope="module")
def numpy_run():
    return rk.run(["--only", "numpy", *SMALL])


def row(rows, library, kernel, storage):
    (r,) = [x for x in rows if (x["library"], x["kernel"], x["storage"]) == (library, kernel,
                                                                             storage)]
    return r


def test_the_chain_is_vertex_order_so_a_cumsum_is_its_rootfix():
    tree = rk.chain(50)
    assert list(tree.parents[:5]) == [-1, 0, 1, 2, 3]
    # 50 float16 values add exactly in float64: its cumsum, rounded once, is the exact rootfix.
    w = np.random.default_rng(5).uniform(-1.0, 1.0, 50).astype(np.float16)
    exact = np.cumsum(w.astype(np.float64)).astype(np.float16)
    assert np.array_equal(ta.exact(tree, w, "rootfix").view(np.uint16), exact.view(np.uint16))


def test_numpy_float32_cumsum_is_the_sequential_twin_bit_for_bit(numpy_run):
    a, rows, runs, *_ = numpy_run
    r = row(rows, "numpy", "numpy.cumsum", "f32")
    assert r["runs"] == len(rk.CONDS) * 2  # f32 reaches every κ
    for (cond, seed), result in r["results"].items():
        w = runs.w("f32", cond, seed)
        twin = ta.rootfix(runs.tree, w, "sequential")
        assert np.array_equal(result.view(np.uint32), twin.view(np.uint32)), (cond, seed)
        assert np.array_equal(result.view(np.uint32), np.cumsum(w).view(np.uint32))
    assert ("sequential", None) in r["twins"] and not r["signs_only"]
    assert r["adds_in"] == "f32" and r["known"]


def test_the_lost_bits_reported_are_the_oracles_and_within_the_any_order_bound(numpy_run):
    a, rows, runs, *_ = numpy_run
    r = row(rows, "numpy", "numpy.cumsum", "f32")
    for cond in rk.CONDS:
        worst = 0.0
        for seed in a.seeds:
            w = ta.gensum(a.n, cond, seed)[0]
            s = ta.score(runs.tree, w, rootfix=np.cumsum(w)).rootfix
            assert s.within["any-order"], (cond, seed)
            worst = max(worst, s.max_lost_bits)
        assert r["bits"][cond] == worst
    assert r["outside"] == 0
    # Ill-conditioning costs bits: κ = 1e8 loses more than κ = 1e2 (27 against 14 here).
    assert r["bits"][1e8] > r["bits"][1e2] + 5


def test_half_formats_add_in_their_own_format_and_stop_at_their_reach(numpy_run):
    a, rows, runs, *_ = numpy_run
    dtypes, missing = rk.formats()
    for fmt in [f for f in ("f16", "bf16") if f in dtypes]:
        r = row(rows, "numpy", "numpy.cumsum", fmt)
        assert ("sequential", None) in r["twins"], fmt  # a rounding to fmt at every step
        assert r["adds_in"] == fmt
        # Rounded to 11 or 8 bits, gensum's weights cannot keep κ = 1e8: not run.
        assert 1e8 not in r["bits"] and 1e2 in r["bits"]
        assert max(runs.kappas(fmt, 1e8)) < 1e7


def test_the_markdown_table_is_deterministic_and_names_every_numpy_row(capsys):
    rk.main(["--only", "numpy", "--markdown", *SMALL])
    first = capsys.readouterr().out
    rk.main(["--only", "numpy", "--markdown", *SMALL])
    assert capsys.readouterr().out == first
    assert "| numpy | `numpy.cumsum` | f32 | f32 |" in first
    assert f"numpy {np.__version__}" in first and "Skipped" not in first


def test_a_library_that_does_not_import_is_listed_with_its_reason(monkeypatch):
    def broken(dtypes):
        raise ImportError("No module named 'polars' (simulated)")

    monkeypatch.setitem(rk.LOADERS, "polars", broken)
    kernels, versions, skipped = rk.load(["numpy", "polars"], rk.formats()[0])
    assert "polars" not in versions and {k[0] for k in kernels} == {"numpy"}
    assert skipped == {"polars": "ImportError: No module named 'polars' (simulated)"}


def same_bits(a, b):
    return np.array_equal(rk.bits_of(a), rk.bits_of(b))


@needs("jax")
def test_jax_cumsum_is_xlas_blocked_scan_and_associative_scan_the_odd_even_recursion():
    a, rows, runs, versions, skipped, _ = rk.run(["--only", "jax", *SMALL])
    assert not skipped and "jax" in versions
    cumsum = row(rows, "jax", "jax.numpy.cumsum", "f32")
    scan = row(rows, "jax", "jax.lax.associative_scan(add)", "f32")
    differs_from_numpy = 0
    for (cond, seed), r in cumsum["results"].items():
        w = runs.w("f32", cond, seed)
        assert same_bits(r, rk.blocked_scan(w)), (cond, seed)
        assert same_bits(scan["results"][(cond, seed)], rk.odd_even_scan(w)), (cond, seed)
        differs_from_numpy += not same_bits(r, np.cumsum(w))
    # Not numpy's left-to-right order: the bits differ in every run.
    assert differs_from_numpy == len(cumsum["results"])
    for r in (cumsum, scan):
        assert r["outside"] == 0 and r["known"] and r["adds_in"] == "f32"
        assert not any(algo in ta.ALGORITHMS for algo, _ in r["twins"])
    # The script's bits are the oracle's.
    w = runs.w("f32", 1e8, a.seeds[0])
    s = ta.score(runs.tree, w, rootfix=cumsum["results"][(1e8, a.seeds[0])]).rootfix
    assert cumsum["bits"][1e8] >= s.max_lost_bits > 10


@needs("polars")
def test_polars_cum_sum_on_float32_adds_in_float64():
    a, rows, runs, versions, skipped, _ = rk.run(["--only", "polars", *SMALL])
    assert not skipped
    r = row(rows, "polars", "polars.Series.cum_sum", "f32")
    not_correctly_rounded = 0
    for (cond, seed), result in r["results"].items():
        w = runs.w("f32", cond, seed)
        assert same_bits(result, ta.rootfix(runs.tree, w, "sequential", accumulate="f64"))
        not_correctly_rounded += not same_bits(result, ta.exact(runs.tree, w, "rootfix"))
    # f64 sums rounded once to f32 (a double rounding), not the exact ones: some run shows it.
    assert not_correctly_rounded > 0
    assert r["adds_in"] == "f64" and r["outside"] == 0 and max(r["bits"].values()) < 1


@needs("torch")
def test_torch_cpu_cumsum_adds_float32_in_float64_and_halves_in_float32():
    a, rows, runs, versions, skipped, missing = rk.run(["--only", "torch", *SMALL])
    assert not skipped
    wider = {"f32": "f64", "f16": "f32", "bf16": "f32"}
    for fmt in [f for f in wider if f not in missing]:
        r = row(rows, "torch", "torch.cumsum", fmt)
        assert r["adds_in"] == wider[fmt] and r["outside"] == 0, fmt
        for (cond, seed), result in r["results"].items():
            w = runs.w(fmt, cond, seed)
            twin = ta.rootfix(runs.tree, w, "sequential", accumulate=wider[fmt])
            # Equal values; where the bits differ, both are zeros of opposite signs (torch's
            # accumulator starts at +0: +0 + −0 = +0 at a first weight of −0).
            assert np.array_equal(result, twin), (fmt, cond, seed)
            differ = rk.bits_of(result) != rk.bits_of(twin)
            assert np.all(result[differ] == 0), (fmt, cond, seed)
