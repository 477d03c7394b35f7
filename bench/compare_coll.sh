#!/usr/bin/env bash
# gaea::coll's algorithms of barrier, broadcast, reduce, allreduce, allgather and alltoall beside
# Open MPI's calls on its defaults (build/bench/gaea-coll-bench: every variant in one process, on
# the same buffers, interleaved per size), on one node and across emulated hosts
# (scripts/cluster.sh). Sizes: the program's default sweep, 8 B - 4 MiB (barrier: one size).
#
#   bench/compare_coll.sh [build-dir=build] [launches=3]
#
# Operations: COLL_OPS (default "barrier broadcast reduce allreduce allgather alltoall").
# Configurations (COLL_CONFIGS, default all, in this order):
#   node-sm-2      2 ranks on this machine, UCX_TLS=sm (Open MPI: its default, vader)
#   node-tcp-2     2 ranks, UCX_TLS=tcp, and Open MPI on btl tcp too (OMPI_MCA_btl=self,tcp)
#   node-sm-4      4 ranks, UCX_TLS=sm (more ranks than the 2 cores: oversubscribed)
#   hosts-2x1      2 emulated hosts x 1 rank, links unshaped
#   hosts-2x2      2 hosts x 2 ranks (ranks 0,1 on h0 and 2,3 on h1)
#   hosts-4x1      4 hosts x 1 rank
#   hosts-2x2-bgq  2 hosts x 2 ranks on links shaped by --preset bgq
# Across hosts every system takes its defaults: Gaea shared memory inside a host and tcp between
# hosts; Open MPI vader inside and btl/tcp between. When the ranks outnumber this machine's cores,
# Open MPI gets mpi_yield_when_idle=1 and Gaea GAEA_SHARED_CORES=yes: on one node mpirun
# --oversubscribe and Gaea's own count see the sharing, but the emulated hosts claim 2 slots each,
# and without it both busy-poll against each other's ranks on the shared cores (4 ranks on 2
# hosts: ~10 ms per small MPI_Alltoall instead of ~40 us).
# One cluster of 4 hosts x 2 slots serves every
# layout (mpirun's mapping picks the hosts); the JSON of every launch names the host of every
# rank, and a launch whose layout differs from the configuration's is marked failed.
# Every launch runs every operation (odd launches in the listed order, even ones reversed); every
# figure is the median over launches of the program's per-launch medians.
#
# Output: bench/out/<date>-coll/ (COLL_OUT overrides), built under <dir>.partial and renamed
# when the run completes:
#   summary.md      per configuration and operation: latency per size of every variant, the
#                   best Gaea algorithm against MPI and their ratio; a headline table (ratio
#                   ranges for small and large messages) and flags (slow algorithms, failures)
#   results.json    environment, cluster status, the summary and every launch's JSON
#   json/ logs/     every launch's JSON and full output; environment.txt, cluster-status.txt
# Environment: NODE_ARGS (default "--factor 4 --reps 5"), HOST_ARGS (default "--factor 4
#   --iters 30 --warmup 5 --min-iters 3 --reps 3": fewer calls across hosts, where every call
#   is slow), COLL_TIMEOUT (s per launch,
#   default 300), GAEA_CLUSTER_NAME (default gaeab). Needs root (exits 77 otherwise).
# About 9 minutes per launch with every configuration and operation on the 2-core VM (the two
# node-sm configurations alone: about 2).
set -euo pipefail

