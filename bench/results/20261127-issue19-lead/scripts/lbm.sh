#!/bin/bash
# usage: lbm.sh OUT REPS NP ; VARIANTS as var.sh
out=$1; reps=$2; np=$3
cd /work/main
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 UCX_WARN_UNUSED_ENV_VARS=n GAEA_DVFS=simulated GAEA_PROGRESS=auto
mkdir -p $out
for r in $(seq 1 $reps); do
  list="$VARIANTS"; [ $((r%2)) = 0 ] && list=$(echo $VARIANTS | tr ' ' '\n' | tac | tr '\n' ' ')
  for v in $list; do
    name=${v%%:*}; envs=${v#*:}
    xs=""; for e in $(echo $envs | tr ',' ' '); do xs="$xs -x $e"; done
    t=$( { /usr/bin/time -f "%e %U %S" timeout 300 mpirun -np $np -x GAEA_PROGRESS $xs build/apps/lbm/gaea-lbm --case cavity --nx 256 --ny 256 --steps 6000 --tol 0 --no-check --threads 1 > $out/$name-np$np-r$r.txt 2>&1; } 2>&1 | tail -1)
    echo "$name np$np rep $r load $(cut -d' ' -f1 /proc/loadavg) time_user_sys $t loop $(grep -oE 'loop[^,]*' $out/$name-np$np-r$r.txt | head -1)" >> $out/log
  done
done
