"""Treefix kernels written the way their users write them (numpy, float32), to be graded."""

from typing import List

import numpy as np

import treefix_accuracy as ta

F32 = np.float32


def children(tree: ta.Tree) -> List[List[int]]:
    """Children of every vertex, ascending."""
    kids: List[List[int]] = [[] for _ in range(len(tree))]
    for v, p in enumerate(tree.parents):
        if p >= 0:
            kids[p].append(v)
    return kids


def euler_cumsum_leaffix(tree: ta.Tree, w: np.ndarray) -> np.ndarray:
    """DFS order, one library scan (np.cumsum in float32) and a subtraction: the subtree of v
    is the run pre[v] .. pre[v] + size(v) - 1 of the preorder."""
    order = tree.preorder.astype(np.int64)
    pos = np.empty(len(tree), dtype=np.int64)
    pos[order] = np.arange(len(tree))
    s = np.cumsum(w[order], dtype=F32)
    end = pos + tree.subtree_sizes.astype(np.int64) - 1
    before = np.where(pos > 0, s[np.maximum(pos - 1, 0)], F32(0))
    return (s[end] - before).astype(F32)


def reverse_leaffix(tree: ta.Tree, w: np.ndarray) -> np.ndarray:
    """l[v] = w[v] + l[c_k] + ... + l[c_1]: the children in reverse order, f32 additions."""
    kids = children(tree)
    out = np.zeros(len(tree), dtype=F32)
    for v in tree.preorder[::-1]:
        acc = F32(w[v])
        for c in reversed(kids[v]):
            acc = F32(acc + out[c])
        out[v] = acc
    return out


def pairwise(values: List[np.float32]) -> np.float32:
    """Balanced pairwise sum in f32."""
    while len(values) > 1:
        nxt = [F32(values[i] + values[i + 1]) for i in range(0, len(values) - 1, 2)]
        if len(values) % 2:
            nxt.append(values[-1])
        values = nxt
    return values[0]


def pairwise_leaffix(tree: ta.Tree, w: np.ndarray) -> np.ndarray:
    """l[v] = the pairwise sum of w[v] and its children's l, in f32."""
    kids = children(tree)
    out = np.zeros(len(tree), dtype=F32)
    for v in tree.preorder[::-1]:
        out[v] = pairwise([F32(w[v])] + [out[c] for c in kids[v]])
    return out


def reverse_rootfix(tree: ta.Tree, w: np.ndarray) -> np.ndarray:
    """r[v] = w[v] + r[parent]: the path sum with the operands swapped (still f32)."""
    out = np.zeros(len(tree), dtype=F32)
    parents = tree.parents
    for v in tree.preorder:
        p = parents[v]
        out[v] = F32(w[v]) if p < 0 else F32(F32(w[v]) + out[p])
    return out
