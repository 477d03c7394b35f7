#!/usr/bin/env bash
# The paper's Fig. 10 on one node, in one run: fetch-and-add latency seen by ranks 1..P-1 on a
# counter owned by rank 0 (idle, or computing 300 us kernels without library calls), for every
# Gaea counter mode and task_counter variant, beside Global Arrays' NGA_Read_inc (Debian 5.8,
# ARMCI-MPI), over UCX_TLS=sm and tcp; plus Gaea's task-pool throughput against task length.
#   bench/compare_counters.sh [build-dir] [ranks, e.g. "2 4 8"] [reps] [out-dir]
# Rows "gaea-off": GAEA_PROGRESS=off (no progress thread), the paper's "default" baseline.
# Prints the programs' tables and a merged summary; all JSON lines go to <out-dir>/results.jsonl.
# COUNTER_ARGS / GA_ARGS: extra options, e.g. COUNTER_ARGS="--tasks-per-rank 300" GA_ARGS="--iters 300".
set -euo pipefail
build=${1:-build}
ranks=${2:-"2 4"}
reps=${3:-3}
out=${4:-$(mktemp -d /tmp/gaea-counters.XXXXXX)}
mkdir -p "$out"
mpirun_flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
jsonl="$out/results.jsonl"
: >"$jsonl"
tag() { sed -E "s/^\{/{\"tls\":\"$1\",\"config\":\"$2\",/" ; }

for np in $ranks; do
  for tls in sm tcp; do
    echo "=== $np ranks, UCX_TLS=$tls"
    log="$out/gaea-np$np-$tls.txt"
    UCX_TLS=$tls timeout 900 mpirun "${mpirun_flags[@]}" -np "$np" "$build/bench/counter_latency" \
      --reps "$reps" ${COUNTER_ARGS:-} 2>/dev/null | tee "$log" | grep -v '^{'
    grep '^{' "$log" | tag "$tls" gaea >>"$jsonl"
    log="$out/gaea-off-np$np-$tls.txt"
    UCX_TLS=$tls GAEA_PROGRESS=off timeout 900 mpirun "${mpirun_flags[@]}" -np "$np" \
      "$build/bench/counter_latency" --reps "$reps" --no-pool --modes atomic,progress,owner \
      --variants single ${COUNTER_ARGS:-} 2>/dev/null | tee "$log" | grep -v '^{'
    grep '^{' "$log" | tag "$tls" gaea-off >>"$jsonl"
    if [ -x "$build/bench/reference/ga_read_inc_bench" ]; then
      log="$out/ga-np$np-$tls.txt"
      UCX_TLS=$tls timeout 900 mpirun "${mpirun_flags[@]}" -np "$np" \
        "$build/bench/reference/ga_read_inc_bench" --reps "$reps" ${GA_ARGS:-} 2>/dev/null | tee "$log" |
        grep -v '^{'
      grep '^{' "$log" | tag "$tls" ga >>"$jsonl"
    fi
  done
done

echo
echo "=== Summary: average (max) us per next()/Read_inc call seen by ranks 1..P-1; us per task for batches"
python3 - "$jsonl" <<'PY'
import json, sys
rows, cols = {}, []
for line in open(sys.argv[1]):
    j = json.loads(line)
    col_base = f"P={j['ranks']} {j['tls']}"
    if j.get("bench") == "ga_read_inc":
        for st in ("idle", "compute"):
            key = ("GA 5.8 NGA_Read_inc", "", "")
            rows.setdefault(key, {})[f"{col_base} {st}"] = (j[f"{st}_avg_us"], j[f"{st}_max_us"], None)
            if f"{col_base} {st}" not in cols: cols.append(f"{col_base} {st}")
        continue
    for r in j.get("latency", []):
        key = (j["config"], r["mode"], r["variant"])
        col = f"{col_base} {r['rank0']}"
        if col not in cols: cols.append(col)
        rows.setdefault(key, {})[col] = (r["avg_us"], r["max_us"], r["per_task_us"])
print("%-30s" % "system/mode/variant" + "".join("%26s" % c for c in cols))
for key in sorted(rows, key=lambda k: (k[0] == "GA 5.8 NGA_Read_inc", k)):
    name = " ".join(x for x in key if x)
    cells = []
    for c in cols:
        v = rows[key].get(c)
        if v is None: cells.append("%26s" % "-")
        else:
            s = "%.2f (%.0f)" % (v[0], v[1])
            if v[2] is not None and abs(v[2] - v[0]) > 1e-9: s += " %.3f/t" % v[2]
            cells.append("%26s" % s)
    print("%-30s" % name + "".join(cells))
PY
echo "(raw JSON: $jsonl; medians of $reps repetitions after one warm-up; machine load at end: $(cut -d' ' -f1-3 /proc/loadavg))"
