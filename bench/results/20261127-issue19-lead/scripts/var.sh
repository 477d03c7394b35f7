#!/bin/bash
# usage: TLSES="sm tcp" VARIANTS="name:ENV=VAL,.. " var.sh OUTDIR REPS ARGS...
out=$1; reps=$2; shift 2
cd /work/main
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 UCX_WARN_UNUSED_ENV_VARS=n GAEA_DVFS=simulated
for r in $(seq 1 $reps); do
  list="$VARIANTS"; [ $((r%2)) = 0 ] && list=$(echo $VARIANTS | tr ' ' '\n' | tac | tr '\n' ' ')
  for tls in ${TLSES:-sm tcp}; do
  for v in $list; do
    name=${v%%:*}; envs=${v#*:}; d=$out/$name/rep$r; mkdir -p $d
    xs=""; for e in $(echo $envs | tr ',' ' '); do xs="$xs -x $e"; done
    echo "rep $r $tls $name load $(cut -d' ' -f1 /proc/loadavg)" >> $out/log
    UCX_TLS=$tls timeout 120 mpirun -np 2 -x UCX_TLS $xs build/bench/reaction "$@" --json $d/reaction-$tls.json > $d/reaction-$tls.txt 2>&1
  done; done
done
echo done >> $out/log
