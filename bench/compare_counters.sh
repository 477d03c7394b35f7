#!/usr/bin/env bash
# [PGAS-BGQ Fig. 10] on one node, in one run: fetch-and-add latency seen by ranks 1..P-1 on a
# counter owned by rank 0 (idle, or computing 300 us kernels without library calls), for every
# Gaea counter mode and task_counter variant, beside Global Arrays' NGA_Read_inc (Debian 5.8,
# ARMCI-MPI), over UCX_TLS=sm and tcp; plus Gaea's task-pool throughput against task length.
#   bench/compare_counters.sh [build-dir] [ranks, e.g. "2 4 8"] [reps] [out-dir]
# Rows "gaea-off": GAEA_PROGRESS=off (no progress thread), the "default" baseline of [PGAS-BGQ Fig. 10].
# Prints the programs' tables and a merged summary; all JSON lines go to <out-dir>/results.jsonl.
# COUNTER_ARGS / GA_ARGS: extra options, e.g. COUNTER_ARGS="--tasks-per-rank 300" GA_ARGS="--iters 300".
#
#   bench/compare_counters.sh --hosts [build-dir] [reps=2] [out-dir]
# The same latency part on 2 emulated hosts x 2 ranks (scripts/cluster.sh, cluster name
# GAEA_CLUSTER_NAME, default gaeab, brought up and down here; needs root), launched with
# --map-by node so that rank 2 shares the counter owner's host and ranks 1 and 3 do not. Per
# cluster preset of COUNTER_PRESETS (default "none bgq"): counter_latency (UCX's default
# transports) and GA's NGA_Read_inc under each Open MPI set-up of COUNTER_GA_VARIANTS (default
# "pt2pt ucx", see bench/nodes_common.sh), COUNTER_LAUNCHES (default 1) interleaved launches.
# The table gives the average us per call over ranks 1..3 and, in brackets, the averages seen by
# the requesting rank on the owner's host and by those on the other host. COUNTER_ARGS defaults
# to "--no-pool --tasks-per-rank 300" and GA_ARGS to "--iters 300" here.
set -euo pipefail
if [[ ${1:-} == --hosts ]]; then
  shift
  build=${1:-build}
  reps=${2:-2}
  out=${3:-$(mktemp -d /tmp/gaea-counters-hosts.XXXXXX)}
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  # shellcheck source-path=SCRIPTDIR source=nodes_common.sh
  source "$here/nodes_common.sh"
  presets=${COUNTER_PRESETS:-"none bgq"}
  launches=${COUNTER_LAUNCHES:-1}
  ga_variants=${COUNTER_GA_VARIANTS:-"pt2pt ucx"}
  counter_args=${COUNTER_ARGS:-"--no-pool --tasks-per-rank 300"}
  ga_args=${GA_ARGS:-"--iters 300"}
  limit=${COUNTER_TIMEOUT:-900}
  mkdir -p "$out"
  jsonl="$out/results.jsonl"
  : >"$jsonl"
  : >"$out/cluster-status.txt"
  trap nodes_down EXIT
  echo "uptime at start: $(uptime)" | tee "$out/environment.txt"
  # run_tagged PRESET LABEL LAUNCH LOG command...: runs it, keeps the log, tags its JSON line.
  run_tagged() {
    local preset=$1 label=$2 launch=$3 log=$4 load busy rc=0 line
    shift 4
    busy=$(busy_now)
    load=$(load_now)
    echo "--- $label on 2x2 $preset, launch $launch (load $load, cores busy before $busy)"
    timeout -k 10 "$limit" "$@" >"$log" 2>&1 || rc=$?
    grep -v '^{' "$log" | grep -vE '^gaea: DVFS|^\s*$' || true
    line=$(grep -m1 '^{"bench"' "$log" || true)
    local tag="\"tls\":\"2x2 $preset\",\"config\":\"$label\",\"launch\":$launch,\"load\":\"$load\",\"busy_before\":\"$busy\",\"rc\":$rc"
    if [[ -n $line ]]; then
      echo "{$tag,${line#\{}" >>"$jsonl"
    else
      echo "{$tag,\"failed\":true}" >>"$jsonl"
      echo "  $label on 2x2 $preset, launch $launch: FAILED rc=$rc (see $log)"
    fi
  }
  for ((i = 1; i <= launches; i++)); do
    for preset in $presets; do
      nodes_up "$preset"
      { echo "# launch $i, preset $preset"; nodes_status; } | tee -a "$out/cluster-status.txt"
      # shellcheck disable=SC2086
      run_tagged "$preset" gaea "$i" "$out/gaea-2x2-$preset-$i.txt" \
        "$nodes_cluster" mpirun -np 4 --map-by node "$build/bench/counter_latency" \
        --reps "$reps" $counter_args
      if [ -x "$build/bench/reference/ga_read_inc_bench" ]; then
        for v in $ga_variants; do
          read -r -a env_words <<<"$(ga_env "$v")"
          # shellcheck disable=SC2086
          run_tagged "$preset" "ga-$v" "$i" "$out/ga-$v-2x2-$preset-$i.txt" \
            env "${env_words[@]}" "$nodes_cluster" mpirun -np 4 --map-by node \
            "$build/bench/reference/ga_read_inc_bench" --reps "$reps" $ga_args
        done
      fi
    done
  done
  nodes_down
  echo "uptime at end: $(uptime)" | tee -a "$out/environment.txt"
  echo
  echo "=== Summary, 2 hosts x 2 ranks: average us per next()/Read_inc call over ranks 1..3"
  echo "    [on the owner's host / on the other host]; us per task after '/t' for batches;"
  echo "    medians over $launches launch(es) of medians of $reps repetitions"
  python3 - "$jsonl" <<'PY'
import json, statistics, sys
rows, cols, fails = {}, [], []
def add(key, col, cell):
    if col not in cols: cols.append(col)
    rows.setdefault(key, {}).setdefault(col, []).append(cell)
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j.get("failed"):
        fails.append(f"{j['config']} on {j['tls']} launch {j['launch']} (rc {j['rc']})")
        continue
    if j.get("bench") == "ga_read_inc":
        for st in ("idle", "compute"):
            add((j["config"], "read_inc", ""), f"{j['tls']} {st}",
                (j[f"{st}_avg_us"], j.get(f"{st}_on_node_avg_us"), j.get(f"{st}_off_node_avg_us"),
                 None))
        continue
    for r in j.get("latency", []):
        add((j["config"], r["mode"], r["variant"]), f"{j['tls']} {r['rank0']}",
            (r["avg_us"], r.get("on_node_avg_us"), r.get("off_node_avg_us"), r["per_task_us"]))
def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None
def num(x):
    return "-" if x is None else ("%.0f" % x if x >= 100 else "%.1f" % x)
W = 30
print("%-30s" % "system mode variant" + "".join("%*s" % (W, c) for c in cols))
for key in sorted(rows, key=lambda k: (k[0].startswith("ga-"), k)):
    cells = []
    for c in cols:
        v = rows[key].get(c)
        if not v: cells.append("%*s" % (W, "-")); continue
        a, on, off, per = (med([x[i] for x in v]) for i in range(4))
        s = "%s [%s/%s]" % (num(a), num(on), num(off))
        if per is not None and a and abs(per - a) > 1e-9 * a: s += " %.2f/t" % per
        cells.append("%*s" % (W, s))
    print("%-30s" % " ".join(x for x in key if x) + "".join(cells))
if fails: print("failed: " + "; ".join(fails))
PY
  echo "(raw JSON: $jsonl; cluster status: $out/cluster-status.txt)"
  exit 0
fi
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
