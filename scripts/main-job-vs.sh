#!/usr/bin/env bash
# Times the main job (`accuracy sweep --cond 1e1..1e10`) of two builds in alternation, A B A B …,
# and prints each one's median wall time and the median of the pairwise ratios A/B: pairing keeps
# the ratio meaningful on a machine whose speed drifts between runs.
#
#   scripts/main-job-vs.sh BASE [NEW] [RUNS] [-- SWEEP ARGS…]
#
# BASE: the baseline's `accuracy` binary (e.g. an older commit built in a worktree:
#   git worktree add /tmp/base COMMIT && (cd /tmp/base && cargo build --release --bin accuracy)
#   then BASE=/tmp/base/target/release/accuracy);
# NEW: default target/release/accuracy; RUNS: pairs, default 11; SWEEP ARGS are added to both
# commands (e.g. -- --algos sequential,parallel,vectorial). Each run writes into a fresh
# temporary directory, removed afterwards.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 BASE [NEW] [RUNS] [-- SWEEP ARGS...]" >&2
    exit 2
fi
base=$1
shift
new=target/release/accuracy
runs=11
if [[ $# -gt 0 && $1 != -- ]]; then new=$1; shift; fi
if [[ $# -gt 0 && $1 != -- ]]; then runs=$1; shift; fi
if [[ $# -gt 0 && $1 == -- ]]; then shift; fi
extra=("$@")
for bin in "$base" "$new"; do
    [[ -x $bin ]] || { echo "error: $bin: not an executable" >&2; exit 2; }
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "error: RUNS must be a positive integer, not $runs" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Wall seconds of one main job by `bin`.
wall() {
    local bin=$1 dir
    dir=$(mktemp -d "$tmp/run.XXXXXX")
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" sweep --cond 1e1..1e10 --quiet --out "$dir/s" "${extra[@]}" >/dev/null
    t1=$(date +%s.%N)
    rm -rf "$dir"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}

# The lower middle of the numbers on stdin (the project's median convention).
median() {
    sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

wall "$new" >/dev/null # warm-up, not counted
: >"$tmp/a"
: >"$tmp/b"
: >"$tmp/r"
for ((i = 1; i <= runs; i++)); do
    a=$(wall "$new")
    b=$(wall "$base")
    echo "$a" >>"$tmp/a"
    echo "$b" >>"$tmp/b"
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.6f\n", a / b }' >>"$tmp/r"
    printf 'pair %d: new %.3f s, base %.3f s\n' "$i" "$a" "$b" >&2
done
printf 'new  %s: median %.3f s wall (%.3f-%.3f)\n' "$new" "$(median <"$tmp/a")" \
    "$(sort -g "$tmp/a" | head -1)" "$(sort -g "$tmp/a" | tail -1)"
printf 'base %s: median %.3f s wall (%.3f-%.3f)\n' "$base" "$(median <"$tmp/b")" \
    "$(sort -g "$tmp/b" | head -1)" "$(sort -g "$tmp/b" | tail -1)"
printf 'new/base: median of %d pairs %.3f (%.3f-%.3f)\n' "$runs" "$(median <"$tmp/r")" \
    "$(sort -g "$tmp/r" | head -1)" "$(sort -g "$tmp/r" | tail -1)"
