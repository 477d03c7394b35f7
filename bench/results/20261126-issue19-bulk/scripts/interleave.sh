#!/bin/bash
# How the runs of this directory were made: BIN of the base build (/work/base/build, main before
# the change, 2683c3a) and of the new one (/work/main/build), launch by launch, the order swapped
# every repetition, over UCX_TLS=sm and tcp, 2 ranks.
#   interleave.sh reaction 3 OUT --modes spin,interrupt,auto
#   interleave.sh reaction 2 OUT --modes spin,interrupt,auto --min-gap 1000 --max-gap 100000
#   interleave.sh shift 3 OUT --configs polling,auto
set -u
bin=$1 reps=$2 out=$3; shift 3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export UCX_WARN_UNUSED_ENV_VARS=n GAEA_DVFS=simulated
for r in $(seq 1 "$reps"); do
  order="base new"; ((r % 2 == 0)) && order="new base"
  for b in $order; do
    bd=/work/$b/build; [[ $b == new ]] && bd=/work/main/build
    for tls in sm tcp; do
      d=$out/$b/rep$r; mkdir -p "$d"
      echo "$(date +%T) rep$r $b $tls load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$out/log"
      UCX_TLS=$tls timeout 300 mpirun -np 2 "$bd/bench/$bin" "$@" --json "$d/$bin-$tls.json" \
        > "$d/$bin-$tls.txt" 2>&1 || echo FAIL >> "$out/log"
    done
  done
done
