#!/usr/bin/env python3
"""The cumsums users actually call, graded as rootfixes on the seed paper's chains.

On a chain whose vertex v hangs from v − 1, the rootfix in vertex order is the cumsum, so a
library's cumsum is a rootfix kernel: graded here against the exact, correctly rounded
reference (treefix_accuracy.score), on gensum's ill-conditioned weights (Ogita–Rump–Oishi),
each κ over several seeds. Per kernel and κ the table gives the most bits any vertex lost
(out of the storage format's precision: 24 for f32, 11 for f16, 8 for bf16) over the seeds;
"within" says whether every run stayed within the order-independent (any-order) error bound;
"bit for bit equal to" names those of this project's CPU twins (treefix_accuracy.rootfix,
every algorithm, adding in the storage format or in a wider one) and of two numpy models of
the libraries' own orders (MODELS) that gave the library's bits in every run: the order of
additions the library follows, measured rather than assumed.

Libraries: numpy (f32, f16, and bf16 through ml_dtypes), JAX (jnp.cumsum and
lax.associative_scan(jnp.add, ·), on CPU), polars (Series.cum_sum on Float32), torch (CPU
torch.cumsum); "ours" adds three of this project's twins, to read them against. A library
that does not import is listed as skipped with its ImportError.

    scripts/real-kernels.py [--only numpy,jax,polars,torch,ours] [--n 10000] [--seeds 1-5]
                            [--markdown]

The output depends only on the arguments and the libraries' versions (no timings).
"""

import argparse
import sys
import textwrap

import numpy as np

import treefix_accuracy as ta

CONDS = (1e2, 1e4, 1e6, 1e8)
LIBRARIES = ("numpy", "jax", "polars", "torch", "ours")
# Storage formats: (largest finite value, the wider format a kernel may add in). bf16 is
# ml_dtypes' (numpy has none): its rows run when that imports (formats()).
FORMATS = {"f32": (float(np.finfo(np.float32).max), "f64"), "f16": (65504.0, "f32"),
           "bf16": (float.fromhex("0x1.fep127"), "f32")}
# A κ the rounded weights miss by more than this factor is not run: the cell would not be
# about that κ (accuracy run --precision refuses the same targets).
REACH = 10.0


def formats():
    """Storage name -> numpy dtype, and the reason a format is unavailable (name -> text)."""
    dtypes = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16)}
    missing = {}
    try:
        import ml_dtypes

        dtypes["bf16"] = np.dtype(ml_dtypes.bfloat16)
    except ImportError as e:
        missing["bf16"] = f"ml_dtypes: {e}"
    return dtypes, missing


def fmt_info(fmt):
    return FORMATS[fmt]


def chain(n):
    """The generator's chain, checked to be v − 1 → v so that a cumsum is its rootfix."""
    tree = ta.generate_tree("chain", n, 1)
    if not np.array_equal(tree.parents, np.arange(-1, n - 1)):
        sys.exit(f"real-kernels: the chain's parents are {tree.parents[:5]}…, not v − 1")
    return tree


def weights(n, cond, seed, fmt, dtype):
    """gensum's f32 weights in the storage format: scaled by a power of two into its range
    (Σ|w| at a quarter of its largest value, as `accuracy run --precision` does, so that no
    prefix overflows) and rounded to nearest once."""
    w, _, _ = ta.gensum(n, cond, seed)
    if fmt == "f32":
        return w
    big, _ = fmt_info(fmt)
    total = float(np.sum(np.abs(w.astype(np.float64))))
    scale = 2.0 ** np.floor(np.log2(big / 4.0 / total))
    scaled = w.astype(np.float64) * scale
    # The product is exact in f64; going through f32 first would round twice unless it is
    # exact there too (it is for these weights: checked, not assumed).
    as32 = scaled.astype(np.float32)
    if not np.array_equal(as32.astype(np.float64), scaled):
        sys.exit(f"real-kernels: scaled weights (κ {cond:g}, seed {seed}) are no f32 values")
    return as32.astype(dtype)


def bits_of(a):
    """The array's bit patterns, so that equality means the same bits (−0 ≠ 0, NaN = NaN)."""
    return a.view(np.uint16 if a.dtype.itemsize == 2 else np.uint32)


def numpy_kernels(dtypes):
    # np.cumsum is add.accumulate: one addition per element, left to right, in the dtype.
    return [("numpy", "numpy.cumsum", f, np.cumsum) for f in dtypes], np.__version__