build=${1:-build}
launches=${2:-3}
[[ $launches =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [build-dir] [launches]" >&2; exit 2; }
if [[ $(id -u) != 0 ]]; then
  echo "compare_coll.sh: needs root for the emulated hosts (scripts/cluster.sh); skipping" >&2
  exit 77
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=nodes_common.sh
source "$here/nodes_common.sh"
"$nodes_cluster" check >/dev/null || exit $?  # 77 when namespaces cannot be made here

all_configs="node-sm-2 node-tcp-2 node-sm-4 hosts-2x1 hosts-2x2 hosts-4x1 hosts-2x2-bgq"
configs=${COLL_CONFIGS:-$all_configs}
node_args=${NODE_ARGS:-"--factor 4 --reps 5"}
host_args=${HOST_ARGS:-"--factor 4 --iters 30 --warmup 5 --min-iters 3 --reps 3"}
limit=${COLL_TIMEOUT:-300}
all_ops="barrier broadcast reduce allreduce allgather alltoall"
ops=${COLL_OPS:-$all_ops}
final_out=${COLL_OUT:-$here/out/$(date +%Y%m%d-%H%M%S)-coll}
[[ ! -e $final_out ]] || { echo "compare_coll.sh: $final_out exists; not overwriting it" >&2; exit 1; }
out=$final_out.partial
rm -rf "$out"
exe=$build/bench/gaea-coll-bench
[[ -x $exe ]] || { echo "no $exe (cmake --build $build --target gaea-coll-bench)" >&2; exit 1; }
exe=$(readlink -f "$exe")
for c in $configs; do
  [[ " $all_configs " == *" $c "* ]] || { echo "unknown configuration '$c' ($all_configs)" >&2; exit 2; }
done
for o in $ops; do
  [[ " $all_ops " == *" $o "* ]] || { echo "unknown operation '$o' ($all_ops)" >&2; exit 2; }
done

# config -> ranks, expected nodes, ranks per node, cluster preset ("" = one node), extra
# mpirun arguments, environment words.
ranks_of() { case $1 in *-2 | hosts-2x1) echo 2 ;; *) echo 4 ;; esac; }
layout_of() {  # nodes ranks-per-node
  case $1 in
    node-*-2) echo "1 2" ;; node-sm-4) echo "1 4" ;; hosts-2x1) echo "2 1" ;;
    hosts-2x2 | hosts-2x2-bgq) echo "2 2" ;; hosts-4x1) echo "4 1" ;;
  esac
}
preset_of() { case $1 in node-*) echo "" ;; *-bgq) echo bgq ;; *) echo none ;; esac; }
map_of() { case $1 in hosts-2x1 | hosts-4x1) echo "--map-by node" ;; *) echo "" ;; esac; }
env_of() {
  case $1 in
    node-sm-*) echo "UCX_TLS=sm" ;;
    node-tcp-*) echo "UCX_TLS=tcp OMPI_MCA_btl=self,tcp" ;;
    *) echo "" ;;
  esac
}

cluster_preset=""
cluster_up() {  # 4 hosts x 2 slots with preset $1; no-op when it is already up so
  [[ $cluster_preset == "$1" ]] && return 0
  "$nodes_cluster" up 4 --ppn 2 --preset "$1" >/dev/null
  cluster_preset=$1
}
cleanup() {
  "$nodes_cluster" down >/dev/null 2>&1 || true
  cluster_preset=""
}
trap cleanup EXIT

mkdir -p "$out/logs" "$out/json"
: >"$out/cluster-status.txt"
local_flags=(--oversubscribe --allow-run-as-root)
export UCX_WARN_UNUSED_ENV_VARS=${UCX_WARN_UNUSED_ENV_VARS:-n}
{
  echo "command: $0 $*"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "machine: $(uname -srm), $(nproc) cores"
  echo "uptime at start: $(uptime)"
  echo "cores busy just before the start: $(busy_now)"
  echo "git: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "uncommitted framework/coll files: $(git -C "$here/.." status --short -- framework/coll 2>/dev/null | tr '\n' ' ')"
  echo "uncommitted framework files: $(git -C "$here/.." status --short -- framework 2>/dev/null | wc -l)"
  echo "executable built: $(stat -c '%y' "$exe" | cut -c1-19) $exe"
  echo "configs: $configs; operations: $ops; launches: $launches; timeout per launch: ${limit}s"
  echo "node args: $node_args; host args: $host_args"
  echo "GAEA_PROGRESS: ${GAEA_PROGRESS:-default (auto)}; GAEA_COLL_ALGO: ${GAEA_COLL_ALGO:-unset}"
} >"$out/environment.txt"
cat "$out/environment.txt"

