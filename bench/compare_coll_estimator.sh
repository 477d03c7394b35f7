#!/usr/bin/env bash
# The collectives' estimator ([Bcast-Energy]): calibrate, then predicted vs measured time and
# energy of every algorithm at sizes between the calibration's, on one node (2 ranks, shared
# memory) and across emulated hosts (2 hosts x 2 ranks, unshaped; 3 hosts x 1 rank, bgq preset).
# Each layout calibrates on itself. Results: bench/results/<date>-coll-estimator/ (built under
# .partial, renamed when complete): cal-*.json, val-*.json, val-*.txt, summary.md.
#   usage: bench/compare_coll_estimator.sh [--reps N] [--no-hosts]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/nodes_common.sh"
export GAEA_CLUSTER_NAME=gaeae  # its own cluster
reps=60
hosts=1
while (($#)); do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --no-hosts) hosts=0; shift ;;
    *) echo "usage: $0 [--reps N] [--no-hosts]" >&2; exit 2 ;;
  esac
done
tool=$root/build/apps/coll/gaea-coll
[[ -x $tool ]] || { echo "build first: $tool missing" >&2; exit 1; }
out=$here/results/$(date +%Y%m%d-%H%M%S)-coll-estimator
[[ -e $out ]] && { echo "$out exists" >&2; exit 1; }
mkdir -p "$out.partial"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{
  echo "# Collectives' estimator: predicted vs measured"
  echo
  echo "$(date -u) on $(hostname), $(nproc) cores; load before: $(load_now); reps $reps per timed point"
  echo "(medians of per-call times of the slowest rank; energy from the model meter, above a"
  echo "barrier-only loop). Sizes validated lie between the calibration sizes."
} >"$out.partial/summary.md"

run_layout() {  # name launcher...
  local name=$1
  shift
  "$@" "$tool" calibrate --reps "$reps" --out "$out.partial/cal-$name.json" >/dev/null
  "$@" "$tool" validate --reps "$reps" --calibration "$out.partial/cal-$name.json" \
    --json "$out.partial/val-$name.json" 2>/dev/null | grep -v "UCX  WARN" >"$out.partial/val-$name.txt"
  {
    echo
    echo "## $name (load after: $(load_now))"
    echo
    echo '```'
    sed -n '/time_mean%/,$p' "$out.partial/val-$name.txt"
    echo '```'
  } >>"$out.partial/summary.md"
}

run_layout node-2ranks-sm env UCX_TLS=sm mpirun -np 2
if ((hosts)); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "across hosts needs root (network namespaces); skipped" >>"$out.partial/summary.md"
  else
    trap '"$nodes_cluster" down >/dev/null 2>&1 || true' EXIT
    "$nodes_cluster" up 2 --ppn 2 >/dev/null
    run_layout hosts-2x2 "$nodes_cluster" mpirun -np 4
    "$nodes_cluster" down >/dev/null
    "$nodes_cluster" up 3 --ppn 1 --preset bgq >/dev/null
    run_layout hosts-3x1-bgq "$nodes_cluster" mpirun -np 3
    "$nodes_cluster" down >/dev/null
  fi
fi
mv "$out.partial" "$out"
echo "results in $out"
