#!/usr/bin/env bash
# The GPU figures of docs/gpu.md in one go, on a machine with a GPU and a built `accuracy`:
#   scripts/gpu-measure.sh OUT_DIR [ACCURACY_BINARY]
# Writes OUT_DIR/{info.txt, wide/, deep/, other/, exact/, sweeps.txt, mismatches.txt}: bench.csv and
# bench.html per bench (each resumable: run the script again after an interruption), the
# default sweep's wall time on each backend (3 runs each), and a sweep of every algorithm on
# the GPU, which exits 3 unless every result equals its CPU twin's bits on this device.
# SMALL=1 shrinks every size (a smoke test, e.g. on lavapipe). Needs the example bench_limbs
# built (`cargo build --release --bin accuracy --example bench_limbs`; LIMBS_BIN overrides its
# path). PARTS picks what runs (comma-separated, default all): wide, deep, other, exact, sweeps,
# twin; e.g. PARTS=exact,sweeps,twin fits a short lease. Not part of CI.
set -euo pipefail
out=${1:?usage: scripts/gpu-measure.sh OUT_DIR [ACCURACY_BINARY]}
acc=${2:-target/release/accuracy}
mkdir -p "$out"
if [ "${SMALL:-0}" = 1 ]; then
  wide=(--min-log2 12 --max-log2 12) deep=(--min-log2 10 --max-log2 11) nodes=2000 reps=1
else
  wide=(--min-log2 24 --max-log2 24) deep=(--min-log2 12 --max-log2 18) nodes=10000 reps=3
fi
parts=,${PARTS:-wide,deep,other,exact,sweeps,twin},
part() { [[ $parts == *",$1,"* ]]; }
# Every algorithm with a GPU kernel, as the registry lists them.
all=$("$acc" algorithms --names --gpu)

"$acc" info | tee "$out/info.txt"
# Wide trees: the star's leaffix gather (the worst case of the level-synchronous kernels),
# every topology against the star, stage and transfer bandwidth against the copy kernel and
# plain copies of the same run.
if part wide; then
  "$acc" bench --topology star,random-recursive,kary:4,prufer "${wide[@]}" --ops rootfix,leaffix \
    --reps "$reps" --out "$out/wide"
fi
# Deep trees: the narrow (one workgroup, many levels) paths.
if part deep; then
  "$acc" bench --topology chain,caterpillar-legs,broom:0.5 "${deep[@]}" --ops rootfix,leaffix \
    --reps "$reps" --out "$out/deep"
fi
# The other kernels against vectorial, in the same run (what each costs relative to it).
if part other; then
  "$acc" bench --topology star,random-recursive,chain "${wide[@]}" --ops rootfix,leaffix \
    --algos "$all" --reps "$reps" --out "$out/other"
fi
# The exact scan against vectorial and parallel at 2^20 .. 2^24 (its targets: at most L + 1
# times vectorial's time at 2^22; faster than parallel wherever parallel is more than L + 1
# times slower than vectorial). L (32-bit words) depends on the weights: exact/limbs.csv gives
# it per tree, exact/bench-limbs.csv is bench.csv with L appended to each row.
if part exact; then
  if [ "${SMALL:-0}" = 1 ]; then exact=(12 12); else exact=(20 24); fi
  "$acc" bench --topology star,chain,random-recursive --min-log2 "${exact[0]}" --max-log2 "${exact[1]}" \
    --ops rootfix,leaffix --algos parallel,vectorial,vectorial-exact --reps "$reps" --out "$out/exact"
  limbs=${LIMBS_BIN:-target/release/examples/bench_limbs}
  "$limbs" star,chain,random-recursive "${exact[0]}" "${exact[1]}" >"$out/exact/limbs.csv"
  # Join on (topology, n); bench.csv's first two columns are topology and n (the baselines'
  # rows, which have no tree, get an empty L).
  awk -F, 'NR == FNR { if (FNR > 1) L[$1 "," $2] = $3; next }
    FNR == 1 { print $0 ",limbs"; next } { print $0 "," L[$1 "," $2] }' \
    "$out/exact/limbs.csv" "$out/exact/bench.csv" >"$out/exact/bench-limbs.csv"
fi

# The default sweep on each backend: wall time of fresh runs (no resume).
if part sweeps; then
  : >"$out/sweeps.txt"
  for backend in cpu gpu cpu gpu cpu gpu; do
    dir=$(mktemp -d)
    start=$(date +%s%N)
    "$acc" sweep --cond 1e1..1e10 --nodes "$nodes" --backend "$backend" --quiet --out "$dir" >/dev/null
    end=$(date +%s%N)
    echo "default sweep --backend $backend: $(((end - start) / 1000000)) ms" | tee -a "$out/sweeps.txt"
    rm -rf "$dir"
  done
  # The default sweep and a sweep of 2^22-vertex trees on each backend, the exact reference
  # computed on the CPU, and on the GPU where the backend is the GPU.
  for side in cpu:cpu gpu:cpu gpu:gpu; do
    backend=${side%:*} exact_on=${side#*:}
    for what in default big; do
      dir=$(mktemp -d)
      if [ "$what" = big ] && [ "${SMALL:-0}" != 1 ]; then
        args=(--topology star,chain,random-recursive --nodes 4194304 --trees 1 --cond 1e8)
      else
        args=(--cond 1e1..1e10 --nodes "$nodes")
      fi
      start=$(date +%s%N)
      "$acc" sweep "${args[@]}" --backend "$backend" --exact-on "$exact_on" --quiet --out "$dir" >/dev/null
      end=$(date +%s%N)
      echo "$what sweep --backend $backend --exact-on $exact_on: $(((end - start) / 1000000)) ms" |
        tee -a "$out/sweeps.txt"
      rm -rf "$dir"
    done
  done
fi

# Bit-exactness of every GPU kernel on this device against its CPU twin: the sweep exits 3
# (after writing everything) if any result differs from its twin's bits.
if part twin; then
  dir=$(mktemp -d)
  if "$acc" sweep --topology chain,star,random-recursive,prufer --cond 1e2,1e8,1e12 --trees 2 \
    --nodes "$nodes" --algos "$all" --backend gpu --quiet --out "$dir" >/dev/null; then
    echo "every GPU result equals its CPU twin's bits ($(($(wc -l <"$dir/results.csv") - 1)) rows)" |
      tee "$out/mismatches.txt"
  else
    cp "$dir/results.csv" "$out/twin-results.csv"
    echo "GPU/twin mismatches or bound violations: see $out/twin-results.csv" | tee "$out/mismatches.txt"
    exit 3
  fi
  rm -rf "$dir"
fi
