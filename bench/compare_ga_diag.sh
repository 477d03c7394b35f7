#!/usr/bin/env bash
# GA_Diag_std on a 2000 x 2000 matrix, 4 ranks: one C source (bench/reference/ga_diag_bench.c)
# built against Debian's GA 5.8.2 and against Gaea's GA C API (ScaLAPACK, or Eigen on rank 0:
# gaea-config --config says which). Debian's GA has no PeIGS, so its only eigensolver is
# GA_Diag_std_seq (LAPACK on one rank); Gaea runs GA_Diag_std. Launches are interleaved (GA,
# Gaea, GA, …); the summary gives each configuration's median and the load before and after.
#   bench/compare_ga_diag.sh [build-dir] [launches=3] [out-dir]
# Environment: N (default 2000), RANKS (default 4), UCX_TLS for Gaea (default sm).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=ga_reference_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/ga_reference_common.sh"
build=${1:-build}
launches=${2:-3}
out=${3:-$ga_ref_root/bench/out/$(date -u +%Y%m%d-%H%M%S)-ga-diag}
n=${N:-2000}
ranks=${RANKS:-4}
ga_ref_setup "$build" "$out" ga_diag_bench
run() { local config=$1; shift; ga_ref_run "$config" "$ranks" "$@" --n "$n"; }  # run <config> <program> [args…]
for ((launch = 1; launch <= launches; launch++)); do
  echo "== launch $launch of $launches (load $(cut -d' ' -f1 /proc/loadavg))"
  run ga-seq "$ref/ga_diag_bench" --seq
  run gaea "$ref/ga_diag_bench_gaea"
done
load_after=$(ga_ref_load)
python3 - "$jsonl" "$load_before" "$load_after" "$n" "$ranks" <<'PY' | tee "$out/summary.md"
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"GA_Diag_std, n = {sys.argv[4]}, {sys.argv[5]} ranks; load before {sys.argv[2]}, after {sys.argv[3]}")
print("| configuration | launches (s) | median (s) |")
print("|---|---|---|")
med = {}
for c in dict.fromkeys(r["config"] for r in rows):
    t = [r["seconds"] for r in rows if r["config"] == c]
    med[c] = statistics.median(t)
    print(f"| {c} | {', '.join(f'{x:.2f}' for x in t)} | {med[c]:.2f} |")
if "ga-seq" in med and "gaea" in med:
    print(f"\nGaea / GA: {med['gaea'] / med['ga-seq']:.2f}")
PY
