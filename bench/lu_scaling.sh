#!/usr/bin/env bash
# LU strong scaling: gaea-lu (overlap on and off, and with partial pivoting) against ScaLAPACK
# pdgetrf on the same N, ranks and BLAS in the same run, plus the single-thread GEMM ceiling.
# Both run on the system BLAS (OpenBLAS once scripts/install-deps.sh has installed it: gaea-lu
# links it through gaea::dense, ScaLAPACK through libblas.so.3), one BLAS thread per rank.
#   bench/lu_scaling.sh [build-dir] [launches] [sizes] [ranks]
#   e.g. bench/lu_scaling.sh build 3 "2048 4096" "1 2 4"
# Launches are interleaved (every configuration once per round), and the table shows medians
# over launches. One thread per rank everywhere (strong scaling over ranks; mpirun binds ranks
# to cores). gaea-lu uses the diagonally dominant matrix without pivoting; pdgetrf pivots.
# Environment:
#   LU_BLAS_DIR  a directory with another libblas.so.3/liblapack.so.3 for a second ScaLAPACK column
#   LU_REF_MAX_N largest N for ScaLAPACK when the system BLAS is the reference one (slow; 2048)
#   LU_PIVOT     0 to leave out the pivoted gaea-lu runs (default 1)
#   LU_BLOCK     tile size for both (default: gaea-lu's automatic choice; ScaLAPACK gets the same)
#   LU_OUT       file for the raw JSON lines (default $build/lu_scaling.jsonl)
#   UCX_TLS      passes through to every launch (e.g. tcp, to make gaea-lu's transfers real)
set -euo pipefail
# The peers this comparison runs (GA, ScaLAPACK, NWChem): installed if missing.
if [[ "${GAEA_SKIP_DEPS:-0}" != 1 ]]; then
  "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/install-deps.sh" --bench
fi
build=${1:-build}
launches=${2:-3}
sizes=${3:-"2048 4096"}
ranks=${4:-"1 2 4"}
ref_max_n=${LU_REF_MAX_N:-2048}
mpirun_flags=(--oversubscribe -x OPENBLAS_NUM_THREADS=1 -x GAEA_BLAS_THREADS=1)
export OPENBLAS_NUM_THREADS=1 GAEA_BLAS_THREADS=1
# Which BLAS libblas.so.3 is (Debian alternatives): the ScaLAPACK column's name.
sys_blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || true)
case "$sys_blas" in
  *openblas*) ref_label=scalapack-openblas; ref_max_n=${LU_REF_MAX_N:-1000000} ;;
  *) ref_label=scalapack-refblas ;;
esac
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
lu=$build/apps/lu/gaea-lu
ref=$build/bench/reference/scalapack_lu
peak=$build/bench/lu_gemm_peak
out=${LU_OUT:-$build/lu_scaling.jsonl}
: >"$out"

# gaea-lu's automatic block for N on np ranks (same rule as apps/lu/options.cpp), unless LU_BLOCK.
block_for() {
  local n=$1 np=$2 p q b want
  [ -n "${LU_BLOCK:-}" ] && { echo "$LU_BLOCK"; return; }
  p=$(awk -v r="$np" 'BEGIN{p=int(sqrt(r)); while (p>1 && r%p) p--; if (p<1) p=1; print p}')
  q=$((np / p))
  want=$((n / (8 * (p > q ? p : q))))
  b=32
  while [ $((b * 2)) -le "$want" ] && [ "$b" -lt 256 ]; do b=$((b * 2)); done
  [ "$b" -gt "$n" ] && b=$n
  echo "$b"
}

