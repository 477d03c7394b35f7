#!/usr/bin/env bash
# gaea::coll's shared-memory algorithm beside Open MPI (coll/tuned defaults) on one node:
# launches x {2, 4 ranks} x {barrier, broadcast, reduce, allreduce, allgather, alltoall}, each
# one gaea-coll-bench process with `--algos shm,mpi` (interleaved per size, same buffers); with
# SINGLE=1 broadcast and allgather from 32 KiB also with GAEA_COLL_SHM_SINGLE_COPY=64K. The
# load before every process goes to log.txt; bench/coll_shm_summary.py makes the tables.
#   bench/coll_shm_sweep.sh [build-dir=build] [out-dir=/tmp/coll-shm-sweep]
# Environment: LAUNCHES (3), RANKS ("2 4"), ARGS ("--factor 8 --reps 3").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=$(cd "${1:-$root/build}" && pwd)/bench/gaea-coll-bench
out=${2:-/tmp/coll-shm-sweep}
[[ -x $bench ]] || { echo "error: $bench not built" >&2; exit 2; }
mkdir -p "$out"
export OMPI_MCA_rmaps_base_oversubscribe=1 UCX_TLS=sm
flags=()
[[ $(id -u) == 0 ]] && flags+=(--allow-run-as-root)
read -r -a args <<<"${ARGS:---factor 8 --reps 3}"
for launch in $(seq 1 "${LAUNCHES:-3}"); do
  for np in ${RANKS:-2 4}; do
    for op in barrier broadcast reduce allreduce allgather alltoall; do
      echo "$(date +%T) L$launch np$np $op load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/log.txt"
      timeout 300 mpiexec "${flags[@]}" -n "$np" "$bench" --op "$op" "${args[@]}" --algos shm,mpi \
        --json "$out/shm-$np-$op-$launch.json" >"$out/shm-$np-$op-$launch.txt" 2>&1
      if [[ ${SINGLE:-0} == 1 && ($op == broadcast || $op == allgather) ]]; then
        GAEA_COLL_SHM_SINGLE_COPY=65536 timeout 300 mpiexec "${flags[@]}" \
          -x GAEA_COLL_SHM_SINGLE_COPY -n "$np" "$bench" --op "$op" --min 32768 "${args[@]}" \
          --algos shm,mpi --json "$out/single-$np-$op-$launch.json" \
          >"$out/single-$np-$op-$launch.txt" 2>&1
      fi
    done
  done
done
echo "$(date +%T) done" >>"$out/log.txt"
python3 "$root/bench/coll_shm_summary.py" "$out" >"$out/summary.md"
echo "tables: $out/summary.md"
