#!/usr/bin/env bash
# Tests scripts/slurm/sweep.sh on a real Slurm: starts a one-node cluster from Debian's
# slurm-wlm and munge (munged, slurmctld and slurmd, as root, every file in one temporary
# directory, on free ports, with its own munge socket and key, so nothing of the machine's
# own Slurm or munge is used or touched), submits a 4-shard sweep through sweep.sh, waits for
# the merge, compares the merged results.csv and nodes-sample.csv with an unsharded run of the
# same sweep (cmp), and stops the daemons it started, by pid, also on failure or interruption.
#
#   scripts/slurm/local-cluster.sh [--binary PATH] [--keep]
#
# --binary: the `accuracy` executable (default target/release/accuracy); --keep: keep the
# temporary directory (it is kept anyway on failure, and its logs printed). Every wait has a
# deadline (TREEFIX_SLURM_TIMEOUT seconds in all, default 300): it never hangs.
# Needs root and `apt-get install slurm-wlm munge`. Exit 0: the merged bytes equal the
# unsharded run's.
set -euo pipefail

die() {
  echo "local-cluster: error: $*" >&2
  exit 1
}
log() { echo "local-cluster: $*"; }

root=$(cd "$(dirname "$0")/../.." && pwd)
binary="$root/target/release/accuracy" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=${2:?--binary PATH}; shift 2 ;;
    --keep) keep=1; shift ;;
    *) die "unknown option '$1' (usage: local-cluster.sh [--binary PATH] [--keep])" ;;
  esac
done
export PATH="$PATH:/usr/sbin:/sbin"
[ "$(id -u)" -eq 0 ] || die "must run as root (slurmd and the jobs run as root)"
for c in munged slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$c" >/dev/null || die "$c not found: apt-get install slurm-wlm munge"
done
[ -x "$binary" ] || die "$binary: not an executable (build it, or give --binary)"
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")

limit=${TREEFIX_SLURM_TIMEOUT:-300}
deadline=$((SECONDS + limit))
# Waits until "$@" succeeds, polling every 0.2 s; fails with WHAT at the deadline.
wait_for() {
  local what=$1
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || die "timed out after ${limit} s waiting for $what"
    sleep 0.2
  done
}

# Wall times, to 0.1 s.
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

d=$(mktemp -d "${TMPDIR:-/tmp}/treefix-slurm.XXXXXX")
mkdir -p "$d/state" "$d/spool" "$d/log" "$d/work"
mkdir -m 700 "$d/munge"
daemons=() jobs=()

stop() {
  local status=$?
  set +e
  trap - EXIT INT TERM
  if [ ${#jobs[@]} -gt 0 ] && [ -n "${SLURM_CONF:-}" ]; then
    scancel "${jobs[@]}" 2>/dev/null
    local t=$((SECONDS + 10))
    while [ -n "$(squeue -h -j "$(IFS=,; echo "${jobs[*]}")" 2>/dev/null)" ] && [ $SECONDS -lt $t ]; do
      sleep 0.2
    done
  fi
  # The daemons this script started, by pid, newest first: TERM, then KILL after 10 s.
  local i pid
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
    pid=${daemons[$i]}
    kill -TERM "$pid" 2>/dev/null
    local t=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $t ]; do sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  if [ "$status" -ne 0 ]; then
    for f in "$d"/log/* "$d"/work/sharded/slurm-*.out; do
      [ -f "$f" ] && { echo "--- $f (last lines)"; tail -n 15 "$f"; }
    done
    echo "local-cluster: FAILED; files kept in $d" >&2
  elif [ "$keep" -eq 1 ]; then
    log "files kept in $d"
  else
    rm -rf "$d"
  fi
  exit "$status"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Two TCP ports nothing listens on (a bash connect that fails).
free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  die "no free TCP port found"
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
[ "$slurmd_port" != "$ctld_port" ] || slurmd_port=$((ctld_port + 1))
host=$(hostname -s)

t0=$(now)
dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$d/munge/munge.key"
munged --foreground --force --socket="$d/munge/munge.socket" --key-file="$d/munge/munge.key" \
  --pid-file="$d/munge/munged.pid" --seed-file="$d/munge/munged.seed" \
  --log-file="$d/log/munged.log" >>"$d/log/munged.out" 2>&1 &
daemons+=($!)
wait_for "munged's socket" test -S "$d/munge/munge.socket"

cat >"$d/slurm.conf" <<CONF
ClusterName=treefix-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$d/slurm.conf"
slurmctld -D -f "$SLURM_CONF" >>"$d/log/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >>"$d/log/slurmd.out" 2>&1 &
daemons+=($!)
node_idle() { [ "$(sinfo -h -n "$host" -o %T 2>/dev/null)" = idle ]; }
wait_for "the node to come up idle" node_idle
up_s=$(since "$t0")
log "one-node cluster up in ${up_s} s ($(nproc) CPUs, ports $ctld_port/$slurmd_port)"

# 2 topologies × 3 targets × 4 trees × 2 child orders = 48 trees of 3000 vertices.
args=(--topology chain,random-recursive --cond 1e2..1e8 --points 3 --trees 4 --nodes 3000
  --child-order natural,light-first --algos sequential,parallel,vectorial,vectorial-chained)
cd "$d/work"
t1=$(now)
submitted=$("$root/scripts/slurm/sweep.sh" --shards 4 --out "$d/work/sharded" \
  --binary "$binary" -- "${args[@]}")
echo "$submitted"
array=$(awk '/^shards:/ {print $4}' <<<"$submitted")
merge=$(awk '/^merge:/ {print $3}' <<<"$submitted")
[ -n "$array" ] && [ -n "$merge" ] || die "sweep.sh printed no job ids"
jobs=("$array" "$merge")
gone() { [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ]; }
wait_for "the array and the merge to finish" gone
state=$(scontrol show job "$merge" | grep -o 'JobState=[A-Z_]*' | head -n 1)
[ "$state" = JobState=COMPLETED ] || die "merge job $merge ended with $state"
jobs=()
slurm_s=$(since "$t1")
log "4 shards and the merge ran in ${slurm_s} s"

t2=$(now)
"$binary" sweep --quiet "${args[@]}" --out "$d/work/whole"
whole_s=$(since "$t2")
for f in results.csv nodes-sample.csv; do
  cmp "$d/work/whole/$f" "$d/work/sharded/$f" || die "merged $f differs from the unsharded run's"
done
[ -f "$d/work/sharded/report.html" ] || die "the merge wrote no report.html"
log "merged results.csv and nodes-sample.csv equal the unsharded run's (cmp); unsharded run ${whole_s} s"
log "PASS in $(since "$t0") s (bring-up ${up_s} s, Slurm array + merge ${slurm_s} s)"
