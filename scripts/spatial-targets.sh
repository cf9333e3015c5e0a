#!/usr/bin/env bash
# The spatial figures of docs/design.md §12.9 in one go, with a built `accuracy`:
#   scripts/spatial-targets.sh OUT_DIR [ACCURACY_BINARY]
# Writes OUT_DIR/<name>.json (one `accuracy spatial --json` per run below) and prints the
# summary: the fitted exponents of every target, the treefix energy ratios at 2^20, the depths
# (under the per-round limit, and chain depths) and the layout's construction at 2^20, and the
# real trees. Sizes 2^10, 2^12, …, 2^22 (SMALL=1: 2^8 … 2^14, a smoke test). Gensum weights at
# κ = 1e5, seed 1 (the defaults). Not part of CI: the full run takes about 40 minutes on 2 cores,
# most of it the lost bits' exact evaluation at 2^22.
set -euo pipefail
out=${1:?usage: scripts/spatial-targets.sh OUT_DIR [ACCURACY_BINARY]}
acc=${2:-target/release/accuracy}
mkdir -p "$out"
if [ "${SMALL:-0}" = 1 ]; then
  sizes=2^8,2^10,2^12,2^14
else
  sizes=2^10,2^12,2^14,2^16,2^18,2^20,2^22
fi
data=generators/tests/data
run() {
  local name=$1
  shift
  [ -e "$out/$name.json" ] && return 0 # done by an earlier, interrupted run
  "$acc" spatial "$@" --json "$out/$name.json" >"$out/$name.txt"
}
# Theorems 1 and 2: light-first on every family and every curve.
for t in chain star random-recursive prufer kary:4 kary:2 broom:0.5 caterpillar-legs profile:20:2; do
  run "lf-${t//:/-}" --topology "$t" --nodes "$sizes" --order light-first \
    --curve hilbert,z,peano,row-major
done
# The seed's bad layouts: breadth-first on a perfect binary tree, the path child first
# (heavy-first, and depth-first: the spine has the smaller id) on a caterpillar.
run bad-kary-2 --topology kary:2 --nodes "$sizes" --order breadth-first,depth-first,heavy-first \
  --curve hilbert,z
run bad-caterpillar --topology caterpillar-legs --nodes "$sizes" \
  --order breadth-first,depth-first,heavy-first --curve hilbert,z
# The real trees of the test data: one size each, the exponent across them.
run real --tree $data/ape_bird_families.nwk --tree $data/HB_494_bus.mtx.gz \
  --tree $data/unifrac_crawford.tre --tree $data/ete3_diauxic.nw \
  --tree $data/biopython_bats.nex --tree $data/3elt.mtx.gz \
  --order breadth-first,depth-first,light-first,heavy-first --curve hilbert,z,peano,row-major
python3 - "$out" <<'PY'
import json, sys, glob, os, math
out = sys.argv[1]
def load(name):
    with open(os.path.join(out, name + ".json")) as f:
        return json.load(f)
def pat(rec, order, curve, pattern, op=None):
    for l in rec["layouts"]:
        if l["order"] == order and l["curve"] == curve:
            for p in l["patterns"]:
                if p["pattern"] == pattern and p["op"] == op:
                    return p
def fmt(x):
    return "   –  " if x is None else f"{x:6.3f}"
print("exponent of energy against n (least squares over the sizes)")
print(f"{'tree':<18} {'layout':<22} {'local':>6} {'par rf':>6} {'vec rf':>6} {'con rf':>6} {'con lf':>6} {'lca':>6}")
names = sorted(glob.glob(os.path.join(out, "*.json")))
for path in names:
    name = os.path.basename(path)[:-5]
    rec = load(name)
    tree = rec["trees"][0]["name"] if not name.startswith("real") else "real (6 files)"
    for l in rec["layouts"]:
        cells = [pat(rec, l["order"], l["curve"], "local"),
                 pat(rec, l["order"], l["curve"], "parallel", "rootfix"),
                 pat(rec, l["order"], l["curve"], "vectorial", "rootfix"),
                 pat(rec, l["order"], l["curve"], "contraction", "rootfix"),
                 pat(rec, l["order"], l["curve"], "contraction", "leaffix"),
                 pat(rec, l["order"], l["curve"], "lca")]
        row = " ".join(fmt(c["exponent"] if c else None) for c in cells)
        print(f"{tree:<18} {l['order'] + ' ' + l['curve']:<22} {row}")
