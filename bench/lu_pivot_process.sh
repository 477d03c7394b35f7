#!/usr/bin/env bash
# Pivoted LU, the factorisation and the whole process: gaea-lu --pivot against ScaLAPACK pdgetrf
# (bench/reference/scalapack_lu) on the same N, block, ranks and BLAS, launches interleaved.
# For each launch it records the factorisation time (each program's own clock) and the wall time
# of the whole mpirun (start-up, generation, checks, shut-down); the table gives medians.
#   bench/lu_pivot_process.sh [build-dir] [launches] [sizes] [ranks]
#   e.g. bench/lu_pivot_process.sh build 5 "4096 8192" "1 2 4"
# Environment:
#   LU_MATRIX  gaea-lu's --matrix (default dd, the matrix scalapack_lu generates: the pivots are
#              then the identity for both; general makes gaea-lu swap rows)
#   LU_GRID    gaea-lu's --grid (default: its own choice, the squarest, as scalapack_lu's)
#   LU_OUT     file for the raw lines (default $build/lu_pivot_process.jsonl)
set -euo pipefail
build=${1:-build}
launches=${2:-5}
sizes=${3:-"4096"}
ranks=${4:-"1 2 4"}
lu=$build/apps/lu/gaea-lu
ref=$build/bench/reference/scalapack_lu
out=${LU_OUT:-$build/lu_pivot_process.jsonl}
export OPENBLAS_NUM_THREADS=1 GAEA_BLAS_THREADS=1
mpirun_flags=(--oversubscribe -x OPENBLAS_NUM_THREADS=1 -x GAEA_BLAS_THREADS=1)
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
: >"$out"

block_for() {  # gaea-lu's automatic block (apps/lu/options.cpp), also given to ScaLAPACK
  local n=$1 np=$2 p q b want
  p=$(awk -v r="$np" 'BEGIN{p=int(sqrt(r)); while (p>1 && r%p) p--; if (p<1) p=1; print p}')
  q=$((np / p))
  want=$((n / (8 * (p > q ? p : q))))
  b=32
  while [ $((b * 2)) -le "$want" ] && [ "$b" -lt 256 ]; do b=$((b * 2)); done
  [ "$b" -gt "$n" ] && b=$n
  echo "$b"
}

launch() {  # label n np command...: one JSON line with the factorisation and process times
  local label=$1 n=$2 np=$3 t0 t1 line
  shift 3
  t0=$(date +%s.%N)
  line=$(mpirun "${mpirun_flags[@]}" -np "$np" "$@" 2>/dev/null </dev/null | grep '^{') ||
    { echo "$label failed: N=$n ranks=$np" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "{\"config\":\"$label\",\"process_s\":$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b - a}'),\"load\":$(cut -d' ' -f1 /proc/loadavg),${line:1}" >>"$out"
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((l = 1; l <= launches; l++)); do
  for n in $sizes; do
    for np in $ranks; do
      b=$(block_for "$n" "$np")
      echo "round $l: N=$n ranks=$np block=$b" >&2
      grid=()
      [ -n "${LU_GRID:-}" ] && grid=(--grid "$LU_GRID")
      launch gaea-pivot "$n" "$np" "$lu" --n "$n" --block "$b" --threads 1 --pivot \
        --matrix "${LU_MATRIX:-dd}" "${grid[@]}" --json -
      launch pdgetrf "$n" "$np" "$ref" "$n" "$b" 0 0 1
    done
  done
done
echo "machine after: load $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
g = {}
for r in rows:
    g.setdefault((r["n"], r["ranks"], r["config"]), []).append(r)
med = lambda rs, k: statistics.median(r[k] for r in rs)
print(f"{'N':>6} {'ranks':>5} {'grid':>5} {'config':<11} {'factor s':>9} {'Gflop/s':>8} "
      f"{'process s':>9} {'outside s':>9} {'load':>5} {'n':>2}")
for key in sorted(g):
    rs = g[key]
    f, p = med(rs, "time_s"), med(rs, "process_s")
    print(f"{key[0]:>6} {key[1]:>5} {rs[0]['grid']:>5} {key[2]:<11} {f:9.3f} {med(rs,'gflops'):8.2f} "
          f"{p:9.3f} {statistics.median(r['process_s'] - r['time_s'] for r in rs):9.3f} "
          f"{med(rs,'load'):5.2f} {len(rs):>2}")
print("\ngaea-lu --pivot vs pdgetrf (ratio of medians, > 1: gaea-lu faster):")
for (n, np, cfg) in sorted(g):
    if cfg != "gaea-pivot" or (n, np, "pdgetrf") not in g: continue
    a, b = g[(n, np, cfg)], g[(n, np, "pdgetrf")]
    print(f"  N={n} ranks={np}: factorisation {med(b,'time_s')/med(a,'time_s'):.2f}x, "
          f"whole process {med(b,'process_s')/med(a,'process_s'):.2f}x")
print(f"(raw: {sys.argv[1]})")
PY
