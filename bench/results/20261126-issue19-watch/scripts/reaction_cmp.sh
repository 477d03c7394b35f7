#!/bin/bash
# interleaved reaction runs: base vs new, sm and tcp, N reps
set -u
reps=${1:-3}; out=${2:-/tmp/cmp/reaction}; modes=${MODES:-spin,interrupt,auto}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 GAEA_DVFS=simulated
for r in $(seq 1 $reps); do
  order="base new"; ((r % 2 == 0)) && order="new base"
  for b in $order; do
    bd=/work/$b/build; [[ $b == new ]] && bd=/work/main/build
    for tls in sm tcp; do
      d=$out/$b/rep$r; mkdir -p $d
      echo "$(date +%T) rep$r $b $tls load $(cut -d' ' -f1 /proc/loadavg)" | tee -a $out/log
      UCX_TLS=$tls timeout 300 mpirun -np 2 $bd/bench/reaction --modes $modes $REACTION_ARGS --json $d/reaction-$tls.json > $d/reaction-$tls.txt 2>&1 || echo FAIL >> $out/log
    done
  done
done