def jax_kernels(dtypes):
    import jax
    import jax.numpy as jnp
    import jaxlib

    # The CPU's bits (a machine with an accelerator would grade that instead); naming the
    # platform also spares the warning jax gives where a GPU is seen without a CUDA jaxlib.
    jax.config.update("jax_platforms", "cpu")

    def cumsum(w):
        return np.asarray(jnp.cumsum(jnp.asarray(w)))

    def scan(w):
        return np.asarray(jax.lax.associative_scan(jnp.add, jnp.asarray(w)))

    out = []
    for f in dtypes:
        out.append(("jax", "jax.numpy.cumsum", f, cumsum))
        out.append(("jax", "jax.lax.associative_scan(add)", f, scan))
    return out, f"jax {jax.__version__}, jaxlib {jaxlib.__version__}"


def polars_kernels(dtypes):
    import polars as pl

    def cum_sum(w):
        return pl.Series("w", w, dtype=pl.Float32).cum_sum().to_numpy()

    return [("polars", "polars.Series.cum_sum", "f32", cum_sum)], pl.__version__


def torch_kernels(dtypes):
    import torch

    def cumsum_in(tdtype):
        def cumsum(w):
            # ml_dtypes' bfloat16 has no torch equivalent through from_numpy: go by its bits.
            t = torch.from_numpy(bits_of(w).view(np.int16)).view(tdtype)
            r = torch.cumsum(t, 0)
            return r.view(torch.int16).numpy().view(w.dtype)

        return cumsum

    by_fmt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    out = []
    for f in dtypes:
        if f == "f32":
            out.append(("torch", "torch.cumsum", f, lambda w: torch.cumsum(
                torch.from_numpy(w), 0).numpy()))
        else:
            out.append(("torch", "torch.cumsum", f, cumsum_in(by_fmt[f])))
    return out, torch.__version__


def our_kernels(dtypes):
    """Three of this project's twins in f32, graded the same way, to read the libraries'
    rows against: parallel (on a chain, the sequential order), vectorial (the Euler tour
    scanned with the scan plan: 3 items per thread, 256-thread Kogge–Stone tiles, block sums)
    and contraction (compresses and rakes: a tree of additions of O(log n) depth)."""
    chains = {}

    def twin(algo):
        def kernel(w):
            tree = chains.setdefault(len(w), chain(len(w)))
            return ta.rootfix(tree, w, algo)

        return kernel

    algos = ("parallel", "vectorial", "contraction")
    return [("ours", f"rootfix(…, \"{a}\")", "f32", twin(a)) for a in algos], ta.__version__


LOADERS = {"numpy": numpy_kernels, "jax": jax_kernels, "polars": polars_kernels,
           "torch": torch_kernels, "ours": our_kernels}


def load(libraries, dtypes):
    """The kernels of every library that imports, their versions, and the skipped ones."""
    kernels, versions, skipped = [], {}, {}
    for lib in libraries:
        try:
            ks, version = LOADERS[lib](dtypes)
        except ImportError as e:
            skipped[lib] = f"{type(e).__name__}: {e}"
            continue
        kernels += ks
        versions[lib] = version
    return kernels, versions, skipped


