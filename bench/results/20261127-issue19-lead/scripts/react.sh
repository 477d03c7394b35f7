#!/bin/bash
# usage: react.sh OUTDIR REPS  — interleaved 2-pass reaction runs, sm and tcp, plus sparse
out=$1; reps=$2
cd /work/main
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 UCX_WARN_UNUSED_ENV_VARS=n GAEA_DVFS=simulated
for r in $(seq 1 $reps); do
  d=$out/rep$r; mkdir -p $d
  for tls in sm tcp; do
    echo "rep $r $tls load $(cut -d' ' -f1 /proc/loadavg)" >> $out/log
    UCX_TLS=$tls timeout 120 mpirun -np 2 -x UCX_TLS build/bench/reaction --modes spin,auto --json $d/reaction-$tls.json > $d/reaction-$tls.txt 2>&1
    UCX_TLS=$tls timeout 120 mpirun -np 2 -x UCX_TLS build/bench/reaction --modes spin,auto --min-gap 1000 --max-gap 100000 --json $d/sparse-$tls.json > $d/sparse-$tls.txt 2>&1
  done
done
echo done >> $out/log
