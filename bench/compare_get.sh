#!/usr/bin/env bash
# Intra-node get latency (8 B) and bandwidth (1 MiB): Gaea vs Global Arrays 5.8 (ARMCI-MPI),
# 2 ranks, launches interleaved (launch-to-launch variation here is up to 2x, repetitions inside
# a launch agree), medians over launches of the per-launch medians.
#   bench/compare_get.sh [build-dir] [launches]
set -euo pipefail
# The peers this comparison runs (GA, ScaLAPACK, NWChem): installed if missing.
if [[ "${GAEA_SKIP_DEPS:-0}" != 1 ]]; then
  "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/install-deps.sh" --bench
fi
build=${1:-build}
launches=${2:-5}
mpirun_flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
run() { mpirun "${mpirun_flags[@]}" -np 2 "$@" 2>/dev/null | grep '^{' ; }

declare -A lat bw
cp_best="" cp_med="" get_best=""
configs=("ga" "gaea-sm" "gaea-sm-ucx" "gaea-tcp")
for ((i = 1; i <= launches; i++)); do
  for c in "${configs[@]}"; do
    case $c in
      ga) line=$(run "$build/bench/reference/ga_get_bench") ;;
      gaea-sm) line=$(UCX_TLS=sm run "$build/bench/get_bench") ;;
      gaea-sm-ucx) line=$(UCX_TLS=sm GAEA_RKEY_PTR=0 run "$build/bench/get_bench") ;;
      gaea-tcp) line=$(UCX_TLS=tcp run "$build/bench/get_bench" --lat-iters 2000 --bw-iters 50) ;;
    esac
    echo "$c: $line"
    lat[$c]+="$(sed -E 's/.*"get_lat_8B_us_median":([0-9.]+).*/\1/' <<<"$line") "
    bw[$c]+="$(sed -E 's/.*"get_bw_1MiB_GBs_median":([0-9.]+).*/\1/' <<<"$line") "
    if [[ $c == gaea-sm ]]; then  # the memcpy ceiling, measured inside the same launches
      cp_best+="$(sed -E 's/.*"memcpy_1MiB_GBs_max":([0-9.]+).*/\1/' <<<"$line") "
      cp_med+="$(sed -E 's/.*"memcpy_1MiB_GBs_median":([0-9.]+).*/\1/' <<<"$line") "
      get_best+="$(sed -E 's/.*"get_bw_1MiB_GBs_max":([0-9.]+).*/\1/' <<<"$line") "
    fi
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo
printf '%-14s %22s %24s %14s %14s\n' config "get 8B latency [us]" "get 1MiB bandwidth [GB/s]" "lat vs GA" "bw vs GA"
ga_lat=$(median <<<"${lat[ga]}")
ga_bw=$(median <<<"${bw[ga]}")
for c in "${configs[@]}"; do
  l=$(median <<<"${lat[$c]}")
  b=$(median <<<"${bw[$c]}")
  printf '%-14s %22.3f %24.2f %13.2fx %13.2fx\n' "$c" "$l" "$b" "$(awk "BEGIN{print $l/$ga_lat}")" "$(awk "BEGIN{print $b/$ga_bw}")"
done
best() { tr ' ' '\n' | grep -v '^$' | sort -g | tail -1; }
cp=$(best <<<"$cp_best")
gb=$(best <<<"$get_best")
cm=$(median <<<"$cp_med")
b=$(median <<<"${bw[gaea-sm]}")
printf 'memcpy 1 MiB (local buffers, inside the gaea-sm launches): median %.2f GB/s, best %.2f GB/s\n' "$cm" "$cp"
printf 'gaea-sm get 1 MiB: median %.2f GB/s = %.1f %% of memcpy median; best %.2f GB/s = %.1f %% of best memcpy\n' \
  "$b" "$(awk "BEGIN{print 100*$b/$cm}")" "$gb" "$(awk "BEGIN{print 100*$gb/$cp}")"
echo "(medians over $launches interleaved launches; each launch: median of 7 repetitions)"
