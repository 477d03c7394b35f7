#!/usr/bin/env bash
# Runs the energy benchmarks (shift, idle_wait, reaction; see bench/README.md) over UCX shared
# memory and TCP, writing each table (.txt) and result file (.json) into an output directory and
# printing the tables. Builds nothing.
#
#   bench/run_energy.sh [BUILD_DIR [OUT_DIR]]
#     BUILD_DIR  default ./build (the benchmarks are BUILD_DIR/bench/{shift,idle_wait,reaction})
#     OUT_DIR    default bench/out/<date>-energy (a kept run copies its summary to
#                bench/results/<date>-<topic>/, see bench/results/README.md)
#   Environment (all optional):
#     TRANSPORTS="sm tcp"   UCX_TLS values to run
#     SHIFT_NP=2 IDLE_NP=4 REACTION_NP=2
#     SHIFT_ARGS, IDLE_ARGS, REACTION_ARGS   extra arguments per benchmark (e.g. SHIFT_ARGS="--reps 3")
#     MPIRUN=mpirun  MPIRUN_ARGS=""          launcher and its extra arguments
#     GAEA_DVFS=simulated   (no real DVFS on VMs: simulated transitions are recorded and charged
#                            by the energy model)
set -uo pipefail

build=${1:-./build}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${2:-$here/out/$(date +%Y%m%d-%H%M%S)-energy}
transports=${TRANSPORTS:-sm tcp}
mpirun=${MPIRUN:-mpirun}
read -r -a mpirun_args <<<"${MPIRUN_ARGS:-}"
read -r -a shift_args <<<"${SHIFT_ARGS:-}"
read -r -a idle_args <<<"${IDLE_ARGS:-}"
read -r -a reaction_args <<<"${REACTION_ARGS:-}"

for b in shift idle_wait reaction; do
  if [[ ! -x $build/bench/$b ]]; then
    echo "run_energy.sh: $build/bench/$b not found; build it first, e.g." >&2
    echo "  cmake --build $build --target shift idle_wait reaction" >&2
    exit 2
  fi
done
mkdir -p "$out" || exit 2

# Open MPI as root in a container, more ranks than cores (idle_wait runs 4 ranks on 2 cores).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export GAEA_DVFS=${GAEA_DVFS:-simulated}

{
  echo "date: $(date -Iseconds)"
  echo "host: $(uname -a)"
  echo "cpus: $(nproc)"
  echo "build: $(cd "$build" && pwd)"
  echo "commit: $(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "ucx: $(ucx_info -v 2>/dev/null | head -1)"
  echo "GAEA_DVFS=$GAEA_DVFS transports: $transports"
  # Other jobs on the machine skew every figure here: keep the load next to the results.
  echo "loadavg at start: $(cat /proc/loadavg 2>/dev/null)"
} >"$out/environment.txt"
cat "$out/environment.txt"

failed=0
# run NAME TLS NP BINARY ARGS...: one benchmark, table to stdout and NAME-TLS.txt.
run() {
  local name=$1 tls=$2 np=$3 bin=$4
  shift 4
  echo
  echo "######## $name, UCX_TLS=$tls, $np ranks"
  if ! UCX_TLS=$tls "$mpirun" "${mpirun_args[@]}" -np "$np" "$build/bench/$bin" "$@" \
    --json "$out/$name-$tls.json" 2>&1 | tee "$out/$name-$tls.txt"; then
    echo "run_energy.sh: $name over $tls failed" >&2
    failed=1
  fi
}

for tls in $transports; do
  run shift "$tls" "${SHIFT_NP:-2}" shift "${shift_args[@]}"
  run idle_wait "$tls" "${IDLE_NP:-4}" idle_wait "${idle_args[@]}"
  run reaction "$tls" "${REACTION_NP:-2}" reaction "${reaction_args[@]}"
done

echo "loadavg at end: $(cat /proc/loadavg 2>/dev/null)" | tee -a "$out/environment.txt"
echo
echo "results in $out"
exit $failed
