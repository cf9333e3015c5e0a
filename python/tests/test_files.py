"""From Python to the command line and back: a tree, its weights and a kernel's results written
by the package are what `accuracy score` reads, its --json is Score.to_json(), and
`score --weights gensum --cond C --seed S` draws gensum(n, C, S) bit for bit."""

import json
import subprocess

import numpy as np
import pytest

import treefix_accuracy as ta
from test_score import accuracy_binary


def comparable(doc):
    """The document without what names the inputs (files on the command line, arrays here)."""
    return {k: v for k, v in doc.items() if k not in ("tree", "results", "precision")}


def test_written_files_score_as_python_scores(tmp_path):
    t = ta.generate_tree("random-recursive", 900, seed=4)
    cond, seed = 1e6, 9
    w, _, _ = ta.gensum(len(t), cond, seed)
    r = np.cumsum(w, dtype=np.float32)  # not a rootfix of this tree: graded all the same
    lf = ta.leaffix(t, w, "parallel")
    s = ta.score(t, w, rootfix=r, leaffix=lf, algorithms=["vectorial"])
    mine = json.loads(s.to_json())
    assert mine["ops"][0]["op"] == "rootfix" and mine["results"] == "rootfix=<array>, leaffix=<array>"
    t.save(tmp_path / "t.txt")
    ta.write_weights(tmp_path / "w.txt", w)
    ta.write_weights(tmp_path / "w.npy", w)
    assert np.array_equal(np.load(tmp_path / "w.npy"), w)
    ta.write_results(tmp_path / "r.csv", rootfix=r, leaffix=lf)
    ta.write_results(tmp_path / "r.npy", rootfix=r)
    ta.write_results(tmp_path / "l.npy", leaffix=lf)
    with pytest.raises(ta.TreefixError, match="one op"):
        ta.write_results(tmp_path / "both.npy", rootfix=r, leaffix=lf)
    base = [str(accuracy_binary()), "score", "--tree", str(tmp_path / "t.txt"), "--algos", "vectorial"]
    for weights in (["--weights-file", str(tmp_path / "w.txt")],
                    ["--weights", "gensum", "--cond", str(cond), "--seed", str(seed)]):
        for results in (["--results", str(tmp_path / "r.csv")],
                        ["--results", f"rootfix={tmp_path / 'r.npy'}",
                         "--results", f"leaffix={tmp_path / 'l.npy'}"]):
            out = subprocess.run(base + weights + results + ["--json", "-"],
                                 capture_output=True, text=True)
            assert out.returncode == 0, out.stderr
            cli = json.loads(out.stdout)
            # A parent-array file labels each vertex with its id; Python's tree has no labels.
            for o in cli["ops"]:
                o["worst"].pop("label", None)
            assert comparable(cli) == comparable(mine), (weights, results)


def test_a_tree_saved_with_its_weights_reads_back_bit_for_bit(tmp_path):
    t = ta.generate_tree("kary:3", 500, seed=2)
    w, _, _ = ta.gensum(len(t), 1e8, 3)
    t.save(tmp_path / "t.txt", w=w)
    back = ta.read_tree(tmp_path / "t.txt")
    assert np.array_equal(back.parents, t.parents)
    assert back.weights is not None and back.weights.view(np.uint32).tolist() == w.view(np.uint32).tolist()
    with pytest.raises(ta.InputError, match="parents"):
        t.save(tmp_path / "t.nwk", format="newick")


def test_edge_lists_as_networkx_gives_them():
    t = ta.generate_tree("prufer", 400, seed=8)
    child = np.flatnonzero(t.parents >= 0)
    parent = t.parents[child]
    assert np.array_equal(ta.tree_from_edges(parent, child).parents, t.parents)
    # Undirected edges, either way round, hung from the root.
    assert np.array_equal(ta.tree_from_edges(child, parent, root=t.root).parents, t.parents)
    with pytest.raises(ta.TreefixError, match="child of two edges"):
        ta.tree_from_edges([0, 1], [2, 2])


def test_repr_and_within_errors_speak_python():
    t = ta.tree_from_parents([-1, 0, 1])
    w = np.array([1, 2, 3], dtype=np.float32)
    s = ta.score(t, w, rootfix=ta.exact(t, w, "rootfix"))
    assert repr(s) == "Score(n=3, passed=True)"
    with pytest.raises(ta.InputError, match="any-order, balanced or one of our algorithms"):
        ta.assert_accurate(t, w, rootfix=ta.exact(t, w, "rootfix"), within="nope")
