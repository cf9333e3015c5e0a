"""score and assert_accurate: grading kernels written in numpy, against the exact treefix, the
order-independent bounds and the `accuracy score` command."""

import json
import math
import os
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import treefix_accuracy as ta
from kernels import (
    euler_cumsum_leaffix,
    pairwise_leaffix,
    reverse_leaffix,
    reverse_rootfix,
)
from test_api import TOPOLOGIES

ROOT = Path(__file__).resolve().parents[2]


def lost_bits(result: np.float32, exact: Fraction) -> float:
    """max(0, log2(|result - exact| / |exact|) + 24), from exact rationals (inf for exact 0)."""
    err = abs(Fraction(float(result)) - exact)
    if err == 0:
        return 0.0
    if exact == 0:
        return math.inf
    return max(0.0, math.log2(err / abs(exact)) + 24)


def test_an_euler_tour_cumsum_leaffix_is_graded_as_exact_sums_say():
    t = ta.generate_tree("random-recursive", 2000, seed=11)
    w, _, _ = ta.gensum(len(t), 1e8, seed=11)
    mine = euler_cumsum_leaffix(t, w)
    s = ta.score(t, w, leaffix=mine)
    assert s.rootfix is None
    lf = s.leaffix
    # Every node's lost bits, recomputed from exact rational sums.
    exact = [Fraction(float(x)) for x in w]
    for v in t.preorder[::-1]:
        if t.parents[v] >= 0:
            exact[t.parents[v]] += exact[v]
    want = np.array([lost_bits(mine[v], exact[v]) for v in range(len(t))])
    assert np.allclose(lf.lost_bits, want, rtol=1e-12, atol=1e-9)
    assert lf.max_lost_bits == pytest.approx(want.max(), rel=1e-12)
    assert lf.worst_vertex == int(np.argmax(want))
    # The scan and the subtraction cancel: far outside what any order of the node's own
    # additions can lose, and the verdict says so.
    assert lf.max_lost_bits > 20
    assert not lf.within["any-order"]
    assert lf.violations["any-order"] > 0
    assert "OUTSIDE the order-independent bound" in lf.summary
    assert s.passed  # no gate given
    # The correctly rounded results lose nothing.
    best = ta.score(t, w, leaffix=ta.exact(t, w, "leaffix"), algorithms=[])
    assert best.leaffix.max_lost_bits == 0 and best.leaffix.max_ulps == 0
    assert best.leaffix.within["any-order"] and best.leaffix.within["balanced"]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_reverse_and_pairwise_orders_are_within_the_order_independent_bound(topology):
    t = ta.generate_tree(topology, 1500, seed=4)
    for cond in [1e3, 1e10]:
        w, _, _ = ta.gensum(len(t), cond, seed=4)
        for kernel in [reverse_leaffix, pairwise_leaffix]:
            s = ta.score(t, w, leaffix=kernel(t, w), algorithms=[])
            lf = s.leaffix
            assert lf.within["any-order"], (kernel.__name__, cond, lf.summary)
            assert np.all(lf.abs_error <= lf.any_order_bound)
        s = ta.score(t, w, rootfix=reverse_rootfix(t, w), algorithms=[])
        assert s.rootfix.within["any-order"], s.rootfix.summary


def test_a_kernel_with_one_wrong_node_is_caught():
    t = ta.generate_tree("prufer", 3000, seed=8)
    w, _, _ = ta.gensum(len(t), 1e6, seed=8)
    good = pairwise_leaffix(t, w)
    assert ta.score(t, w, leaffix=good, algorithms=[]).leaffix.within["any-order"]
    bad = good.copy()
    victim = 1234
    bad[victim] = np.float32(bad[victim] * np.float32(1.001))
    s = ta.score(t, w, leaffix=bad, algorithms=[])
    assert s.leaffix.violations["any-order"] == 1
    assert np.flatnonzero(s.leaffix.abs_error > s.leaffix.any_order_bound).tolist() == [victim]
    # Other nodes lose more bits (ill-conditioned sums), but only the victim leaves the bound,
    # and the error names it.
    with pytest.raises(ta.AccuracyError, match=f"worst vertex {victim}"):
        ta.assert_accurate(t, w, leaffix=bad)


