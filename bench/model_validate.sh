#!/usr/bin/env bash
# The scale models (framework/model) against measurements: gaea-model validate on one node and
# across emulated hosts with two link presets. Per layout two launches:
#   fresh   validate --fresh --collectives: calibrate (links, rates and the collectives' estimator)
#           and validate in one launch (the models' own error)
#   other   validate --machine <fresh's calibration>: a later launch (model + drift between
#           launches, what a user of a calibration file sees)
# Layouts (name: ranks, where, transport):
#   node-sm      2 ranks on this machine, shared memory
#   node-tcp     2 ranks on this machine, UCX_TLS=tcp (the intra-node link is tcp)
#   hosts-none   2 emulated hosts x 1 rank, unshaped veth (tcp)
#   hosts-bgq    the same with the bgq preset (link rate 14.4 Gbit/s; no delay without sch_netem)
#   hosts4-none  2 emulated hosts x 2 ranks (both link classes, 4 ranks on 2 cores)
#   hosts3-bgq   3 emulated hosts x 1 rank, bgq preset (fetch-and-add with 2 clients)
# Results: bench/out/<date>-model/ (MV_OUT overrides; built under .partial, renamed when
# complete): *.json,
# *.txt, machine-*.json, summary.md (bench/model_summary.py).
# Every layout runs under each progress mode of --modes (one node, default "spin auto") or
# --host-modes (emulated hosts, default "interrupt auto"): spin is the repeatable mode on one node;
# auto's waits depend on what came before (a sleeping progress thread must be woken), which no
# per-operation model holds. Across hosts spin is not used by default: the hosts share this
# machine's 2 cores, and 2-4 ranks each spinning with a progress thread time-slice in
# milliseconds, which is this machine's scheduler, not a network.
#   usage: bench/model_validate.sh [--reps N] [--layouts "node-sm hosts-none ..."] [--modes M]
#          [--host-modes M]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/nodes_common.sh"
export GAEA_CLUSTER_NAME=gaeam  # its own cluster
reps=20
modes="spin auto"
host_modes="interrupt auto"
layouts="node-sm node-tcp hosts-none hosts-bgq hosts4-none hosts3-bgq"
while (($#)); do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --layouts) layouts=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --host-modes) host_modes=$2; shift 2 ;;
    *) echo "usage: $0 [--reps N] [--layouts \"node-sm node-tcp hosts-none ...\"] [--modes \"spin auto\"]" >&2
       exit 2 ;;
  esac
done
tool=$root/build/apps/model/gaea-model
[[ -x $tool ]] || { echo "build first: $tool missing" >&2; exit 1; }
out=${MV_OUT:-$here/out/$(date +%Y%m%d-%H%M%S)-model}
[[ -e $out ]] && { echo "$out exists" >&2; exit 1; }
mkdir -p "$out.partial"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_WARN_UNUSED_ENV_VARS=n
trap nodes_down EXIT
{
  echo "# Scale models: predicted vs measured"
  echo
  echo "$(date -u) on $(hostname), $(nproc) cores; load before: $(load_now); $reps repetitions"
  echo "per point (medians; cases interleaved in a shuffled order). Layouts: $layouts;"
  echo "progress modes: $modes on one node, $host_modes across hosts."
} > "$out.partial/README.md"

# run LAYOUT MODE KIND ARGS...: one launch of gaea-model validate for the layout.
run() {
  local layout=$1 mode=$2 kind=$3
  shift 3
  export GAEA_PROGRESS=$mode
  local log=$out.partial/$kind-$layout-$mode.txt
  echo "== $layout $mode $kind (load $(load_now))" | tee -a "$out.partial/README.md"
  case $layout in
    node-sm) timeout 900 mpirun -np 2 --oversubscribe "$tool" validate "$@" > "$log" 2>&1 ;;
    node-tcp) timeout 900 mpirun -np 2 --oversubscribe -x UCX_TLS=tcp,self "$tool" validate "$@" \
                > "$log" 2>&1 ;;
    hosts-none | hosts-bgq)
      nodes_up "${layout#hosts-}"
      timeout 900 "$nodes_cluster" mpirun -np 2 --map-by ppr:1:node "$tool" validate "$@" \
        > "$log" 2>&1 ;;
    hosts4-none)
      nodes_up none
      timeout 1800 "$nodes_cluster" mpirun -np 4 "$tool" validate "$@" > "$log" 2>&1 ;;
    hosts3-bgq)
      if [[ $nodes_preset != 3-bgq ]]; then
        "$nodes_cluster" up 3 --ppn 1 --preset bgq > /dev/null
        nodes_preset=3-bgq
      fi
      timeout 1800 "$nodes_cluster" mpirun -np 3 "$tool" validate "$@" > "$log" 2>&1 ;;
    *) echo "unknown layout $layout" >&2; exit 2 ;;
  esac
}

for layout in $layouts; do
  layout_modes=$modes
  [[ $layout == hosts* ]] && layout_modes=$host_modes
  for mode in $layout_modes; do
    run "$layout" "$mode" fresh --fresh --collectives --reps "$reps" \
      --output "$out.partial/machine-$layout-$mode.json" --json "$out.partial/fresh-$layout-$mode.json"
    run "$layout" "$mode" other --machine "$out.partial/machine-$layout-$mode.json" \
      --reps "$reps" --json "$out.partial/other-$layout-$mode.json"
  done
done
nodes_down
echo "load after: $(load_now)" >> "$out.partial/README.md"
python3 "$here/model_summary.py" "$out.partial" > "$out.partial/summary.md"
mv "$out.partial" "$out"
cat "$out/summary.md"
echo "results: $out"
