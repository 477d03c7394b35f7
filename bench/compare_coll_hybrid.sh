#!/usr/bin/env bash
# [Bcast-Energy]'s validation, scaled to this machine: the four broadcast "applications" A-D of
# the paper's table (messages, size, nodes, processes per node), each on the closest layout this
# machine emulates, with the paper's four algorithms (binomial and the others beside them):
#   scatter_allgather (MPI/SAG), chain (MPI/Pipeline), hybrid_scatter_allgather (Hybrid/SAG),
#   hybrid_chain (Hybrid/Pipeline). Per case the estimator is calibrated in the same launch
# (gaea-coll validate --fresh), then every algorithm is predicted and measured at the case's size;
# the summary gives the time and energy error per algorithm, the case's total energy (per-call
# energy x messages) and whether the estimator's choice is the measured cheapest.
#   case  paper (msgs x size, nodes x ppn)   here
#   A     2000 x 1 MB,    14 x 8             2000 x 1 MiB,  2 hosts x 2
#   B       80 x 25 MB,   16 x 1               80 x 4 MiB,  4 hosts x 1
#   C        4 x 500 MB,  10 x 4                4 x 16 MiB, 2 hosts x 2
#   D        1 x 1.75 GB,  6 x 12               1 x 64 MiB, 1 host  x 2 (every rank on one node;
#                                                no more ranks than cores)
# Energy is the model meter's (no RAPL here); the switch power is 0 (a node cannot meter it).
# Results: bench/out/<date>-coll-hybrid/ (CHYB_OUT overrides; built under .partial, renamed when
# complete): <case>.json and <case>.txt per case, summary.md (bench/coll_hybrid_summary.py).
#   usage: bench/compare_coll_hybrid.sh [--reps N] [--cases "A B C D"]   (as root: emulated hosts)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/nodes_common.sh"
export GAEA_CLUSTER_NAME=gaeah  # its own cluster
reps=10
cases="A B C D"
while (($#)); do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    *) echo "usage: $0 [--reps N] [--cases \"A B C D\"]" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "$0 needs root (network namespaces for the emulated hosts)" >&2; exit 1; }
tool=$root/build/apps/coll/gaea-coll
[[ -x $tool ]] || { echo "build first: $tool missing" >&2; exit 1; }
out=${CHYB_OUT:-$here/out/$(date +%Y%m%d-%H%M%S)-coll-hybrid}
[[ -e $out ]] && { echo "$out exists" >&2; exit 1; }
mkdir -p "$out.partial"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_WARN_UNUSED_ENV_VARS=n
trap '"$nodes_cluster" down >/dev/null 2>&1 || true' EXIT

declare -A messages=([A]=2000 [B]=80 [C]=4 [D]=1)
declare -A bytes=([A]=1048576 [B]=4194304 [C]=16777216 [D]=67108864)
declare -A hosts=([A]=2 [B]=4 [C]=2 [D]=1)
declare -A ppn=([A]=2 [B]=1 [C]=2 [D]=2)
{
  echo "command: bench/compare_coll_hybrid.sh --reps $reps --cases \"$cases\""
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); machine: $(uname -srm), $(nproc) cores"
  echo "git: $(git -C "$root" rev-parse --short HEAD)"
  echo "uptime at start: $(uptime)"
} >"$out.partial/run.txt"
for c in $cases; do
  [[ -n ${bytes[$c]:-} ]] || { echo "unknown case $c (A B C D)" >&2; exit 2; }
  n=$((hosts[$c] * ppn[$c]))
  echo "case $c: ${messages[$c]} x ${bytes[$c]} B on ${hosts[$c]} x ${ppn[$c]}; load $(load_now)" \
    >>"$out.partial/run.txt"
  # Oversubscribed emulated hosts share the 2 cores: waits must yield (docs/running.md).
  launch=(env GAEA_SHARED_CORES=yes)
  if ((hosts[$c] > 1)); then
    "$nodes_cluster" up "${hosts[$c]}" --ppn "${ppn[$c]}" >/dev/null
    launch+=("$nodes_cluster" mpirun -np "$n")
  else
    launch+=(mpirun --oversubscribe -np "$n")
  fi
  "${launch[@]}" "$tool" validate --fresh --reps "$reps" --ops broadcast --sizes "${bytes[$c]}" \
    --json "$out.partial/$c.json" >"$out.partial/$c.txt" 2>&1
  ((hosts[$c] > 1)) && "$nodes_cluster" down >/dev/null
  echo "$c ${messages[$c]} ${hosts[$c]} ${ppn[$c]}" >>"$out.partial/cases.txt"
done
echo "uptime at end: $(uptime)" >>"$out.partial/run.txt"
python3 "$here/coll_hybrid_summary.py" "$out.partial" >"$out.partial/summary.md"
mv "$out.partial" "$out"
echo "results in $out"
