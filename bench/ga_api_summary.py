#!/usr/bin/env python3
"""Summary table of bench/compare_ga_api.sh: medians over launches per metric and system.
usage: ga_api_summary.py results.jsonl launches load-before load-after ucx-tls"""
import json, statistics, sys
from collections import defaultdict
path, launches, before, after, tls = sys.argv[1:]
rows = [json.loads(l) for l in open(path)]
med = statistics.median
# metric key -> config -> list over launches
data = defaultdict(lambda: defaultdict(list))
for r in rows:
    c = r["config"]
    if r.get("bench") == "rma_sweep":
        for x in r["rows"]:
            for k in ("get_lat_us", "put_lat_us", "get_bw_GBs", "put_bw_GBs"):
                data[(f"{k} {x['bytes']} B")][c].append(x[k])
    elif r.get("bench") == "strided":
        for k in ("get", "put"):  # the native program reports its automatic protocol as *_auto
            data[(f"strided {k} MB/s chunk {r['chunk']} B x {r['rows']}")][c].append(
                r[k] if k in r else r[k + "_auto"])
    elif r.get("bench") == "acc":
        # the native program times both protocols: target-driven is the one the GA API uses
        data[(f"acc {r['bytes']} B, {r['origins']} origins, us")][c].append(r.get("us", r.get("target_us")))
    elif r.get("bench") == "nbget":
        data[(f"nbget {r['bytes']} B depth {r['depth']}, kops")][c].append(r["kops"])
    elif r.get("bench") == "ga_read_inc":
        for k in ("idle_avg_us", "compute_avg_us", "idle_max_us", "compute_max_us"):
            data[(f"read_inc {k} ({r['ranks']} ranks)")][c].append(r[k])
print(f"# GA C benchmarks: Global Arrays 5.8.2 vs Gaea's GA API (same source) vs Gaea native\n")
print(f"UCX_TLS={tls} for Gaea; {launches} interleaved launches; medians over launches; "
      f"load before {before}, after {after}.\n")
print("| metric | GA 5.8.2 | Gaea GA API | Gaea native | GA API, MPI yields | GA API / GA | GA API / native |")
print("|---|---|---|---|---|---|---|")
for key in sorted(data):
    d = data[key]
    g, a, n, y = (med(d[c]) if d.get(c) else None for c in ("ga", "ga-api", "native", "ga-api-yield"))
    f = lambda v: "-" if v is None else f"{v:.3f}"
    r = lambda x, y: "-" if x is None or y is None or y == 0 else f"{x / y:.2f}"
    print(f"| {key} | {f(g)} | {f(a)} | {f(n)} | {f(y)} | {r(a, g)} | {r(a, n)} |")
print("\nLatencies (us): lower is better; bandwidths (GB/s, MB/s, kops): higher is better.")