run_lu() {  # n np overlap [label extra-args...]
  local line n=$1 np=$2 ov=$3 label=gaea-$3
  shift 3
  if [ $# -gt 0 ]; then label=$1; shift; fi
  line=$(mpirun "${mpirun_flags[@]}" -np "$np" "$lu" --n "$n" --block "$(block_for "$n" "$np")" \
    --threads 1 --overlap "$ov" --json - "$@" 2>/dev/null | grep '^{') || { echo "gaea-lu failed: $n $np $ov $label" >&2; exit 1; }
  echo "{\"config\":\"$label\",${line:1}" >>"$out"
}
run_ref() {  # n np label [blasdir]
  local line
  if [ -n "${4:-}" ]; then
    line=$(LD_LIBRARY_PATH=$4 mpirun "${mpirun_flags[@]}" -x LD_LIBRARY_PATH -np "$2" "$ref" "$1" \
      "$(block_for "$1" "$2")" 0 0 1 2>/dev/null | grep '^{')
  else
    line=$(mpirun "${mpirun_flags[@]}" -np "$2" "$ref" "$1" "$(block_for "$1" "$2")" 0 0 1 \
      2>/dev/null | grep '^{')
  fi
  echo "{\"config\":\"$3\",${line:1}" >>"$out"
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); 4 ranks are oversubscribed when cores < 4"
echo "system BLAS: ${sys_blas:-unknown}"
echo "GEMM ceiling (one thread, gaea-lu's kernel and flags):"
"$peak" 1 | tee -a "$build/lu_gemm_peak.txt"

for ((l = 1; l <= launches; l++)); do
  for n in $sizes; do
    for np in $ranks; do
      echo "round $l: N=$n ranks=$np" >&2
      run_lu "$n" "$np" on
      run_lu "$n" "$np" off
      [ "${LU_PIVOT:-1}" = 1 ] && run_lu "$n" "$np" on gaea-pivot --pivot
      [ "$n" -le "$ref_max_n" ] && run_ref "$n" "$np" "$ref_label"
      [ -n "${LU_BLAS_DIR:-}" ] && run_ref "$n" "$np" scalapack-blas "$LU_BLAS_DIR"
    done
  done
done

python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
groups = {}
for r in rows:
    groups.setdefault((r["n"], r["ranks"], r["config"]), []).append(r)
def med(rs, k):
    v = [r[k] for r in rs if k in r]
    return statistics.median(v) if v else float("nan")
print()
print(f"{'N':>6} {'ranks':>5} {'grid':>5} {'nb':>4} {'config':<18} {'time s':>8} {'Gflop/s':>8} "
      f"{'compute':>8} {'comm':>7} {'sync':>7} {'overlap':>8} {'speedup':>8}")
base = {}
for (n, np, cfg) in sorted(groups):
    rs = groups[(n, np, cfg)]
    t = med(rs, "time_s")
    if np == 1: base[(n, cfg)] = t
    sp = base.get((n, cfg), float("nan")) / t
    if cfg.startswith("gaea"):
        extra = (f"{med(rs,'compute_s'):8.3f} {med(rs,'comm_s'):7.3f} {med(rs,'sync_s'):7.3f} "
                 f"{100*med(rs,'overlap_fraction'):7.1f}%")
    else:
        extra = f"{'-':>8} {'-':>7} {'-':>7} {'-':>8}"
    print(f"{n:>6} {np:>5} {rs[0]['grid']:>5} {rs[0]['block']:>4} {cfg:<18} {t:8.3f} "
          f"{med(rs,'gflops'):8.2f} {extra} {sp:7.2f}x"
          + (f"  {100*med(rs,'peak_fraction'):.0f}% of dgemm peak" if 'peak_fraction' in rs[0] else ""))
print()
print("overlap gain (time off / time on) and gaea-lu vs ScaLAPACK (time ref / time gaea-on):")
for (n, np, cfg) in sorted(groups):
    if cfg not in ("gaea-on", "gaea-pivot"): continue
    on = med(groups[(n, np, cfg)], "time_s")
    line = f"  N={n} ranks={np} {cfg}:"
    if cfg == "gaea-on":
        line += f" overlap gain {med(groups.get((n,np,'gaea-off'),[]),'time_s')/on:.3f},"
    for ref in ("scalapack-openblas", "scalapack-refblas", "scalapack-blas"):
        if (n, np, ref) in groups:
            line += f" vs {ref} {med(groups[(n,np,ref)],'time_s')/on:.2f}x"
    print(line)
print(f"(medians over launches; compute/comm/sync are per-rank means in seconds; raw: {sys.argv[1]})")
PY
