#!/usr/bin/env bash
# Get/put latency and bandwidth from 8 B to 4 MiB ([PGAS-BGQ Fig. 4-7]: latency,
# bandwidth, latency per byte, half-bandwidth size) on one node and across emulated hosts, Gaea
# (build/bench/get_bench --sweep) beside Global Arrays 5.8 (build/bench/reference/ga_rma_sweep),
# then the counter benchmark (Fig. 10) on 2 hosts x 2 ranks (bench/compare_counters.sh --hosts).
#
#   bench/compare_rma_nodes.sh [build-dir=build] [launches=3]
#
# Configurations (RMA_CONFIGS, default "node hosts hosts-bgq"; also "hosts-ib"):
#   node       2 ranks on this machine, plain mpirun (Open MPI's default binding)
#   hosts      2 emulated hosts (scripts/cluster.sh up 2 --ppn 2), rank 0 and 1 on different
#              hosts (--map-by node), links unshaped
#   hosts-bgq  the same with --preset bgq; hosts-ib with --preset ib. The shaping actually
#              applied (this kernel may lack sch_netem: then the rate alone) is what
#              'scripts/cluster.sh status' prints, and it is stored with the results.
# Systems: gaea (UCX's default transports: shared memory on a node, tcp between hosts) and GA
# in the Open MPI set-ups of GA_NODE_VARIANTS (default "default nocma") on one node and
# GA_HOST_VARIANTS (default "pt2pt ucx") across hosts; see bench/nodes_common.sh. GA with Open
# MPI's own choice across hosts is tried once per host configuration ("default") so that its
# failure, if any, is recorded.
# Launches are interleaved (every launch runs every configuration and system, in a rotated
# order); every figure is the median over launches of the per-launch medians.
#
# Output: tables on stdout, and bench/out/<date>-nodes/ (RMA_OUT overrides; a kept run copies
# its summary to bench/results/<date>-<topic>/):
#   raw.jsonl       one JSON line per launch (the program's line, tagged with config, label,
#                   launch, load), plus {"failed":...} lines for launches that failed or hung
#   results.json    environment, cluster status per configuration, raw lines and the summary
#   summary.txt     the tables; logs/ every launch's full output; counters/ the Fig. 10 part
# Environment: SWEEP_ARGS (default "--reps 5"), RMA_TIMEOUT (s per launch, default 300),
#   RMA_COUNTERS=0 skips the Fig. 10 part, COUNTER_LAUNCHES / COUNTER_PRESETS pass through,
#   GAEA_CLUSTER_NAME (default gaeab). Needs root for the emulated hosts.
set -euo pipefail

build=${1:-build}
launches=${2:-3}
[[ $launches =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [build-dir] [launches]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=nodes_common.sh
source "$here/nodes_common.sh"
configs=${RMA_CONFIGS:-"node hosts hosts-bgq"}
ga_node_variants=${GA_NODE_VARIANTS:-"default nocma"}
ga_host_variants=${GA_HOST_VARIANTS:-"pt2pt ucx"}
sweep_args=${SWEEP_ARGS:-"--reps 5"}
limit=${RMA_TIMEOUT:-300}
final_out=${RMA_OUT:-$here/out/$(date +%Y%m%d-%H%M%S)-nodes}
[[ ! -e $final_out ]] || { echo "compare_rma_nodes.sh: $final_out exists; not overwriting it" >&2; exit 1; }
# Written under <dir>.partial and renamed when the run completes, so that an interrupted run
# never looks like a result.
out=$final_out.partial
rm -rf "$out"
gaea_exe=$build/bench/get_bench
ga_exe=$build/bench/reference/ga_rma_sweep
[[ -x $gaea_exe ]] || { echo "no $gaea_exe (cmake --build $build --target get_bench)" >&2; exit 1; }
have_ga=1
[[ -x $ga_exe ]] || { echo "no $ga_exe: Global Arrays columns skipped" >&2; have_ga=0; }
for c in $configs; do
  case $c in node | hosts | hosts-bgq | hosts-ib) ;; *) echo "unknown configuration '$c'" >&2; exit 2 ;; esac
done

mkdir -p "$out/logs"
raw=$out/raw.jsonl
: >"$raw"
trap nodes_down EXIT
local_flags=(--oversubscribe)
[[ $(id -u) == 0 ]] && local_flags+=(--allow-run-as-root)