# run_one CONFIG OP LAUNCH
run_one() {
  local config=$1 op=$2 launch=$3 rc=0 load busy env_words=() map args
  local tag=$config-$op-$launch
  local log=$out/logs/$tag.txt json=$out/json/$tag.json
  read -r -a env_words <<<"$(env_of "$config")"
  if [[ $config == hosts-* ]] && (($(ranks_of "$config") > $(nproc))); then
    env_words+=(OMPI_MCA_mpi_yield_when_idle=1 GAEA_SHARED_CORES=yes)
  fi
  read -r -a map <<<"$(map_of "$config")"
  if [[ $config == node-* ]]; then args=$node_args; else args=$host_args; fi
  busy=$(busy_now)
  load=$(load_now)
  # shellcheck disable=SC2086
  if [[ $config == node-* ]]; then
    env "${env_words[@]}" timeout -k 10 "$limit" mpirun "${local_flags[@]}" -np "$(ranks_of "$config")" \
      "$exe" --op "$op" $args --json "$json" >"$log" 2>&1 || rc=$?
  else
    env "${env_words[@]}" timeout -k 10 "$limit" "$nodes_cluster" mpirun -np "$(ranks_of "$config")" \
      "${map[@]}" "$exe" --op "$op" $args --json "$json" >"$log" 2>&1 || rc=$?
  fi
  [[ $rc == 124 || $rc == 137 ]] && echo "compare_coll.sh: timed out after ${limit}s" >>"$log"
  echo "{\"config\":\"$config\",\"op\":\"$op\",\"launch\":$launch,\"rc\":$rc,\"load\":\"$load\",\"busy_before\":\"$busy\",\"env\":\"${env_words[*]}\",\"log\":\"logs/$tag.txt\",\"json\":\"json/$tag.json\"}" \
    >>"$out/launches.jsonl"
  printf '  %-14s %-9s launch %d: rc=%d in %s (load %s, cores busy before %s)\n' "$config" "$op" \
    "$launch" "$rc" "$(grep -c '^ *[0-9]' "$log" || true) sizes" "$load" "$busy"
}

: >"$out/launches.jsonl"
for ((i = 1; i <= launches; i++)); do
  echo "=== launch $i of $launches (load $(load_now))"
  for config in $configs; do
    preset=$(preset_of "$config")
    if [[ -n $preset ]]; then
      cluster_up "$preset"
      { echo "# launch $i, $config"; nodes_status; } >>"$out/cluster-status.txt"
    fi
    if ((i % 2)); then order=$ops; else order=$(echo "$ops" | tr ' ' '\n' | tac | tr '\n' ' '); fi
    for op in $order; do run_one "$config" "$op" "$i"; done
  done
done
cleanup
echo "uptime at end: $(uptime)" >>"$out/environment.txt"

layouts=""
for c in $configs; do layouts+="$c=$(layout_of "$c" | tr ' ' ':') "; done
python3 - "$out" "$layouts" "$ops" <<'PY'
import json, os, re, statistics, sys

out, layouts = sys.argv[1], dict(x.split("=") for x in sys.argv[2].split())
op_order = sys.argv[3].split()
env = open(os.path.join(out, "environment.txt")).read()
launches = [json.loads(l) for l in open(os.path.join(out, "launches.jsonl")) if l.strip()]
status_text = open(os.path.join(out, "cluster-status.txt")).read()
status = {}
for block in re.split(r"^# ", status_text, flags=re.M):
    if block.strip():
        head, _, body = block.partition("\n")
        status.setdefault(head.split(", ")[-1].strip(), body.strip())

SMALL, LARGE = 8 << 10, 512 << 10  # small <= 8 KiB (OSU's iteration threshold), large >= 512 KiB

def human(b):
    if b == 0: return "-"  # barrier
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f and b % f == 0: return f"{b // f} {unit}"
    return f"{b} B"

def us(v):
    if v is None: return "-"
    return f"{v:.0f}" if v >= 1000 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"

