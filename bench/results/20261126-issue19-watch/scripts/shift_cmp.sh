#!/bin/bash
set -u
reps=${1:-3}; out=${2:-/tmp/cmp/shift}
. /tmp/cmp/env.sh
for r in $(seq 1 $reps); do
  order="base new"; ((r % 2 == 0)) && order="new base"
  for b in $order; do
    bd=/work/$b/build; [[ $b == new ]] && bd=/work/main/build
    for tls in sm tcp; do
      d=$out/$b/rep$r; mkdir -p $d
      echo "$(date +%T) rep$r $b $tls load $(cut -d' ' -f1 /proc/loadavg)" | tee -a $out/log
      UCX_TLS=$tls timeout 300 mpirun -np 2 $bd/bench/shift --configs polling,auto --json $d/shift-$tls.json > $d/shift-$tls.txt 2>&1 || echo FAIL >> $out/log
    done
  done
done