def blocked_scan(x, base=16):
    """XLA's rewrite of a long cumsum on CPU, as its compiled HLO shows: the array cut into
    blocks of `base`, each block scanned left to right, the block totals scanned the same way
    (recursively), and each block's prefixes offset by one addition of the totals before it."""
    n = len(x)
    if n <= base:
        return np.cumsum(x)
    m = -(-n // base)
    padded = np.zeros(m * base, x.dtype)
    padded[:n] = x
    local = np.cumsum(padded.reshape(m, base), axis=1)
    totals = blocked_scan(local[:, -1].copy(), base)
    offsets = np.concatenate([np.zeros(1, x.dtype), totals[:-1]])
    return (local + offsets[:, None]).ravel()[:n]


def odd_even_scan(x):
    """jax.lax.associative_scan's recursion (its source): add neighbouring pairs, scan the
    pair sums, then each even position is its left neighbour's prefix plus itself."""
    n = len(x)
    if n < 2:
        return x.copy()
    odd = odd_even_scan(x[0:-1:2] + x[1::2])
    even = np.concatenate([x[:1], (odd[:-1] if n % 2 == 0 else odd) + x[2::2]])
    out = np.empty_like(x)
    out[0::2], out[1::2] = even, odd
    return out


# Models of libraries' orders, in numpy, adding in the storage format: candidates beside our
# twins, so that the table's "bit for bit equal to" names an order for kernels none of our
# algorithms follows.
MODELS = {"model: blocks of 16 (XLA)": blocked_scan, "model: odd–even recursion": odd_even_scan}


def twins(tree, w, fmt):
    """Every CPU twin's rootfix of w, and each model's: (name, accumulate) -> results. A twin
    that does not run in this format (vectorial-compensated needs f32 additions) is left out."""
    out = {}
    for algo in ta.ALGORITHMS:
        for acc in (None, fmt_info(fmt)[1]):
            try:
                out[(algo, acc)] = ta.rootfix(tree, w, algo, accumulate=acc)
            except ta.InputError:
                pass
    for name, model in MODELS.items():
        out[(name, None)] = model(w)
    return out


def reached(kappas, cond):
    return all(abs(np.log10(k / cond)) <= np.log10(REACH) for k in kappas)


class Runs:
    """The weights, achieved κ and twins' results of each (format, κ, seed), computed once
    and shared by every kernel of that format."""

    def __init__(self, tree, dtypes, seeds):
        self.tree, self.dtypes, self.seeds = tree, dtypes, seeds
        self._w, self._twins, self._kappa = {}, {}, {}

    def w(self, fmt, cond, seed):
        key = (fmt, cond, seed)
        if key not in self._w:
            self._w[key] = weights(len(self.tree), cond, seed, fmt, self.dtypes[fmt])
        return self._w[key]

    def kappa(self, fmt, cond, seed):
        """κ of the weights as rounded (the score's achieved_cond: Σ|w| / |Σw|, exact)."""
        key = (fmt, cond, seed)
        if key not in self._kappa:
            w = self.w(fmt, cond, seed)
            x = ta.exact(self.tree, w, "rootfix")
            self._kappa[key] = ta.score(self.tree, w, rootfix=x).achieved_cond
        return self._kappa[key]

    def kappas(self, fmt, cond):
        return [self.kappa(fmt, cond, s) for s in self.seeds]

    def twins(self, fmt, cond, seed):
        key = (fmt, cond, seed)
        if key not in self._twins:
            self._twins[key] = twins(self.tree, self.w(fmt, cond, seed), fmt)
        return self._twins[key]


def grade_kernel(runs, kernel):
    """One kernel over every reachable κ and seed: its row of the table (a dict)."""
    lib, name, fmt, fn = kernel
    results, equal, by_value = {}, None, None
    for cond in CONDS:
        if not reached(runs.kappas(fmt, cond), cond):
            continue
        for seed in runs.seeds:
            w = runs.w(fmt, cond, seed)
            r = np.asarray(fn(w))
            if r.dtype != w.dtype or r.shape != w.shape:
                sys.exit(f"real-kernels: {name} gave {r.dtype}{r.shape} for {w.dtype}{w.shape}")
            results[(cond, seed)] = r
            cands = runs.twins(fmt, cond, seed)
            same = {k for k, t in cands.items() if np.array_equal(bits_of(t), bits_of(r))}
            equal = same if equal is None else equal & same
            # Equal values with other bits: signs of zero (a NaN is equal to nothing).
            near = {k for k, t in cands.items() if np.array_equal(t, r)}
            by_value = near if by_value is None else by_value & near
    signs_only = not equal and bool(by_value)
    equal = (by_value if signs_only else equal) or set()
    wider = fmt_info(fmt)[1]
    # The bound is that of the additions the kernel makes where a twin shows which; without
    # one, that of additions in the storage format (the kernel's own dtype). vectorial-exact
    # shows none: its bits are the correctly rounded ones, whatever it adds in.
    shown = {acc for algo, acc in equal if algo != "vectorial-exact"}
    adds_in = wider if shown == {wider} else None
    bits, outside, vacuous = {}, 0, None
    for (cond, seed), r in results.items():
        w = runs.w(fmt, cond, seed)
        s = ta.score(runs.tree, w, rootfix=r, accumulate=adds_in).rootfix
        bits[cond] = max(bits.get(cond, 0.0), s.max_lost_bits)
        outside += not s.within["any-order"]
        # γ_k = k·u / (1 − k·u) is ∞ once k·u ≥ 1 (depth 2^p): "within" says nothing there.
        inf = np.flatnonzero(np.isinf(s.any_order_bound))
        if len(inf):
            vacuous = int(inf[0]) if vacuous is None else min(vacuous, int(inf[0]))
    return {"library": lib, "kernel": name, "storage": fmt, "adds_in": adds_in or fmt,
            "known": bool(shown), "bits": bits, "runs": len(results), "outside": outside,
            "vacuous_from": vacuous, "signs_only": signs_only,
            "twins": [k for k in sorted_twins(equal)], "results": results}


def sorted_twins(keys):
    order = {a: i for i, a in enumerate(list(ta.ALGORITHMS) + list(MODELS))}
    return sorted(keys, key=lambda k: (k[1] is not None, order[k[0]]))


def twins_text(keys, fmt):
    """Twins grouped by the format they add in: "sequential, parallel (f32 additions)"."""
    if not keys:
        return "none of ours or the models"
    groups = {}
    for algo, acc in keys:
        groups.setdefault(acc or fmt, []).append(algo)
    return "; ".join(f"{', '.join(a)} ({acc} additions)" for acc, a in groups.items())


def sci(x):
    """1.0e2 rather than 1.0e+02: the table's κ."""
    mant, exp = f"{x:.1e}".split("e")
    return f"{mant}e{int(exp)}"


def row_cells(row):
    bits = [f"{row['bits'][c]:.1f}" if c in row["bits"] else "—" for c in CONDS]
    within = "yes" if row["outside"] == 0 else f"no ({row['outside']} of {row['runs']} runs)"
    if row["vacuous_from"] is not None:
        within += f" (bound ∞ from vertex {row['vacuous_from']})"
    adds = row["adds_in"] if row["known"] else f"{row['adds_in']}?"
    twins = twins_text(row["twins"], row["storage"])
    if row["signs_only"]:
        twins += ", but for the sign of some zeros"
    return [row["library"], f"`{row['kernel']}`", row["storage"], adds, *bits, within, twins]


def kappa_cells(runs, fmt):
    cells = []
    for cond in CONDS:
        ks = runs.kappas(fmt, cond)
        text = f"{sci(min(ks))}–{sci(max(ks))}"
        cells.append(text if reached(ks, cond) else f"{text} (not run)")
    return [fmt, *cells]


def render(header, rows, markdown):
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
    rows = [[c.replace("`", "") for c in r] for r in rows]
    width = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip()
                     for r in [header] + rows)


