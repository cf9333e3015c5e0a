"""The Python side of examples/exact_timing.rs: best and median of 7 calls of exact() on the
same tree and weights (random-recursive, 2^22 vertices, gensum κ = 1e8, seed 1).

python python/tests/exact_timing.py [LOG2_N]   (not a test: a measurement)
"""

import sys
import time

import treefix_accuracy as ta

log2 = int(sys.argv[1]) if len(sys.argv) > 1 else 22
n = 1 << log2
tree = ta.generate_tree("random-recursive", n, seed=1)
w, _, _ = ta.gensum(n, 1e8, seed=1)
for op in ["rootfix", "leaffix"]:
    times = []
    for _ in range(7):
        t = time.perf_counter()
        x = ta.exact(tree, w, op)
        times.append(time.perf_counter() - t)
    times.sort()
    print(f"python exact {op} n=2^{log2}: best {times[0]:.3f} s, median {times[3]:.3f} s")
