#!/bin/bash
# A/B in one binary: "new" (late-seen arrivals dated back) vs "old" (GAEA_X_NO_LATE=1), launch by
# launch, order swapped every repetition, sm and tcp, 2 ranks.  ab.sh BIN REPS OUT args...
# GAEA_X_NO_LATE was a temporary switch of the build these runs used (see ../README.md); it is
# not in the tree.
set -u
bin=$1 reps=$2 out=$3; shift 3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export UCX_WARN_UNUSED_ENV_VARS=n GAEA_DVFS=simulated
for r in $(seq 1 "$reps"); do
  order="old new"; ((r % 2 == 0)) && order="new old"
  for v in $order; do
    envs=(); [[ $v == old ]] && envs=(-x GAEA_X_NO_LATE=1)
    for tls in ${TLS_LIST:-sm tcp}; do
      d=$out/$v/rep$r; mkdir -p "$d"
      echo "$(date +%T) rep$r $v $tls load $(cut -d' ' -f1 /proc/loadavg)" >> "$out/log"
      UCX_TLS=$tls timeout 600 mpirun -np 2 "${envs[@]}" /work/main/build/bench/$bin "$@" \
        --json "$d/$bin-$tls.json" > "$d/$bin-$tls.txt" 2>&1 || echo "FAIL $v $tls rep$r" >> "$out/log"
    done
  done
done