print()
print("energy at n = 2^20 relative to parallel (rootfix, leaffix), depth beside, light-first layouts")
for path in names:
    name = os.path.basename(path)[:-5]
    if not name.startswith("lf-"):
        continue
    rec = load(name)
    for l in rec["layouts"]:
        for op in ["rootfix", "leaffix"]:
            line = []
            base = None
            for algo in ["parallel", "vectorial", "vectorial-exact", "contraction"]:
                p = pat(rec, l["order"], l["curve"], algo, op)
                q = [q for q in p["points"] if q["n"] == 2**20]
                if not q:
                    continue
                q = q[0]
                base = base or q["energy"]
                line.append(f"{algo} {q['energy']/base:5.2f} (d {q['depth']})")
            if line:
                print(f"{rec['trees'][0]['name']:<18} {l['order'] + ' ' + l['curve']:<22} {op:<8} " + "; ".join(line))
print()
print("at n = 2^20, light-first hilbert: depth under the per-round limit (chain depth), and the")
print("construction of the layout and of the virtual tree: energy per vertex, depth")
pats = [("local", None), ("parallel", "rootfix"), ("vectorial", "rootfix"),
        ("contraction", "rootfix"), ("contraction", "leaffix"), ("pointer-jumping", None), ("lca", None)]
print(f"{'tree':<18} " + " ".join(f"{(a + ' ' + (o or ''))[:15]:>15}" for a, o in pats)
      + f" {'layout E/n':>11} {'depth':>6} {'vtree E/n':>9} {'depth':>6}")
for path in names:
    name = os.path.basename(path)[:-5]
    if not name.startswith("lf-"):
        continue
    rec = load(name)
    def at(pattern, op):
        p = pat(rec, "light-first", "hilbert", pattern, op)
        q = [q for q in p["points"] if q["n"] == 2**20] if p else []
        return q[0] if q else None
    cells = []
    for a, o in pats:
        q = at(a, o)
        cells.append("–" if q is None else f"{q['depth']} ({q['chain_depth']})")
    lay, vt = at("layout", None), at("virtual-tree", None)
    build = "" if lay is None or vt is None else \
        f" {lay['energy_per_vertex']:11.1f} {lay['depth']:6d} {vt['energy_per_vertex']:9.2f} {vt['depth']:6d}"
    print(f"{rec['trees'][0]['name']:<18} " + " ".join(f"{c:>15}" for c in cells) + build)
print()
print("batched LCA against the seed's n log n: energy / (n log2 n) over the sizes (min, max) and the")
print("exponent of energy / log2 n, light-first + Hilbert")
for path in names:
    name = os.path.basename(path)[:-5]
    if not (name.startswith("lf-") or name == "real"):
        continue
    rec = load(name)
    p = pat(rec, "light-first", "hilbert", "lca")
    if not p:
        continue
    pts = p["points"]
    c = [q["energy"] / (q["n"] * math.log2(q["n"])) for q in pts]
    xs = [math.log(q["n"]) for q in pts]
    ys = [math.log(q["energy"] / math.log2(q["n"])) for q in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    tree = rec["trees"][0]["name"] if name != "real" else "real (6 files)"
    print(f"{tree:<18} c {min(c):5.2f} … {max(c):5.2f}   exponent of energy/log2 n {slope:6.3f}")
PY