{
  echo "command: $0 $*"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "machine: $(uname -srm), $(nproc) cores"
  echo "uptime at start: $(uptime)"
  echo "git: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "uncommitted framework files: $(git -C "$here/.." status --short -- framework 2>/dev/null | tr '\n' ' ')"
  echo "executables built: $(stat -c '%y %n' "$gaea_exe" "$ga_exe" 2>/dev/null | cut -c1-19,36- | tr '\n' ';')"
  echo "configs: $configs; GA node variants: $ga_node_variants; GA host variants: $ga_host_variants"
  echo "sweep args: $sweep_args; launches: $launches; timeout per launch: ${limit}s"
  echo "UCX_TLS: ${UCX_TLS:-default}; GAEA_PROGRESS: ${GAEA_PROGRESS:-default}"
} >"$out/environment.txt"
cat "$out/environment.txt"

preset_of() {
  case $1 in hosts) echo none ;; hosts-bgq) echo bgq ;; hosts-ib) echo ib ;; *) echo "" ;; esac
}

# run_one CONFIG LABEL LAUNCH: one launch; appends its tagged JSON line (or a failure) to raw.
run_one() {
  local config=$1 label=$2 launch=$3 exe args env_words=() rc=0 load busy
  local log=$out/logs/$config-$label-$launch.txt
  if [[ $label == gaea ]]; then
    exe=$gaea_exe
    args="--sweep $sweep_args"
  else
    exe=$ga_exe
    args=$sweep_args
    read -r -a env_words <<<"$(ga_env "${label#ga-}")"
  fi
  busy=$(busy_now)
  load=$(load_now)
  # shellcheck disable=SC2086
  if [[ $config == node ]]; then
    env "${env_words[@]}" timeout -k 10 "$limit" mpirun "${local_flags[@]}" -np 2 "$exe" $args \
      >"$log" 2>&1 || rc=$?
  else
    env "${env_words[@]}" timeout -k 10 "$limit" "$nodes_cluster" mpirun -np 2 --map-by node \
      "$exe" $args >"$log" 2>&1 || rc=$?
  fi
  local line
  line=$(grep -m1 '^{"bench":"rma_sweep"' "$log" || true)
  local tag="\"config\":\"$config\",\"label\":\"$label\",\"launch\":$launch,\"load\":\"$load\",\"busy_before\":\"$busy\",\"rc\":$rc,\"env\":\"${env_words[*]}\""
  if [[ -n $line ]]; then
    echo "{$tag,${line#\{}" >>"$raw"
    printf '  %-10s %-10s launch %d: ok (load %s, cores busy before %s)\n' "$config" "$label" \
      "$launch" "$load" "$busy"
  else
    local why
    why=$(grep -v '^\s*$' "$log" | grep -iE 'error|abort|invalid|timeout|cannot' | head -n 3 | tr '\n"\\' '   ' || true)
    [[ $rc == 124 || $rc == 137 ]] && why="timed out after ${limit}s; $why"
    echo "{$tag,\"failed\":true,\"why\":\"${why:-no JSON line (see log)}\",\"log\":\"logs/$(basename "$log")\"}" >>"$raw"
    printf '  %-10s %-10s launch %d: FAILED rc=%d (%s)\n' "$config" "$label" "$launch" "$rc" "${why:-see $log}"
  fi
}

: >"$out/cluster-status.txt"
for ((i = 1; i <= launches; i++)); do
  echo "=== launch $i of $launches (load $(load_now))"
  for config in $configs; do
    labels=(gaea)
    if ((have_ga)); then
      if [[ $config == node ]]; then
        for v in $ga_node_variants; do labels+=("ga-$v"); done
      else
        for v in $ga_host_variants; do labels+=("ga-$v"); done
      fi
    fi
    if [[ $config != node ]]; then
      nodes_up "$(preset_of "$config")"
      { echo "# launch $i, $config"; nodes_status; } >>"$out/cluster-status.txt"
      ((have_ga && i == 1)) && run_one "$config" ga-default "$i"
    fi
    n=${#labels[@]}
    for ((k = 0; k < n; k++)); do  # rotated: launch i starts with system (i-1) mod n
      run_one "$config" "${labels[$(((k + i - 1) % n))]}" "$i"
    done
  done
done
nodes_down
echo "uptime at end: $(uptime)" >>"$out/environment.txt"

python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, math, os, re, statistics, sys

out = sys.argv[1]
raw = [json.loads(l) for l in open(os.path.join(out, "raw.jsonl")) if l.strip()]
env = open(os.path.join(out, "environment.txt")).read()
status_text = open(os.path.join(out, "cluster-status.txt")).read()
# The first status printed for every configuration (the shaping actually applied).
status = {}
for block in re.split(r"^# ", status_text, flags=re.M):
    if block.strip():
        head, _, body = block.partition("\n")
        cfg = head.split(", ")[-1].strip()
        status.setdefault(cfg, body.strip())
status["node"] = "one node: plain mpirun, no emulated hosts"

ok = [r for r in raw if not r.get("failed")]
failed = [r for r in raw if r.get("failed")]
configs, labels = [], []
for r in raw:
    if r["config"] not in configs: configs.append(r["config"])
    if r["label"] not in labels: labels.append(r["label"])
metrics = ["get_lat_us", "put_lat_us", "get_bw_GBs", "put_bw_GBs"]

# medians over launches: summary[config][label] = {"sizes": [...], metric: [...], ...}
summary = {}
for cfg in configs:
    for lab in labels:
        runs = [r for r in ok if r["config"] == cfg and r["label"] == lab]
        if not runs: continue
        sizes = [row["bytes"] for row in runs[0]["rows"]]
        s = {"sizes": sizes, "launches": len(runs), "system": runs[0]["system"],
             "hosts": sorted({runs[0]["origin_host"], runs[0]["target_host"]}),
             "same_node": runs[0]["same_node"],
             "loads": [r["load"] for r in runs],
             "busy_before": [r.get("busy_before", "?") for r in runs]}
        for m in metrics:
            s[m] = [statistics.median(r["rows"][k][m] for r in runs) for k in range(len(sizes))]
        for kind in ("get", "put"):
            bw = s[f"{kind}_bw_GBs"]
            peak = max(bw)
            k = next(k for k, b in enumerate(bw) if b >= peak / 2)
            est = sizes[k]
            if k > 0 and bw[k] > bw[k - 1]:  # log-linear between the bracketing sizes
                f = (peak / 2 - bw[k - 1]) / (bw[k] - bw[k - 1])
                est = sizes[k - 1] * (sizes[k] / sizes[k - 1]) ** f
            # Hockney's n_1/2 of the blocking transfer: bandwidth = size / latency
            lat_bw = [b / (l * 1e3) for b, l in zip(sizes, s[f"{kind}_lat_us"])]
            lpeak = max(lat_bw)
            lk = next(k for k, b in enumerate(lat_bw) if b >= lpeak / 2)
            s[f"{kind}_peak_bw_GBs"] = peak
            s[f"{kind}_n_half_bytes"] = sizes[k]
            s[f"{kind}_n_half_interp_bytes"] = est
            s[f"{kind}_blocking_peak_GBs"] = lpeak
            s[f"{kind}_blocking_n_half_bytes"] = sizes[lk]
        summary.setdefault(cfg, {})[lab] = s

def human(b):
    b = float(b)
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f: return ("%.3g" % (b / f)) + " " + unit
    return "%.3g B" % b

def fmt(v, w=9):
    if v is None: return "%*s" % (w, "-")
    if v >= 1000: return "%*.0f" % (w, v)
    if v >= 10: return "%*.1f" % (w, v)
    return "%*.3f" % (w, v)

print("\nMedians over launches of per-launch medians. ratio = Gaea / GA (first GA variant of the "
      "configuration):\nlatency ratio < 1 and bandwidth ratio > 1 mean Gaea is faster.")
for cfg in configs:
    labs = [l for l in labels if l in summary.get(cfg, {})]
    if not labs: continue
    gas = [l for l in labs if l.startswith("ga-") and l != "ga-default"]
    ref = gas[0] if gas else None
    print(f"\n=== {cfg}: {status.get(cfg, '')}")
    for lab in labs:
        s = summary[cfg][lab]
        print(f"  {lab:10s} {s['system']}  hosts {','.join(s['hosts'])}  launches {s['launches']}")
        print(f"  {'':10s} load {' | '.join(s['loads'])}; cores busy just before: "
              f"{' '.join(s['busy_before'])}")
    for title, kind, unit in (("latency", "lat_us", "us"), ("bandwidth", "bw_GBs", "GB/s")):
        head = "%10s" % "bytes"
        for op in ("get", "put"):
            for lab in labs: head += " %9s" % (op + ":" + lab.replace("ga-", "ga/"))[:9]
            if ref and "gaea" in labs: head += " %9s" % (op + " ratio")
        print(f"\n{title} [{unit}]" + (" (blocking get; put + fence)" if kind == "lat_us"
              else " (window of non-blocking ops in flight; puts end with a fence)"))
        print(head)
        s0 = summary[cfg][labs[0]]
        for k, b in enumerate(s0["sizes"]):
            line = "%10d" % b
            for op in ("get", "put"):
                for lab in labs: line += " " + fmt(summary[cfg][lab][f"{op}_{kind}"][k])
                if ref and "gaea" in labs:
                    g, r = summary[cfg]["gaea"][f"{op}_{kind}"][k], summary[cfg][ref][f"{op}_{kind}"][k]
                    line += " %8.2fx" % (g / r) if r > 0 else " %9s" % "-"
            print(line)
    print("\nlatency per byte [ns/B] (blocking latency / size, sizes >= 32 KiB)")
    head = "%10s" % "bytes"
    for op in ("get", "put"):
        for lab in labs: head += " %9s" % (op + ":" + lab.replace("ga-", "ga/"))[:9]
    print(head)
    for k, b in enumerate(s0["sizes"]):
        if b < 32768: continue
        line = "%10d" % b
        for op in ("get", "put"):
            for lab in labs: line += " %9.3f" % (summary[cfg][lab][f"{op}_lat_us"][k] * 1e3 / b)
        print(line)
    print("\nhalf-bandwidth size n_1/2: smallest measured size reaching half the peak of the "
          "bandwidth curve\n(log-interpolated estimate in brackets); 'blocking' uses size/latency")
    print("%-10s %12s %22s %12s %22s %14s %14s" % ("system", "get peak", "get n_1/2", "put peak",
          "put n_1/2", "get blocking", "put blocking"))
    for lab in labs:
        s = summary[cfg][lab]
        print("%-10s %7.3f GB/s %9s (%10s) %7.3f GB/s %9s (%10s) %14s %14s" % (
            lab, s["get_peak_bw_GBs"], human(s["get_n_half_bytes"]),
            human(s["get_n_half_interp_bytes"]), s["put_peak_bw_GBs"],
            human(s["put_n_half_bytes"]), human(s["put_n_half_interp_bytes"]),
            human(s["get_blocking_n_half_bytes"]), human(s["put_blocking_n_half_bytes"])))

print("\n=== Overview (medians over launches)")
print("%-10s %-10s %10s %10s %11s %11s %11s %11s %10s %10s" % (
    "config", "system", "get 8B us", "put 8B us", "get 4MiB us", "put 4MiB us", "get GB/s pk",
    "put GB/s pk", "get n1/2", "put n1/2"))
for cfg in configs:
    for lab, s in summary.get(cfg, {}).items():
        print("%-10s %-10s %10s %10s %11s %11s %11.3f %11.3f %10s %10s" % (
            cfg, lab, fmt(s["get_lat_us"][0], 10), fmt(s["put_lat_us"][0], 10),
            fmt(s["get_lat_us"][-1], 11), fmt(s["put_lat_us"][-1], 11), s["get_peak_bw_GBs"],
            s["put_peak_bw_GBs"], human(s["get_n_half_bytes"]), human(s["put_n_half_bytes"])))
if failed:
    print("\nFailed or hung launches:")
    for r in failed:
        print(f"  {r['config']:10s} {r['label']:10s} launch {r['launch']}: rc={r['rc']} {r['why']} ({r['log']})")

json.dump({"environment": env, "cluster_status": status, "raw": raw, "summary": summary,
           "failed": failed},
          open(os.path.join(out, "results.json"), "w"), indent=1)
print(f"\n(results.json, raw.jsonl and summary.txt go to {out[:-len('.partial')]})")
PY

if [[ ${RMA_COUNTERS:-1} != 0 ]]; then
  mkdir -p "$out/counters"
  echo
  echo "=== Fig. 10 counters on 2 hosts x 2 ranks (bench/compare_counters.sh --hosts)"
  "$here/compare_counters.sh" --hosts "$build" "${COUNTER_REPS:-2}" "$out/counters" |
    tee "$out/counters/compare_counters.txt" || echo "counter part failed (see $out/counters)"
fi

mv "$out" "$final_out"
echo "results: $final_out"
