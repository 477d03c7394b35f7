#!/bin/bash
# After the inline path for small blocking shm calls, no yield in serving waits and single copy:
# launches x {np 2, np 4} x ops, shm vs Open MPI in one process; broadcast and allgather also
# with GAEA_COLL_SHM_SINGLE_COPY=64K (single copy, off by default) in the same launch loop.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 UCX_TLS=sm
B=${B:-/work/main/build/bench/gaea-coll-bench}
out=${OUT:-/tmp/collinline}; mkdir -p $out
for L in 1 2 3; do
  for np in 2 4; do
    for op in barrier broadcast reduce allreduce allgather alltoall; do
      echo "$(date +%T) L$L np$np $op load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out/log
      timeout 300 mpiexec -n $np $B --op $op --factor 8 --reps 3 --algos shm,mpi --json $out/shm-$np-$op-$L.json > $out/shm-$np-$op-$L.txt 2>&1
      if [[ $op == broadcast || $op == allgather ]]; then
        GAEA_COLL_SHM_SINGLE_COPY=65536 timeout 300 mpiexec -x GAEA_COLL_SHM_SINGLE_COPY -n $np $B --op $op --min 32768 --factor 8 --reps 3 --algos shm,mpi --json $out/single-$np-$op-$L.json > $out/single-$np-$op-$L.txt 2>&1
      fi
    done
  done
done
echo done >> $out/log
