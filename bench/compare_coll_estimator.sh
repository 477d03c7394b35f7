#!/usr/bin/env bash
# The collectives' estimator ([Bcast-Energy]): predicted vs measured time and energy of every
# algorithm at sizes between the calibration's, on one node (2 ranks, shared memory) and across
# emulated hosts (2 hosts x 2 ranks unshaped; 3 hosts x 1 rank, bgq preset). Per layout:
#   fresh    validate --fresh, --launches times: calibrate and validate in one launch; the
#            validation cases are also measured inside the calibration's run (the model's own
#            error) and again after it
#   cal      calibrate in a launch of its own, then val-a and val-b: two more launches validate
#            that file (the error a user sees: model + drift between launches), and the
#            measured times of val-a against val-b show the drift between launches itself.
# Each point's noise inside a launch (even vs odd repetitions) is in every table.
# Results: bench/out/<date>-coll-estimator/ (CEST_OUT overrides; built under .partial, renamed
# when complete):
# cal-*.json, fresh-*.json, val-*-{a,b}.json, *.txt, summary.md (bench/coll_estimator_summary.py).
# Every layout runs under each progress mode of --modes (default "spin auto"): the estimator is
# calibrated for the mode a job runs in, and auto's waits depend on what came before.
# Across hosts (4 and 3 ranks on this machine's 2 cores, about ten times slower per launch) the
# defaults are lighter: --host-modes "spin", --host-launches 1, --host-reps 20.
#   usage: bench/compare_coll_estimator.sh [--reps N] [--launches N] [--modes "spin auto"]
#          [--host-reps N] [--host-launches N] [--host-modes "spin"] [--no-hosts]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/nodes_common.sh"
export GAEA_CLUSTER_NAME=gaeae  # its own cluster
reps=100
hosts=1
modes="spin auto"
launches=3
host_reps=20
host_launches=1
host_modes="spin"
while (($#)); do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --no-hosts) hosts=0; shift ;;
    --modes) modes=$2; shift 2 ;;
    --launches) launches=$2; shift 2 ;;
    --host-reps) host_reps=$2; shift 2 ;;
    --host-launches) host_launches=$2; shift 2 ;;
    --host-modes) host_modes=$2; shift 2 ;;
    *) echo "usage: $0 [--reps N] [--launches N] [--modes M] [--host-reps N]" \
         "[--host-launches N] [--host-modes M] [--no-hosts]" >&2
       exit 2 ;;
  esac
done
tool=$root/build/apps/coll/gaea-coll
[[ -x $tool ]] || { echo "build first: $tool missing" >&2; exit 1; }
out=${CEST_OUT:-$here/out/$(date +%Y%m%d-%H%M%S)-coll-estimator}
[[ -e $out ]] && { echo "$out exists" >&2; exit 1; }
mkdir -p "$out.partial"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_WARN_UNUSED_ENV_VARS=n
{
  echo "# Collectives' estimator: predicted vs measured"
  echo
  echo "$(date -u) on $(hostname), $(nproc) cores; load before: $(load_now); $reps repetitions"
  echo "per point, progress modes: $modes, $launches fresh launches; across hosts $host_reps"
  echo "repetitions, modes: $host_modes, $host_launches fresh launch(es)"
  echo "(medians of the slowest member's time, all members starting together; energy"
  echo "from the model meter while the calls run). Sizes validated lie between the"
  echo "calibration sizes."
} >"$out.partial/summary.md"

run_layout() {  # name launcher...
  local layout=$1
  shift
  for mode in $modes; do
    GAEA_PROGRESS=$mode run_mode "$mode-$layout" "$@"
  done
}

run_mode() {  # name launcher... (GAEA_PROGRESS set)
  local name=$1
  shift
  local p=$out.partial
  for ((k = 1; k <= launches; ++k)); do
    "$@" "$tool" validate --fresh --reps "$reps" --json "$p/fresh-$name-$k.json" \
      >"$p/fresh-$name-$k.txt" 2>/dev/null
  done
  "$@" "$tool" calibrate --reps "$reps" --output "$p/cal-$name.json" >/dev/null 2>&1
  for v in a b; do
    "$@" "$tool" validate --reps "$reps" --calibration "$p/cal-$name.json" \
      --json "$p/val-$name-$v.json" >"$p/val-$name-$v.txt" 2>/dev/null
  done
  echo "$name: load after $(load_now)" >>"$p/loads.txt"
}

export GAEA_PROGRESS
run_layout node-2ranks-sm env UCX_TLS=sm mpirun -x GAEA_PROGRESS -np 2
if ((hosts)); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "across hosts needs root (network namespaces); skipped" >>"$out.partial/summary.md"
  else
    trap '"$nodes_cluster" down >/dev/null 2>&1 || true' EXIT
    "$nodes_cluster" up 2 --ppn 2 >/dev/null
    reps=$host_reps launches=$host_launches modes=$host_modes \
      run_layout hosts-2x2 "$nodes_cluster" mpirun -np 4
    "$nodes_cluster" down >/dev/null
    "$nodes_cluster" up 3 --ppn 1 --preset bgq >/dev/null
    reps=$host_reps launches=$host_launches modes=$host_modes \
      run_layout hosts-3x1-bgq "$nodes_cluster" mpirun -np 3
    "$nodes_cluster" down >/dev/null
  fi
fi
python3 "$here/coll_estimator_summary.py" "$out.partial" >>"$out.partial/summary.md"
mv "$out.partial" "$out"
echo "results in $out"
