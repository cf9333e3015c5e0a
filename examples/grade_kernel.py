"""Grade a PyTorch-style subtree-sum kernel (DFS order, one library scan, a subtraction).

Run: python examples/grade_kernel.py   (after `pip install ./python`)

torch does not install on this project's machines (no CPU wheel index), so the kernel is
written in numpy; the torch lines it stands for are in the comments, and a CPU torch tensor
can be passed to score() as it is (it exposes __array__ and __dlpack__).
"""

import numpy as np

import treefix_accuracy as ta

tree = ta.generate_tree("random-recursive", 100_000, seed=1)
w, exact_sum, cond = ta.gensum(len(tree), 1e8, seed=1)

# The kernel: subtree sums from one prefix scan over the DFS (pre)order.
order = tree.preorder.astype(np.int64)  # torch: order = torch.as_tensor(...)
pos = np.empty_like(order)
pos[order] = np.arange(len(tree))
s = np.cumsum(w[order], dtype=np.float32)  # torch: s = torch.cumsum(w[order], 0)
end = pos + tree.subtree_sizes.astype(np.int64) - 1
mine = s[end] - np.where(pos > 0, s[pos - 1], np.float32(0))  # torch: the same indexing

score = ta.score(tree, w, leaffix=mine, algorithms=["parallel", "vectorial"])
print(score.summary)
print("worst vertex", score.leaffix.worst_vertex, "loses", score.leaffix.max_lost_bits, "bits")
