#!/bin/bash
# launches x ops x {np 2, np 4}: shm vs mpi, and the message rules (GAEA_COLL_SHM_BYTES=0 auto) vs mpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 UCX_TLS=sm
B=/work/main/build/bench/gaea-coll-bench
out=/tmp/collrun/out; mkdir -p $out
for L in 1 2 3; do
  for np in 2 4; do
    for op in barrier broadcast reduce allreduce allgather alltoall; do
      echo "$(date +%T) L$L np$np $op load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out/log
      timeout 300 mpiexec -n $np $B --op $op --factor 8 --reps 3 --algos shm,mpi --json $out/shm-$np-$op-$L.json > $out/shm-$np-$op-$L.txt 2>&1
      GAEA_COLL_SHM_BYTES=0 timeout 300 mpiexec -n $np $B --op $op --factor 8 --reps 3 --algos auto,mpi --json $out/msg-$np-$op-$L.json > $out/msg-$np-$op-$L.txt 2>&1
    done
  done
done
echo done >> $out/log