# Every launch's JSON, checked against the configuration's layout.
problems = []
data = {}  # (config, op) -> list of JSON documents
for l in launches:
    doc = None
    path = os.path.join(out, l["json"])
    if os.path.exists(path):
        doc = json.load(open(path))
    where = f"{l['config']} {l['op']} launch {l['launch']}"
    if doc is None:
        problems.append(f"{where}: no JSON (rc={l['rc']}, see {l['log']})")
        continue
    nodes, ppn = (int(x) for x in layouts[l["config"]].split(":"))
    if doc["nodes"] != nodes or doc["ranks_per_node"] != ppn:
        problems.append(f"{where}: ran on {doc['nodes']} node(s), {doc['ranks_per_node']} per "
                        f"node, not {nodes} x {ppn}: {doc['rank_hosts']}; ignored")
        continue
    if l["rc"] != 0 or not doc.get("complete"):
        problems.append(f"{where}: rc={l['rc']}, complete={doc.get('complete')}, "
                        f"{len(doc['rows'])} sizes measured, failures {doc.get('failures', {})}, "
                        f"wrong bytes {doc.get('wrong_bytes', '?')} (see {l['log']})")
    for row in doc["rows"]:
        for name, v in row["variants"].items():
            if v.get("bad_bytes", 0) > 0:
                problems.append(f"{where}: {name} at {human(row['bytes'])}: {v['bad_bytes']} wrong bytes")
    doc["_load"], doc["_busy"], doc["_env"] = l["load"], l["busy_before"], l["env"]
    data.setdefault((l["config"], l["op"]), []).append(doc)

summary = {}
for (config, op), docs in sorted(
        data.items(), key=lambda kv: (list(layouts).index(kv[0][0]), op_order.index(kv[0][1]))):
    variants = docs[0]["parameters"]["variants"]
    sizes = sorted({r["bytes"] for d in docs for r in d["rows"]})
    rows = []
    for b in sizes:
        med = {}
        for name in variants:
            vals = [r["variants"][name]["avg_us"] for d in docs for r in d["rows"]
                    if r["bytes"] == b and "avg_us" in r["variants"].get(name, {})]
            med[name] = statistics.median(vals) if vals else None
        gaea = {n: v for n, v in med.items() if n not in ("mpi", "auto") and v is not None}
        best = min(gaea, key=gaea.get) if gaea else None
        mpi = med.get("mpi")
        rows.append({"bytes": b, "median_us": med, "best_gaea": best,
                     "best_us": gaea.get(best) if best else None, "mpi_us": mpi,
                     "ratio": gaea[best] / mpi if best and mpi else None,
                     "auto_over_best": med["auto"] / gaea[best]
                     if best and med.get("auto") else None})
    summary.setdefault(config, {})[op] = {
        "ranks": docs[0]["ranks"], "nodes": docs[0]["nodes"],
        "ranks_per_node": docs[0]["ranks_per_node"], "hosts": docs[0]["hosts"],
        "ucx_tls": docs[0]["ucx_tls"], "env": docs[0]["_env"], "variants": variants,
        "size_meaning": docs[0]["parameters"]["size_meaning"],
        "launches": len(docs),
        "loads": [d["_load"] for d in docs], "busy_before": [d["_busy"] for d in docs],
        "iters": {r["bytes"]: r["iters"] for r in docs[0]["rows"]}, "rows": rows}

def ratio_range(rows, keep):
    rs = [r["ratio"] for r in rows if r["ratio"] is not None and keep(r["bytes"])]
    return (min(rs), max(rs)) if rs else None

def fmt_range(rg):
    return "-" if rg is None else f"{rg[0]:.2f}x" if abs(rg[0] - rg[1]) < 5e-3 else f"{rg[0]:.2f}-{rg[1]:.2f}x"

flags = []
for config, ops in summary.items():
    for op, s in ops.items():
        for r in s["rows"]:
            best = r["best_us"]
            if best is None: continue
            for n, v in r["median_us"].items():
                if n in ("mpi", "auto") or v is None: continue
                if v >= 3 * best:
                    flags.append(f"{config} {op} {human(r['bytes'])}: {n} {us(v)} us = "
                                 f"{v / best:.1f}x the best Gaea algorithm ({r['best_gaea']}, {us(best)} us)")
            if r["auto_over_best"] and r["auto_over_best"] >= 1.5:
                flags.append(f"{config} {op} {human(r['bytes'])}: auto {us(r['median_us']['auto'])} us "
                             f"= {r['auto_over_best']:.1f}x the best algorithm ({r['best_gaea']})")

