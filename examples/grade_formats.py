"""Grading kernels that store float16, bfloat16 or float64, in their own format.

The format is read from the arrays' dtype (numpy float16, ml_dtypes bfloat16, float64);
`accumulate` names a wider format the kernel adds in. The reference is the exact sum of every
prefix, rounded once to the storage format: lost bits are out of its precision (11 bits for
f16, 8 for bf16, 53 for f64) and ulps are its own. Run: python examples/grade_formats.py
"""

import ml_dtypes
import numpy as np

import treefix_accuracy as ta

n = 100_000
chain = ta.generate_tree("chain", n)
w = np.random.default_rng(1).uniform(-1.0, 1.0, n)

# An f16 kernel that adds in f16: numpy's cumsum of a float16 array rounds every prefix.
w16 = w.astype(np.float16)
print("float16, f16 additions:")
print(ta.score(chain, w16, rootfix=np.cumsum(w16)).summary)

# A bf16 kernel that adds in f32 and rounds once at the store, as GPU libraries do.
wb = w.astype(ml_dtypes.bfloat16)
mine = np.cumsum(wb, dtype=np.float32).astype(ml_dtypes.bfloat16)
print("bfloat16, f32 additions:")
print(ta.score(chain, wb, rootfix=mine, accumulate="f32").summary)

# An f64 kernel: numpy's float64 cumsum of ill-conditioned weights drawn in f64 (53 bits each).
w64, _, _ = ta.gensum(n, 1e12, seed=1, precision="f64")
print("float64, f64 additions:")
print(ta.score(chain, w64, rootfix=np.cumsum(w64)).summary)
