#!/usr/bin/env bash
# Compares, byte for byte, what two builds of `accuracy` write: the main job's results.csv and
# nodes-sample.csv, those of an 8-algorithm sweep over four topologies, and `run --dump` on four
# topologies. A change that should leave every result alone leaves all eight files identical.
#
#   scripts/outputs-vs.sh BASE [NEW]
#
# BASE: the baseline's `accuracy` binary (an older commit built in a worktree, as
# scripts/main-job-vs.sh says); NEW: default target/release/accuracy. Exit 1 if any differs.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 BASE [NEW]" >&2
    exit 2
fi
base=$1
new=${2:-target/release/accuracy}
for bin in "$base" "$new"; do
    [[ -x $bin ]] || { echo "error: $bin: not an executable" >&2; exit 2; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Every algorithm of the new build's registry.
algos=$("$new" algorithms --names)
topologies=(chain star random-recursive profile)

for side in base new; do
    bin=${!side}
    "$bin" sweep --cond 1e1..1e10 --quiet --out "$tmp/$side-main" >/dev/null
    "$bin" sweep --cond 1e2..1e12 --trees 2 --nodes 3000 --topology chain,star,random-recursive,profile \
        --algos "$algos" --quiet --out "$tmp/$side-all" >/dev/null
    for t in "${topologies[@]}"; do
        "$bin" run --topology "$t" --nodes 20000 --cond 1e6 --algos "$algos" \
            --dump "$tmp/$side-dump-$t.csv" --quiet >/dev/null
    done
done

same=0
differ=0
compare() {
    if cmp -s "$tmp/base-$1" "$tmp/new-$1"; then
        same=$((same + 1))
    else
        differ=$((differ + 1))
        echo "differs: $1"
    fi
}
for f in main/results.csv main/nodes-sample.csv all/results.csv all/nodes-sample.csv; do
    compare "$f"
done
for t in "${topologies[@]}"; do
    compare "dump-$t.csv"
done
echo "$same identical, $differ different"
[[ $differ -eq 0 ]]