L = []
L.append(f"# gaea::coll against Open MPI: {', '.join(op_order)}\n")
L.append("Per-call latency in µs, OSU-style: every variant in the same process on the same "
         "buffers, interleaved per size; each call timed alone between barriers (coll::barrier "
         "around Gaea calls, MPI_Barrier around MPI calls); average over ranks, median over the "
         "interleaved repetitions of a launch, then median over launches. Sizes: alltoall, bytes "
         "per destination; allgather, bytes per member; broadcast, bytes from root 0; reduce "
         "(root 0) and allreduce, bytes of doubles summed; barrier, none. Open MPI runs on its "
         "defaults (coll/tuned). **best/MPI** is the fastest explicit Gaea "
         "algorithm at that size divided by MPI (below 1: Gaea faster); `auto` is Gaea's own "
         "choice (documented size rules, no calibration). Every call's data are checked.\n")
L.append("```\n" + env.strip() + "\n```\n")
L.append("## Headline: best Gaea algorithm / MPI\n")
L.append(f"small = sizes up to {human(SMALL)}, large = {human(LARGE)} and above (range over sizes).\n")
L.append("| configuration | ranks x nodes | op | small | large | best algorithm (large) | auto/best (max) |")
L.append("|---|---|---|---|---|---|---|")
for config, ops in summary.items():
    for op, s in ops.items():
        large_best = sorted({r["best_gaea"] for r in s["rows"] if r["bytes"] >= LARGE and r["best_gaea"]})
        autos = [r["auto_over_best"] for r in s["rows"] if r["auto_over_best"]]
        small = fmt_range(ratio_range(s["rows"], lambda b: b <= SMALL))
        large = fmt_range(ratio_range(s["rows"], lambda b: b >= LARGE))
        auto = f"{max(autos):.2f}x" if autos else "-"
        L.append(f"| {config} | {s['ranks']} on {s['nodes']} | {op} | {small} | {large} | "
                 f"{', '.join(large_best) or '-'} | {auto} |")
L.append("")
for config, ops in summary.items():
    first = next(iter(ops.values()))
    L.append(f"## {config}: {first['ranks']} ranks on {first['nodes']} node(s), "
             f"{first['ranks_per_node']} per node, UCX_TLS={first['ucx_tls']}\n")
    L.append(f"Hosts: {', '.join(first['hosts'])}. Environment added: "
             f"`{first['env'] or 'none'}`.\n")
    if config in status:
        L.append("```\n" + status[config] + "\n```\n")
    for op, s in ops.items():
        L.append(f"### {op} (size = {s['size_meaning']}; {s['launches']} launch(es); load before each: "
                 f"{' | '.join(s['loads'])}; cores busy before: {' | '.join(s['busy_before'])})\n")
        L.append("| size | iters | " + " | ".join(s["variants"]) + " | best Gaea | best/MPI | auto/best |")
        L.append("|" + "---|" * (len(s["variants"]) + 5))
        for r in s["rows"]:
            cells = [us(r["median_us"][n]) for n in s["variants"]]
            if r["best_gaea"]:
                i = s["variants"].index(r["best_gaea"])
                cells[i] = f"**{cells[i]}**"
            L.append(f"| {human(r['bytes'])} | {s['iters'].get(r['bytes'], '?')} | " + " | ".join(cells) +
                     f" | {r['best_gaea'] or '-'} | " +
                     (f"{r['ratio']:.2f}x" if r["ratio"] else "-") + " | " +
                     (f"{r['auto_over_best']:.2f}x" if r["auto_over_best"] else "-") + " |")
        L.append("")
L.append("## Flags\n")
L.append("Explicit algorithms at 3x the best Gaea algorithm of their size or more, and `auto` at "
         "1.5x or more (expected for some: Bruck is meant for small blocks, the chain for long "
         "pipelines).\n")
L += [f"- {f}" for f in flags] or ["- none"]
L.append("\n## Failures, hangs, wrong data, layout\n")
L += [f"- {p}" for p in problems] or ["- none"]
open(os.path.join(out, "summary.md"), "w").write("\n".join(L) + "\n")
json.dump({"environment": env, "cluster_status": status, "launches": launches,
           "summary": summary, "flags": flags, "problems": problems},
          open(os.path.join(out, "results.json"), "w"), indent=1)
print("\n".join(L))
PY

mv "$out" "$final_out"
echo "results: $final_out"
