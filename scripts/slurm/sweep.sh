#!/usr/bin/env bash
# One sweep on a Slurm cluster: a job array of N shards, then a merge that waits for them.
#
#   scripts/slurm/sweep.sh --shards N --out DIR [--sbatch "OPTIONS"] [--binary PATH] \
#       -- SWEEP ARGUMENTS
#
# Submits
#   - a job array of N tasks; task t (SLURM_ARRAY_TASK_ID, 0-based) runs shard K = t + 1:
#       accuracy sweep SWEEP ARGUMENTS --shard K/N --out DIR/shard-K
#   - a merge job, --dependency=afterok:<array> (it starts only when every task succeeded;
#     --kill-on-invalid-dep=yes cancels it when one failed, instead of leaving it pending):
#       accuracy merge DIR DIR/shard-1 … DIR/shard-N
# and prints both job ids. DIR must be on a file system every node sees. The job scripts are
# written to DIR (slurm-shard.sh, slurm-merge.sh) and the jobs' output to DIR/slurm-*.out.
# Submitting again with the same arguments resumes: each shard directory continues where it
# stopped. --sbatch options (partition, time, memory, --cpus-per-task …) go to both jobs; a
# shard's rayon pool gets the CPUs Slurm allocated it (SLURM_CPUS_ON_NODE).
# --binary: the `accuracy` executable (default: `accuracy` on PATH), visible on every node.
set -euo pipefail

usage() {
  sed -n '4,5p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit "${1:-2}"
}
die() {
  echo "error: $*" >&2
  exit 2
}

shards="" out="" sbatch_opts="" binary=""
while [ $# -gt 0 ]; do
  case "$1" in
    --shards) shards=${2:-}; shift 2 || usage ;;
    --out) out=${2:-}; shift 2 || usage ;;
    --sbatch) sbatch_opts=${2:-}; shift 2 || usage ;;
    --binary) binary=${2:-}; shift 2 || usage ;;
    --) shift; break ;;
    -h|--help) usage 0 ;;
    *) die "unknown option '$1' (sweep arguments go after --)" ;;
  esac
done
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || die "--shards takes a positive number of shards (got '${shards}')"
[ -n "$out" ] || die "--out DIR is required"
for a in "$@"; do
  case "$a" in
    --out|--out=*|--shard|--shard=*|--resume|--resume=*)
      die "'$a' is set by sweep.sh (each shard gets --shard K/N --out DIR/shard-K)" ;;
  esac
done
if [ -z "$binary" ]; then
  binary=$(command -v accuracy) || die "no 'accuracy' on PATH: give --binary PATH"
fi
[ -x "$binary" ] || die "$binary: not an executable"
command -v sbatch >/dev/null || die "sbatch not found: this script needs a Slurm cluster"

mkdir -p "$out"
out=$(cd "$out" && pwd)
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
read -r -a extra <<< "$sbatch_opts"

# The job scripts: every argument quoted for bash, so the jobs run exactly this command.
q() { [ $# -eq 0 ] || printf '%q ' "$@"; }
cat > "$out/slurm-shard.sh" <<EOF
#!/bin/bash
# Written by scripts/slurm/sweep.sh: shard K = SLURM_ARRAY_TASK_ID + 1 of $shards.
set -eu
K=\$((SLURM_ARRAY_TASK_ID + 1))
if [ -n "\${SLURM_CPUS_ON_NODE:-}" ]; then export RAYON_NUM_THREADS=\${RAYON_NUM_THREADS:-\$SLURM_CPUS_ON_NODE}; fi
exec $(q "$binary") sweep $(q "$@")--shard "\$K/$shards" --out $(printf %q "$out")/shard-"\$K"
EOF
dirs=()
for k in $(seq 1 "$shards"); do dirs+=("$out/shard-$k"); done
cat > "$out/slurm-merge.sh" <<EOF
#!/bin/bash
# Written by scripts/slurm/sweep.sh: the $shards shards joined into $out.
set -eu
exec $(q "$binary") merge $(q "$out" "${dirs[@]}")
EOF
chmod +x "$out/slurm-shard.sh" "$out/slurm-merge.sh"

# --parsable prints "id" or "id;cluster".
array=$(sbatch --parsable --job-name=treefix-sweep --array="0-$((shards - 1))" \
  --output="$out/slurm-%A_%a.out" "${extra[@]}" "$out/slurm-shard.sh")
array=${array%%;*}
merge=$(sbatch --parsable --job-name=treefix-merge --dependency="afterok:$array" \
  --kill-on-invalid-dep=yes --output="$out/slurm-%j-merge.out" "${extra[@]}" \
  "$out/slurm-merge.sh")
merge=${merge%%;*}
echo "shards: job array $array ($shards tasks: accuracy sweep … --shard K/$shards --out $out/shard-K)"
echo "merge: job $merge (after every shard succeeded: accuracy merge $out $out/shard-1 … $out/shard-$shards)"
