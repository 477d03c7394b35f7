#!/usr/bin/env bash
# GA_Dgop (sum of doubles, 1 .. 512Ki) and GA_Brdcst (8 B .. 4 MiB) through Gaea's GA C API
# beside Debian's GA 5.8.2 (ARMCI-MPI on Open MPI's defaults), in the same run: one source,
# bench/reference/ga_coll_bench.c, built against both (ga_coll_bench, ga_coll_bench_gaea), on 2
# and 4 ranks of this machine. Launches are interleaved (GA then Gaea on odd launches, Gaea then
# GA on even ones); every figure is the median over launches of a launch's median over its
# repetitions.
#   bench/compare_ga_coll.sh [build-dir=build] [launches=3] [out-dir]
# Environment: RANKS (default "2 4"), UCX_TLS for Gaea (default sm), GA_COLL_ARGS (passed to
#   both programs, e.g. "--reps 3 --factor 16"; see ga_coll_bench.c).
# Output: out-dir (default bench/out/<date>-ga-coll/): summary.md (per ranks and operation:
#   GA, Gaea and Gaea/GA per size, the load before every launch), results.jsonl (every JSON line,
#   tagged with configuration, launch and load), one log per launch. About 15 s per launch.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=ga_reference_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/ga_reference_common.sh"
build=${1:-build}
launches=${2:-3}
[[ $launches =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [build-dir] [launches] [out-dir]" >&2; exit 2; }
out=${3:-$ga_ref_root/bench/out/$(date -u +%Y%m%d-%H%M%S)-ga-coll}
ranks_list=${RANKS:-"2 4"}
read -r -a args <<<"${GA_COLL_ARGS:-}"
ga_ref_setup "$build" "$out" ga_coll_bench
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); machine: $(uname -srm), $(nproc) cores"
  echo "uptime at start: $(uptime)"
  echo "git: $(git -C "$ga_ref_root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "ranks: $ranks_list; launches: $launches; UCX_TLS (Gaea): $UCX_TLS; args: ${args[*]:-none}"
} | tee "$out/environment.txt"
for ((launch = 1; launch <= launches; launch++)); do
  echo "== launch $launch of $launches (load $(ga_ref_load))"
  if ((launch % 2)); then order="ga gaea"; else order="gaea ga"; fi
  for np in $ranks_list; do
    for side in $order; do
      exe=$ref/ga_coll_bench
      [[ $side == gaea ]] && exe+=_gaea
      ga_ref_run "$side-$np" "$np" "$exe" "${args[@]}"
    done
  done
done
echo "uptime at end: $(uptime)" >>"$out/environment.txt"

python3 - "$out" <<'PY' | tee "$out/summary.md"
import json, os, statistics, sys
from collections import defaultdict
out = sys.argv[1]
env = open(os.path.join(out, "environment.txt")).read().strip()
rows = [json.loads(l) for l in open(os.path.join(out, "results.jsonl")) if l.strip()]
def human(b):
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f and b % f == 0: return f"{b // f} {unit}"
    return f"{b} B"
def us(v):
    return "-" if v is None else f"{v:.0f}" if v >= 1000 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"
# (ranks, op) -> bytes -> system -> [per-launch medians]
data = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
count, loads = {}, defaultdict(list)
for r in rows:
    data[(r["ranks"], r["op"])][r["bytes"]][r["system"]].append(r["us"])
    count[(r["op"], r["bytes"])] = r["count"]
    key = (r["config"], r["launch"])
    if key not in loads[r["ranks"]]: loads[r["ranks"]].append(key)
load_of = {(r["config"], r["launch"]): r["load"] for r in rows}
names = {"dgop": "GA_Dgop (sum of doubles)", "brdcst": "GA_Brdcst (root 0)"}
print("# GA_Dgop / GA_Brdcst: Gaea's GA C API against Debian's GA 5.8.2\n")
print("Per-call latency in µs: each call timed alone between GA_Syncs, average over ranks, median "
      "over a launch's repetitions, then median over the interleaved launches. The last call of "
      "every repetition is checked (exact sums, broadcast bytes). **Gaea/GA** below 1: Gaea "
      "faster.\n")
print("```\n" + env + "\n```\n")
for (np, op) in sorted(data, key=lambda k: (k[0], list(names).index(k[1]) if k[1] in names else 9)):
    sizes = data[(np, op)]
    n = max(len(v) for s in sizes.values() for v in s.values())
    print(f"## {names.get(op, op)}, {np} ranks ({n} launch(es))\n")
    print("Load before each launch: " +
          " | ".join(f"{c}#{l}: {load_of[(c, l)]}" for c, l in loads[np]) + "\n")
    print("| size | count | GA 5.8.2 | Gaea GA API | Gaea/GA |")
    print("|---|---|---|---|---|")
    for b in sorted(sizes):
        med = {s: statistics.median(v) for s, v in sizes[b].items()}
        g, a = med.get("ga"), med.get("gaea-ga-api")
        ratio = f"{a / g:.2f}x" if g and a else "-"
        print(f"| {human(b)} | {count[(op, b)]} | {us(g)} | {us(a)} | {ratio} |")
    print()
PY
echo "results: $out"