def test_assert_accurate_raises_with_the_worst_vertex():
    t = ta.read_tree(ROOT / "generators/tests/data/ape_bird_families.nwk")
    w = t.weights
    good = ta.exact(t, w, "rootfix")
    assert ta.assert_accurate(t, w, rootfix=good, max_ulps=0).passed
    off = good.copy()
    off[17] = np.nextafter(off[17], np.float32(np.inf))
    v = next(v for v in range(20, len(t)) if t.label(v))
    off[v] = np.float32(off[v] * 2)
    label = t.label(v)
    with pytest.raises(ta.AccuracyError) as e:
        ta.assert_accurate(t, w, rootfix=off, max_lost_bits=12)
    msg = str(e.value)
    assert msg.startswith("rootfix: 1 node(s) lose more than max_lost_bits=12")
    assert f"worst vertex {v} ('{label}')" in msg, msg
    with pytest.raises(ta.AccuracyError, match="2 node\\(s\\) lie more than max_ulps=0"):
        ta.assert_accurate(t, w, rootfix=off, max_ulps=0)
    # A zero exact value with a non-zero result loses every bit: the lost-bits gate fails.
    z = ta.tree_from_parents([-1, 0, 0])
    zw = np.array([1.0, -1.0, 2.0], dtype=np.float32)
    leaf = ta.exact(z, zw, "leaffix")
    root = ta.exact(z, zw, "rootfix")  # vertex 1's exact rootfix is 0
    assert root[1] == 0
    root[1] = np.float32(1e-30)
    s = ta.score(z, zw, rootfix=root, leaffix=leaf, max_lost_bits=60)
    assert s.rootfix.flagged[1] and s.rootfix.lost_bits[1] == math.inf
    assert not s.passed and "exact value 0" in s.failures[0]
    with pytest.raises(ta.AccuracyError, match="worst vertex 1"):
        ta.assert_accurate(z, zw, rootfix=root, max_lost_bits=60)


def accuracy_binary() -> Path:
    """The `accuracy` binary of this checkout (TREEFIX_ACCURACY_BIN, else target/debug)."""
    given = os.environ.get("TREEFIX_ACCURACY_BIN")
    path = Path(given) if given else ROOT / "target" / "debug" / "accuracy"
    if not path.exists():
        if os.environ.get("TREEFIX_REQUIRE_CLI") == "1":
            pytest.fail(f"no accuracy binary at {path}")
        pytest.skip(f"no accuracy binary at {path} (cargo build --bin accuracy)")
    return path


def test_python_and_the_cli_give_the_same_numbers(tmp_path):
    t = ta.generate_tree("random-recursive", 3000, seed=21)
    w, _, _ = ta.gensum(len(t), 1e7, seed=21)
    root = reverse_rootfix(t, w)
    leaf = euler_cumsum_leaffix(t, w)
    tree_file = tmp_path / "tree.txt"
    tree_file.write_text(
        "".join(f"{v} {p} {x:.9g}\n" for v, (p, x) in enumerate(zip(t.parents, w)))
    )
    # Results as text with 9 significant digits, and leaffix also as .npy.
    csv = tmp_path / "r.csv"
    with open(csv, "w") as f:
        f.write("vertex,op,result\n")
        for op, vals in [("Rootfix", root), ("LEAFFIX", leaf)]:
            f.writelines(f"{v},{op},{x:.9g}\n" for v, x in enumerate(vals))
    npy = tmp_path / "l.npy"
    np.save(npy, leaf)
    # One op per file: a CSV without the op column, and the .npy.
    root_csv = tmp_path / "root.csv"
    root_csv.write_text("vertex,result\n" + "".join(f"{v},{x!r}\n" for v, x in enumerate(root.tolist())))
    s = ta.score(t, w, rootfix=root, leaffix=leaf, max_lost_bits=20, max_ulps=1000)
    for results in [[str(csv)], [f"rootfix={root_csv}", f"leaffix={npy}"]]:
        args = [str(accuracy_binary()), "score", "--tree", str(tree_file), "--weights", "file"]
        for r in results:
            args += ["--results", r]
        out = subprocess.run(
            args + ["--max-lost-bits", "20", "--max-ulps", "1000", "--json", "-"],
            capture_output=True,
            text=True,
        )
        assert out.returncode == (0 if s.passed else 4), out.stderr
        doc = json.loads(out.stdout)
        assert doc["passed"] == s.passed
        assert doc["n"] == s.n
        for o in doc["ops"]:
            py = getattr(s, o["op"])
            num = lambda x: math.inf if x == "inf" else x  # noqa: E731
            for k in ["max_lost_bits", "median_lost_bits", "p99_lost_bits",
                      "max_rel_error", "median_rel_error", "p99_rel_error"]:
                assert num(o[k]) == getattr(py, k), k
            assert num(o["max_ulps"]) == py.max_ulps
            assert o["worst"]["vertex"] == py.worst_vertex
            assert o["flagged_nodes"] == py.flagged_nodes
            assert o["nodes_over_max_lost_bits"] == py.nodes_over_max_lost_bits
            verdicts = {v["bound"]: v["within"] for v in o["order_bounds"]}
            verdicts.update({v["algorithm"]: v["within"] for v in o["algorithms"]})
            assert verdicts == py.within
        # The bound tables are the same text (the CLI's worst-vertex column adds the file's
        # labels, here the vertex ids).
        tables = s.summary[s.summary.index("which error bounds"):]
        assert tables in out.stderr
