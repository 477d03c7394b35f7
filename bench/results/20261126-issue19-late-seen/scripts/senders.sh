#!/bin/bash
# reaction launches alternating the sender's mode (spin vs same), sm and tcp (sender/; adf1301)
set -u
reps=$1 out=$2; shift 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export UCX_WARN_UNUSED_ENV_VARS=n GAEA_DVFS=simulated
for r in $(seq 1 "$reps"); do
  order="spin same"; ((r % 2 == 0)) && order="same spin"
  for s in $order; do
    for tls in sm tcp; do
      d=$out/sender-$s/rep$r; mkdir -p "$d"
      echo "$(date +%T) rep$r $s $tls load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$out/log"
      UCX_TLS=$tls timeout 300 mpirun -np 2 /work/main/build/bench/reaction --sender-mode $s "$@" \
        --json "$d/reaction-$tls.json" > "$d/reaction-$tls.txt" 2>&1 || echo FAIL >> "$out/log"
    done
  done
done
