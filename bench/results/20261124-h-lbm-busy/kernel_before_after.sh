#!/usr/bin/env bash
# old (8eafa05, built in a detached worktree /work/wt/lbm-base) vs new gaea-lbm, 1 rank x 1 thread,
# interleaved, plus STREAM copy each repetition. Paths are those of the run.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_WARN_UNUSED_ENV_VARS=n
OLD=/work/wt/lbm-base/build/apps/lbm/gaea-lbm
NEW=/work/wt/lbm/build/apps/lbm/gaea-lbm
for rep in 1 2 3; do
  echo "rep $rep load $(cut -d' ' -f1-3 /proc/loadavg)"
  /work/wt/lbm/build/bench/stream --reps 10 --threads 1 | awk '$2=="copy"{print "stream copy best", $3}'
  for spec in 1024:200 4096:12; do
    n=${spec%%:*}; s=${spec##*:}
    for v in old new; do
      exe=$OLD; [[ $v == new ]] && exe=$NEW
      out=$(mpirun -np 1 $exe --case cavity --nx $n --steps $s --tol 0 --no-check --threads 1 2>/dev/null)
      echo "$v $n $(sed -n 's/.* \([0-9.]*\) MLUPS$/\1/p' <<<"$out") MLUPS $(grep -o 'checksum.*' <<<"$out")"
    done
  done
done
