#!/usr/bin/env bash
# [PASCoL Table 1] measured here: for get, put, accumulate and strided put over each transport, the
# smallest message size from which interrupt-driven completion with DVFS (simulated: this machine
# has no cpufreq) costs at most 5 % latency against polling in the shift benchmark, at that size
# and every larger one; beside it the normalised power and energy per MB there, and the paper's
# sizes. A sweep of shift (configs polling and interrupt+dvfs, interleaved per repetition) from
# 1 KiB to 4 MiB by factors of 2 on 2 ranks.
#   bench/pascol_thresholds.sh [reps=5] [transports="sm tcp"] [bound=1.05]
# Results: bench/out/<date>-pascol-thresholds/ (PASC_OUT overrides): shift-<tls>.json and .txt,
# summary.md (the table).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
reps=${1:-5}
transports=${2:-sm tcp}
bound=${3:-1.05}
shift_bin=$root/build/bench/shift
[[ -x $shift_bin ]] || { echo "build first: $shift_bin missing" >&2; exit 1; }
out=${PASC_OUT:-$here/out/$(date +%Y%m%d-%H%M%S)-pascol-thresholds}
[[ -e $out ]] && { echo "$out exists" >&2; exit 1; }
mkdir -p "$out.partial"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_WARN_UNUSED_ENV_VARS=n
{
  echo "command: bench/pascol_thresholds.sh $reps \"$transports\" $bound"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(uname -srm), $(nproc) cores"
  echo "git: $(git -C "$root" rev-parse --short HEAD)"
  echo "uptime at start: $(uptime)"
} >"$out.partial/run.txt"
for tls in $transports; do
  UCX_TLS=$tls GAEA_DVFS=simulated mpirun -np 2 -x UCX_TLS -x GAEA_DVFS "$shift_bin" \
    --prims put,get,acc,strided_put --configs polling,interrupt+dvfs --min 1KiB --max 4MiB \
    --factor 2 --reps "$reps" --json "$out.partial/shift-$tls.json" >"$out.partial/shift-$tls.txt"
  echo "$tls done; load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out.partial/run.txt"
done
echo "uptime at end: $(uptime)" >>"$out.partial/run.txt"
python3 - "$out.partial" "$bound" $transports >"$out.partial/summary.md" <<'EOF'
import json, os, sys
d, bound, transports = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
paper = {"get": 32, "put": 16, "acc": 16, "strided_put": 16}  # KiB, [PASCoL Table 1]
def label(b):
    return f"{b // (1 << 20)} MiB" if b >= 1 << 20 else f"{b // 1024} KiB"
print("# [PASCoL Table 1] measured: where interrupt + DVFS costs at most "
      f"{100 * (bound - 1):.0f} % latency against polling\n")
print("```\n" + open(os.path.join(d, "run.txt")).read().rstrip() + "\n```\n")
print("Threshold: the smallest size from which the latency ratio (interrupt+dvfs / polling, "
      "medians over the interleaved repetitions) stays within the bound at every larger size; "
      "normalised power and energy per MB at that size. DVFS is simulated.\n")
print("| transport | primitive | threshold | latency ratio there | normalised power | J/MB vs polling "
      "| paper (KiB) | worst ratio above 64 KiB |")
print("|---|---|---|---|---|---|---|---|")
for tls in transports:
    res = json.load(open(os.path.join(d, f"shift-{tls}.json")))["results"]
    for prim in ("get", "put", "acc", "strided_put"):
        rows = sorted((r for r in res if r["prim"] == prim), key=lambda r: r["bytes"])
        by = {}
        for r in rows:
            by.setdefault(r["bytes"], {})[r["config"]] = r
        sizes = sorted(b for b in by if "interrupt+dvfs" in by[b])
        ratio = {b: by[b]["interrupt+dvfs"]["latency_ratio"] for b in sizes}
        thr = None
        for i, b in enumerate(sizes):
            if all(ratio[c] <= bound for c in sizes[i:]):
                thr = b
                break
        worst = max((ratio[b] for b in sizes if b >= 65536), default=float("nan"))
        if thr is None:
            print(f"| {tls} | {prim} | none up to {label(sizes[-1])} | - | - | - "
                  f"| {paper[prim]} | {worst:.2f} |")
            continue
        x, p = by[thr]["interrupt+dvfs"], by[thr].get("polling")
        e = x["energy_j_per_mb"] / p["energy_j_per_mb"] if p and p["energy_j_per_mb"] > 0 else float("nan")
        print(f"| {tls} | {prim} | {label(thr)} | {ratio[thr]:.3f} | {x.get('power_ratio', float('nan')):.2f} "
              f"| {e:.2f} | {paper[prim]} | {worst:.2f} |")
EOF
mv "$out.partial" "$out"
echo "results in $out"
