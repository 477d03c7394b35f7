#!/usr/bin/env bash
# Global-array protocol benchmarks, Gaea beside Global Arrays 5.8 (ARMCI-MPI) in the same run:
# strided get/put bandwidth of a 1 MiB patch against its chunk size (Gaea: zero-copy, packed,
# auto), accumulate time (auto: straight into the owner's mapped memory on a node; target- and
# source-driven) vs GA, non-blocking get throughput.
# Launches are interleaved; each figure is the median over launches of per-launch medians.
#   bench/compare_strided.sh [build-dir] [launches] [ranks-for-acc, e.g. "2 4"]
# ACC_ONLY=1 runs the accumulate part only (GA: one launch per size, --acc-bytes).
set -euo pipefail
# The peers this comparison runs (GA, ScaLAPACK, NWChem): installed if missing.
if [[ "${GAEA_SKIP_DEPS:-0}" != 1 ]]; then
  "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/install-deps.sh" --bench
fi
build=${1:-build}
launches=${2:-3}
acc_ranks=${3:-4}
acc_only=${ACC_ONLY:-0}
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
run() { local np=$1; shift; mpirun "${flags[@]}" -np "$np" "$@" 2>/dev/null | grep '^{' || true; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 1; i <= launches; i++)); do
  for tls in sm tcp; do
    if [[ $acc_only != 1 ]]; then
      UCX_TLS=$tls run 2 "$build/bench/ga_strided" | sed "s/\"system\":\"gaea\"/\"system\":\"gaea-$tls\"/" >>"$out"
    fi
    for np in $acc_ranks; do
      UCX_TLS=$tls run "$np" "$build/bench/ga_strided" --only acc | grep '"acc"' |
        sed "s/\"system\":\"gaea\"/\"system\":\"gaea-$tls\"/" >>"$out"
    done
  done
  if [ -x "$build/bench/reference/ga_strided_bench" ]; then
    if [[ $acc_only != 1 ]]; then
      run 2 "$build/bench/reference/ga_strided_bench" | grep -v '"acc"' >>"$out"
    fi
    for np in $acc_ranks; do
      for b in 1024 16384 262144; do
        run "$np" "$build/bench/reference/ga_strided_bench" --acc-bytes "$b" | grep '"acc"' >>"$out"
      done
    done
  fi
done
# Rows keyed by system/bench/size(/depth/origins); medians over launches of each metric.
awk -f "$(dirname "${BASH_SOURCE[0]}")/jsonl.awk" -f <(cat <<'AWK'
{
  parse_flat($0, f)
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
  printf "%9s %8s | %9s | %9s %9s %9s %8s | %9s %9s %9s\n", "size[B]", "origins", "ga", "sm auto", "sm tgt", "sm src", "ga/auto", "tcp auto", "tcp tgt", "tcp src"
  for (k in keys) if (k ~ /^acc\|/) {
    split(k, q, "|")
    g = res["ga|" k "|us"]; a = res["gaea-sm|" k "|auto_us"]
    printf "%9s %8s | %9.1f | %9.2f %9.1f %9.1f %7.1fx | %9.1f %9.1f %9.1f\n", q[2], q[3], g, a,
      res["gaea-sm|" k "|target_us"], res["gaea-sm|" k "|source_us"], (a > 0 ? g / a : 0),
      res["gaea-tcp|" k "|auto_us"], res["gaea-tcp|" k "|target_us"], res["gaea-tcp|" k "|source_us"]
  }
  print "\nnon-blocking gets from rank 1, thousands of ops/s"
  printf "%9s %6s | %9s %9s %9s\n", "size[B]", "depth", "ga", "gaea-sm", "gaea-tcp"
  for (k in keys) if (k ~ /^nbget/) {
    split(k, q, "|")
    printf "%9s %6s | %9.1f %9.1f %9.1f\n", q[2], q[3], res["ga|" k "|kops"], res["gaea-sm|" k "|kops"], res["gaea-tcp|" k "|kops"]
  }
}
AWK
) "$out"
echo "($launches interleaved launches; strided and nbget on 2 ranks, acc on $acc_ranks ranks; load $(cut -d' ' -f1-3 /proc/loadavg))"