def parse_seeds(text):
    if "-" in text:
        a, b = text.split("-", 1)
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",")]


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default=",".join(LIBRARIES),
                   help="comma-separated libraries among " + ", ".join(LIBRARIES))
    p.add_argument("--n", type=int, default=10_000, help="vertices of the chain (10 000)")
    p.add_argument("--seeds", default="1-5", help="A-B or a comma list (1-5)")
    p.add_argument("--markdown", action="store_true", help="print Markdown tables")
    a = p.parse_args(argv)
    a.only = [x for x in a.only.split(",") if x]
    unknown = [x for x in a.only if x not in LIBRARIES]
    if unknown:
        p.error(f"unknown librar{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}")
    a.seeds = parse_seeds(a.seeds)
    return a


def run(argv=None):
    """Grade every kernel; returns (rows, runs, versions, skipped, missing formats)."""
    a = parse(argv)
    dtypes, missing = formats()
    kernels, versions, skipped = load(a.only, dtypes)
    runs = Runs(chain(a.n), dtypes, a.seeds)
    rows = [grade_kernel(runs, k) for k in kernels]
    return a, rows, runs, versions, skipped, missing


def report(a, rows, runs, versions, skipped, missing):
    seeds = ", ".join(map(str, a.seeds))
    if len(a.seeds) > 2 and a.seeds == list(range(a.seeds[0], a.seeds[-1] + 1)):
        seeds = f"{a.seeds[0]}–{a.seeds[-1]}"
    plural = "s" if len(a.seeds) > 1 else ""
    out = [f"Chain of {a.n} vertices, gensum weights, seed{plural} {seeds}: the most bits any "
           f"vertex lost (of 24 in f32, 11 in f16, 8 in bf16) over the seeds; \"—\": κ out of the "
           f"format's reach (the second table); \"adds in\" with \"?\": no twin or model "
           f"shows which additions gave its bits, the bound is that of additions in the "
           f"storage format."]
    # Prose wrapped at 100 columns: docs/findings.md pastes the output as it is.
    out = textwrap.wrap(out[0], 100) + [""]
    header = ["library", "kernel", "storage", "adds in",
              *[f"κ = {sci(c)}" for c in CONDS],
              "within any-order", "bit for bit equal to"]
    out += [render(header, [row_cells(r) for r in rows], a.markdown), ""]
    out += ["Achieved κ of the weights as stored (min–max over the seeds):", ""]
    khead = ["storage", *[f"κ = {sci(c)}" for c in CONDS]]
    fmts = sorted({r["storage"] for r in rows}, key=["f32", "f16", "bf16"].index)
    out += [render(khead, [kappa_cells(runs, f) for f in fmts], a.markdown), ""]
    libs = [f"{lib} {v}" if lib != "jax" else v for lib, v in versions.items() if lib != "ours"]
    if "bf16" not in missing:
        import ml_dtypes  # imported by formats() already: the bf16 rows are its arithmetic

        libs.append(f"ml_dtypes {ml_dtypes.__version__}")
    out += textwrap.wrap("Versions: " + "; ".join([f"treefix_accuracy {ta.__version__}", *libs]),
                         100)
    for lib, why in skipped.items():
        out.append(f"Skipped {lib}: {why}")
    for fmt, why in missing.items():
        out.append(f"Skipped the {fmt} format: {why}")
    return "\n".join(out)


def main(argv=None):
    print(report(*run(argv)))


if __name__ == "__main__":
    main()
