#!/usr/bin/env python3
"""What each storage × accumulation format loses on the seed paper's chains: the most bits
any node lost (out of the storage format's precision), per algorithm and op, the largest over
seeds 1..5, at each κ the formats can hold. Prints the markdown tables of docs/findings.md.

    scripts/formats-findings.py [path/to/accuracy]   (default: target/release/accuracy)
"""

import subprocess
import sys

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/accuracy"
FORMATS = [("f16", None), ("f16", "f32"), ("bf16", None), ("bf16", "f32"), ("f32", None), ("f32", "f64"),
           ("f64", None)]
CONDS = ["1e1", "1e2", "1e3"]
SEEDS = range(1, 6)
ALGOS = ["sequential", "parallel", "vectorial", "vectorial-chained", "vectorial-compensated",
         "contraction", "vectorial-exact"]


def run(precision, accumulate, cond, seed):
    args = [BIN, "run", "--topology", "chain", "--nodes", "10000", "--cond", cond,
            "--seed", str(seed), "--precision", precision, "--algos", ",".join(ALGOS), "--quiet"]
    if accumulate:
        args += ["--accumulate", accumulate]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()
    bits = {}
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) > 5 and f[0] in ("rootfix", "leaffix") and f[1] in ALGOS:
            bits.setdefault((f[0], f[1]), float(f[5]))
    return bits, None


for cond in CONDS:
    print(f"\nκ = {cond} (chain, 10 000 vertices, gensum weights, seeds 1–5: the most bits any node lost)\n")
    names = [p + ("+" + a if a else "") for p, a in FORMATS]
    print("| op | algorithm | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    table = {}
    notes = []
    for (p, a), name in zip(FORMATS, names):
        for seed in SEEDS:
            bits, err = run(p, a, cond, seed)
            if bits is None:
                notes.append(f"{name}: {err}")
                break
            for k, b in bits.items():
                table[(k, name)] = max(table.get((k, name), 0.0), b)
    for op in ("rootfix", "leaffix"):
        for algo in ALGOS:
            cells = []
            for name in names:
                b = table.get(((op, algo), name))
                cells.append("—" if b is None else f"{b:.1f}")
            print(f"| {op} | {algo} | " + " | ".join(cells) + " |")
    for n in sorted(set(notes)):
        print(f"\n{n}")

# f64 alone, where its range and 53 bits reach: the paper's κ up to 1e10 and beyond.
F64_CONDS = ["1e2", "1e6", "1e10", "1e16"]
F64_ALGOS = [a for a in ALGOS if a != "vectorial-compensated"]
print("\nf64 storage and additions (chain, 10 000 vertices, gensum weights, seeds 1–5: the most "
      "bits out of 53 any node lost)\n")
print("| op | algorithm | " + " | ".join(f"κ = {c}" for c in F64_CONDS) + " |")
print("|---|---|" + "---|" * len(F64_CONDS))
f64 = {}
for cond in F64_CONDS:
    for seed in SEEDS:
        bits, err = run("f64", None, cond, seed)
        if bits is None:
            sys.exit(f"f64 κ={cond} seed {seed}: {err}")
        for k, b in bits.items():
            f64[(k, cond)] = max(f64.get((k, cond), 0.0), b)
for op in ("rootfix", "leaffix"):
    for algo in F64_ALGOS:
        print(f"| {op} | {algo} | " + " | ".join(f"{f64[((op, algo), c)]:.1f}" for c in F64_CONDS) + " |")
