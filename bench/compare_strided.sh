#!/usr/bin/env bash
# Global-array protocol benchmarks, Gaea beside Global Arrays 5.8 (ARMCI-MPI) in the same run:
# strided get/put bandwidth of a 1 MiB patch against its chunk size (Gaea: zero-copy, packed,
# auto), accumulate time target- vs source-driven vs GA, non-blocking get throughput.
# Launches are interleaved; each figure is the median over launches of per-launch medians.
#   bench/compare_strided.sh [build-dir] [launches] [ranks-for-acc]
set -euo pipefail
# The peers this comparison runs (GA, ScaLAPACK, NWChem): installed if missing.
if [[ "${GAEA_SKIP_DEPS:-0}" != 1 ]]; then
  "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/install-deps.sh" --bench
fi
build=${1:-build}
launches=${2:-3}
acc_ranks=${3:-4}
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
run() { local np=$1; shift; mpirun "${flags[@]}" -np "$np" "$@" 2>/dev/null | grep '^{' || true; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 1; i <= launches; i++)); do
  for tls in sm tcp; do
    UCX_TLS=$tls run 2 "$build/bench/ga_strided" | sed "s/\"system\":\"gaea\"/\"system\":\"gaea-$tls\"/" >>"$out"
    UCX_TLS=$tls run "$acc_ranks" "$build/bench/ga_strided" | grep '"acc"' |
      sed "s/\"system\":\"gaea\"/\"system\":\"gaea-$tls\"/" >>"$out"
  done
  if [ -x "$build/bench/reference/ga_strided_bench" ]; then
    run 2 "$build/bench/reference/ga_strided_bench" | grep -v '"acc"' >>"$out"
    run "$acc_ranks" "$build/bench/reference/ga_strided_bench" | grep '"acc"' >>"$out"
  fi
done
# Rows keyed by system/bench/size(/depth/origins); medians over launches of each metric.
awk '
function med(list,   n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
  line = $0; gsub(/[{}"]/, "", line); m = split(line, kv, ",")
  delete f
  for (i = 1; i <= m; i++) { split(kv[i], p, ":"); f[p[1]] = p[2] }
  size = ("chunk" in f) ? f["chunk"] : f["bytes"]
  key = f["bench"] "|" size "|" (("depth" in f) ? f["depth"] : (("origins" in f) ? f["origins"] : "-"))
  for (k in f) if (k != "bench" && k != "system" && k != "chunk" && k != "bytes" && k != "depth" && k != "origins" && k != "rows" && k != "auto_packed")
    vals[f["system"] "|" key "|" k] = vals[f["system"] "|" key "|" k] " " f[k]
  keys[key] = 1; systems[f["system"]] = 1
}
END {
  for (v in vals) { split(v, q, "|"); res[v] = med(vals[v]) }
  print "\nstrided 1 MiB patch, MB/s: get | put (median over launches)"
  printf "%9s | %9s %9s %9s %9s | %9s %9s %9s %9s |", "chunk[B]", "ga", "sm zc", "sm pk", "sm auto", "ga", "sm zc", "sm pk", "sm auto"
  printf " %9s %9s %9s | %9s %9s %9s\n", "tcp zc", "tcp pk", "tcp auto", "tcp zc", "tcp pk", "tcp auto"
  n = 0; for (k in keys) if (k ~ /^strided/) { split(k, q, "|"); sz[++n] = q[2] }
  for (i = 2; i <= n; i++) for (j = i; j > 1 && sz[j-1] + 0 > sz[j] + 0; j--) { t = sz[j]; sz[j] = sz[j-1]; sz[j-1] = t }
  for (i = 1; i <= n; i++) {
    k = "strided|" sz[i] "|-"
    printf "%9s | %9.0f %9.0f %9.0f %9.0f | %9.0f %9.0f %9.0f %9.0f | %9.0f %9.0f %9.0f | %9.0f %9.0f %9.0f\n", sz[i],
      res["ga|" k "|get"], res["gaea-sm|" k "|get_zc"], res["gaea-sm|" k "|get_packed"], res["gaea-sm|" k "|get_auto"],
      res["ga|" k "|put"], res["gaea-sm|" k "|put_zc"], res["gaea-sm|" k "|put_packed"], res["gaea-sm|" k "|put_auto"],
      res["gaea-tcp|" k "|get_zc"], res["gaea-tcp|" k "|get_packed"], res["gaea-tcp|" k "|get_auto"],
      res["gaea-tcp|" k "|put_zc"], res["gaea-tcp|" k "|put_packed"], res["gaea-tcp|" k "|put_auto"]
  }
  print "\naccumulate into rank 0 from all other ranks at once, us per accumulate"
  printf "%9s %8s | %9s | %9s %9s %7s | %9s %9s %7s\n", "size[B]", "origins", "ga", "sm tgt", "sm src", "src/tgt", "tcp tgt", "tcp src", "src/tgt"
  for (k in keys) if (k ~ /^acc/) {
    split(k, q, "|")
    a = res["gaea-sm|" k "|target_us"]; b = res["gaea-sm|" k "|source_us"]
    c = res["gaea-tcp|" k "|target_us"]; d = res["gaea-tcp|" k "|source_us"]
    printf "%9s %8s | %9.1f | %9.1f %9.1f %6.2fx | %9.1f %9.1f %6.2fx\n", q[2], q[3], res["ga|" k "|us"], a, b, (a > 0 ? b / a : 0), c, d, (c > 0 ? d / c : 0)
  }
  print "\nnon-blocking gets from rank 1, thousands of ops/s"
  printf "%9s %6s | %9s %9s %9s\n", "size[B]", "depth", "ga", "gaea-sm", "gaea-tcp"
  for (k in keys) if (k ~ /^nbget/) {
    split(k, q, "|")
    printf "%9s %6s | %9.1f %9.1f %9.1f\n", q[2], q[3], res["ga|" k "|kops"], res["gaea-sm|" k "|kops"], res["gaea-tcp|" k "|kops"]
  }
}' "$out"
echo "($launches interleaved launches; strided and nbget on 2 ranks, acc on $acc_ranks ranks)"
