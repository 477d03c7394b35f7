#!/usr/bin/env bash
# gaea::coll's per-call energy strategy ([A2A-Energy]) against full power, on one node and across
# emulated hosts (build/bench/gaea-coll-energy-bench; bench/README.md).
#
#   bench/compare_coll_energy.sh [build-dir=build] [launches=3]
#
# Layouts (CE_LAYOUTS, default all three):
#   node-2        2 ranks on this machine, UCX_TLS=sm (no inter-node step: nothing is throttled,
#                 the strategy is DVFS alone)
#   hosts-2x2     2 emulated hosts x 2 ranks (scripts/cluster.sh up 2 --ppn 2), links unshaped
#   hosts-3x1-bgq 3 emulated hosts x 1 rank, links shaped by --preset bgq
# Throttling only happens in steps where every core of a node talks across nodes, so the
# layouts across hosts are the ones where the whole strategy runs.
# Every launch runs with GAEA_DVFS=simulated GAEA_THROTTLE=simulated GAEA_PROGRESS=spin: this
# machine has neither cpufreq nor MSRs, and in the sleeping progress modes the governor moves the
# same simulated DVFS actuator. The saving reported is therefore the energy *model*'s (CPU time
# of a strategy call charged at f_min, throttled time at its duty); the time cost includes the
# transitions' busy-waited cost, but not the slower execution a real CPU at f_min would show.
# Inside a launch the program alternates full-power and strategy batches; launches are
# interleaved (launch i runs the layouts in rotated order) and every figure is the median over
# launches of the program's per-launch medians.
#
# Output: bench/out/<date>-coll-energy/ (CE_OUT overrides), written under <dir>.partial and
# renamed when the run completes:
#   summary.md       headline (time cost % and energy saving % per layout, algorithm and size
#                    range), one table per layout and operation, failures
#   results.json     environment, cluster status, the summary (medians over launches), failures
#   json/ logs/      every launch's JSON and full output; environment.txt (uptime at start and
#                    end, load and busy cores before every launch), cluster-status.txt
# Environment: CE_ARGS (default "--reps 7 --batch-ms 40"; the program's options), CE_TIMEOUT (s per launch,
# default 300), CE_LAYOUTS. The cluster is always named gaead. Needs root (exits 77 otherwise).
# About 5 minutes with the defaults on the 2-core VM when it is otherwise idle.
set -euo pipefail

build=${1:-build}
launches=${2:-3}
[[ $launches =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [build-dir] [launches]" >&2; exit 2; }
if [[ $(id -u) != 0 ]]; then
  echo "compare_coll_energy.sh: needs root for the emulated hosts (scripts/cluster.sh); skipping" >&2
  exit 77
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export GAEA_CLUSTER_NAME=gaead  # our own cluster: nobody else's is ever touched
# shellcheck source-path=SCRIPTDIR source=nodes_common.sh
source "$here/nodes_common.sh"
"$nodes_cluster" check >/dev/null || exit $?  # 77 when namespaces cannot be made here
all_layouts="node-2 hosts-2x2 hosts-3x1-bgq"
layouts=${CE_LAYOUTS:-$all_layouts}
for l in $layouts; do
  [[ " $all_layouts " == *" $l "* ]] || { echo "unknown layout '$l' ($all_layouts)" >&2; exit 2; }
done
ce_args=${CE_ARGS:-"--reps 7 --batch-ms 40"}
limit=${CE_TIMEOUT:-300}
final_out=${CE_OUT:-$here/out/$(date +%Y%m%d-%H%M%S)-coll-energy}
[[ ! -e $final_out ]] || { echo "compare_coll_energy.sh: $final_out exists; not overwriting it" >&2; exit 1; }
out=$final_out.partial
rm -rf "$out"
exe=$build/bench/gaea-coll-energy-bench
[[ -x $exe ]] || { echo "no $exe (cmake --build $build --target gaea-coll-energy-bench)" >&2; exit 1; }
exe=$(readlink -f "$exe")

# layout -> ranks, hosts, ranks per host, 'up' arguments ("" = one node).
ranks_of() { case $1 in node-2) echo 2 ;; hosts-2x2) echo 4 ;; hosts-3x1-bgq) echo 3 ;; esac; }
hosts_of() { case $1 in node-2) echo 1 ;; hosts-2x2) echo 2 ;; hosts-3x1-bgq) echo 3 ;; esac; }
up_of() {
  case $1 in node-2) echo "" ;; hosts-2x2) echo "2 --ppn 2" ;; hosts-3x1-bgq) echo "3 --ppn 1 --preset bgq" ;; esac
}

cluster_up_args=""
cluster_up() {  # (re)creates gaead with 'up $1'; no-op when it is already up that way
  [[ $cluster_up_args == "$1" ]] && return 0
  # shellcheck disable=SC2086
  "$nodes_cluster" up $1 >/dev/null
  cluster_up_args=$1
}
cleanup() {
  "$nodes_cluster" down >/dev/null 2>&1 || true
  cluster_up_args=""
}
trap cleanup EXIT

mkdir -p "$out/logs" "$out/json"
: >"$out/cluster-status.txt"
local_flags=(--oversubscribe --allow-run-as-root)
export GAEA_DVFS=simulated GAEA_THROTTLE=simulated GAEA_PROGRESS=spin

start_load=$(load_now)
{
  echo "command: $0 $*"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "machine: $(uname -srm), $(nproc) cores"
  echo "uptime at start: $(uptime)"
  echo "cores busy at start (other jobs): $(busy_now)"
  echo "git: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "uncommitted framework files: $(git -C "$here/.." status --short -- framework 2>/dev/null | tr '\n' ' ')"
  echo "executable built: $(stat -c '%y' "$exe" | cut -c1-19)"
  echo "layouts: $layouts; launches: $launches; program args: $ce_args; timeout per launch: ${limit}s"
  echo "environment: GAEA_DVFS=$GAEA_DVFS GAEA_THROTTLE=$GAEA_THROTTLE GAEA_PROGRESS=$GAEA_PROGRESS; cluster $GAEA_CLUSTER_NAME"
} >"$out/environment.txt"
cat "$out/environment.txt"
if awk -v l="${start_load%% *}" 'BEGIN { exit !(l >= 1.0) }'; then
  echo "WARNING: 1-minute load $start_load at start: other jobs share the cores and stretch every figure"
fi

# run_one LAYOUT LAUNCH: one launch of the program; its JSON goes to json/, failures are noted.
run_one() {
  local layout=$1 launch=$2 rc=0 busy load
  local name=$layout-$launch
  local log=$out/logs/$name.txt json=$out/json/$name.json
  local up
  up=$(up_of "$layout")
  if [[ -n $up ]]; then
    cluster_up "$up"
    { echo "# launch $launch, $layout"; "$nodes_cluster" status; } >>"$out/cluster-status.txt" 2>&1
  fi
  busy=$(busy_now)
  load=$(load_now)
  echo "load $load; cores busy before: $busy" >"$log"
  local t0=$SECONDS
  # shellcheck disable=SC2086
  if [[ -z $up ]]; then
    UCX_TLS=sm timeout -k 10 "$limit" mpirun "${local_flags[@]}" -np "$(ranks_of "$layout")" \
      "$exe" $ce_args --json "$json" >>"$log" 2>&1 || rc=$?
  else
    # Emulated hosts on fewer cores than ranks: both systems told the cores are shared (as in
    # compare_coll.sh), else each polls against the other's ranks and MPI's baseline starves.
    local shared=()
    (($(ranks_of "$layout") > $(nproc))) &&
      shared=(OMPI_MCA_mpi_yield_when_idle=1 GAEA_SHARED_CORES=yes)
    env "${shared[@]}" timeout -k 10 "$limit" "$nodes_cluster" mpirun -np "$(ranks_of "$layout")" \
      "$exe" $ce_args --json "$json" >>"$log" 2>&1 || rc=$?
  fi
  echo "launch $launch $layout: rc $rc, $((SECONDS - t0)) s, load before $load, cores busy before $busy" \
    >>"$out/environment.txt"
  printf '  %-14s launch %d: rc=%d in %3d s (load %s; busy before %s)\n' "$layout" "$launch" "$rc" \
    "$((SECONDS - t0))" "$load" "$busy"
}

for ((i = 1; i <= launches; i++)); do
  echo "=== launch $i of $launches"
  read -r -a order <<<"$layouts"
  n=${#order[@]}
  # Odd launches run the layouts in the given order, even ones in reverse: the cluster of the
  # last layout stays up for the next launch's first, and drift shows in both directions.
  for ((k = 0; k < n; k++)); do
    if ((i % 2)); then layout=${order[$k]}; else layout=${order[$((n - 1 - k))]}; fi
    run_one "$layout" "$i"
  done
done
cleanup
{
  echo "uptime at end: $(uptime)"
} >>"$out/environment.txt"

python3 - "$out" "$layouts" "$launches" <<'PY' | tee "$out/summary.md"
import json, os, re, statistics, sys

out, layouts, launches = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
env = open(os.path.join(out, "environment.txt")).read()
expect = {"node-2": (2, 1), "hosts-2x2": (4, 2), "hosts-3x1-bgq": (3, 3)}  # ranks, hosts

runs, failures = {}, []
for layout in layouts:
    for i in range(1, launches + 1):
        path = os.path.join(out, "json", f"{layout}-{i}.json")
        log = f"logs/{layout}-{i}.txt"
        try:
            j = json.load(open(path))
        except (OSError, ValueError) as e:
            failures.append(f"{layout} launch {i}: no JSON ({e.__class__.__name__}; see {log})")
            continue
        ranks, hosts = expect[layout]
        if j.get("ranks") != ranks or len(set(j.get("hosts", []))) != hosts:
            failures.append(f"{layout} launch {i}: layout {j.get('ranks')} ranks on "
                            f"{sorted(set(j.get('hosts', [])))}, expected {ranks} on {hosts} hosts")
            continue
        if not j.get("complete"):
            failures.append(f"{layout} launch {i}: incomplete (see {log})")
        for f in j.get("failures", []):
            failures.append(f"{layout} launch {i}: {f['op']} {f['algo']} {f['bytes']} B: {f['error']}")
        runs.setdefault(layout, []).append(j)

def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None

# summary[layout][(op, algo, bytes)] = medians over launches
summary = {}
for layout, js in runs.items():
    rows = {}
    for j in js:
        for r in j["results"]:
            rows.setdefault((r["op"], r["algo"], r["bytes"]), []).append(r)
    s = {}
    for key, rs in rows.items():
        d = {"launches": len(rs), "iters": [r["iters"] for r in rs]}
        for v in ("full_power", "strategy"):
            for f in ("call_us", "joules_per_call", "attributed_joules_per_call",
                      "dvfs_per_call_per_rank", "throttle_per_call_per_rank",
                      "transition_us_per_call", "throttled_share"):
                d[f"{v}.{f}"] = med([r[v][f] for r in rs])
        for f in ("time_cost_pct", "energy_saving_pct", "attributed_energy_saving_pct",
                  "paired_time_ratio", "paired_energy_ratio", "paired_attributed_energy_ratio"):
            d[f] = med([r[f] for r in rs])
        d["extra_us"] = d["strategy.call_us"] - d["full_power.call_us"]
        s[key] = d
    summary[layout] = s

def size(b):
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f and b % f == 0: return f"{b // f} {unit}"
    return f"{b} B"

def rng(v, fmt="{:+.1f}"):
    v = [x for x in v if x is not None]
    if not v: return "-"
    lo, hi = min(v), max(v)
    return fmt.format(lo) if abs(hi - lo) < 0.05 else fmt.format(lo) + " .. " + fmt.format(hi)

ranges = [("64 B-4 KiB", 0, 4096), ("16-64 KiB", 4097, 65536), ("256 KiB-1 MiB", 65537, 1 << 62)]
meta = next(iter(runs.values()))[0] if runs else {}
print("# gaea::coll per-call energy strategy vs full power\n")
print("Strategy ([A2A-Energy], `coll::options::energy = on`): every CPU of the rank at the lowest "
      "DVFS frequency for the call, the throttle T0/T5/T7 per step; full power: `energy = off`.")
print(f"\n**Energy saving as the model measures it, with simulated DVFS/throttle transitions** "
      f"(`GAEA_DVFS=simulated GAEA_THROTTLE=simulated`: this machine has neither cpufreq nor MSRs). "
      f"The model (`{meta.get('energy', {}).get('source', '?')}`, parameters "
      f"{meta.get('model', {}).get('source', '?')}: P_static {meta.get('model', {}).get('p_static_w')} W + "
      f"P_other {meta.get('model', {}).get('p_dyn_other_w')} W per rank by wall time, P_dyn "
      f"{meta.get('model', {}).get('p_dyn_w')} W per busy core at f_max, cubed with frequency, "
      f"linear in the duty) charges a strategy call's CPU time at f_min and its throttled time at "
      f"the duty; the CPU really ran at full speed. **A real CPU at f_min would also run the "
      f"call's copies and protocol work more slowly: this run cannot show that, so the time "
      f"cost below is a lower bound and the saving an upper bound.** What is measured is the "
      f"time the transitions take (each simulated DVFS transition busy-waits "
      f"{meta.get('model', {}).get('transition_ns')} ns, each throttle transition "
      f"{meta.get('model', {}).get('throttle_transition_ns')} ns) and the strategy's own work per "
      f"call. [A2A-Energy §3] reports about 1 % time for 10-15.7 % energy on real hardware.\n")
print("Per call: time = maximum over ranks, energy = `runtime::energy()` deltas summed over "
      "ranks (each batch closes with a barrier inside the energy window; nothing subtracted). "
      "Inside a launch the two variants alternate batch by batch; figures are medians over the "
      f"repetitions, then over {launches} launch(es). GAEA_PROGRESS=spin.\n")
print("```\n" + "\n".join(l for l in env.splitlines()
                          if l.startswith(("uptime", "cores busy", "launch", "date", "machine", "git")))
      + "\n```\n")

print("## Headline: time cost % and energy saving % (ranges over the sizes in each column)\n")
print("Saving cells: meter / attributed (the meter's figure with the throttle's removed cycles "
      "charged at f_min, where the strategy throttles; the model meter spreads them over all CPU "
      "time in proportion, which flatters the strategy wherever it throttles). Time cost "
      "includes the simulated transitions' busy-waits: each rank lowers and restores every CPU "
      f"it manages ({len(meta.get('throttle', {}).get('cpus', []))} here), so a call makes 2 DVFS "
      "transitions per CPU, plus 2 throttle transitions per CPU for each run of throttled "
      "steps.\n")
print("| layout | operation | algorithm | " + " | ".join(f"time % {n}" for n, _, _ in ranges) +
      " | " + " | ".join(f"saving % {n}" for n, _, _ in ranges) + " | transitions/call/rank (DVFS, throttle) |")
print("|---|---|---|" + "---|" * (2 * len(ranges)) + "---|")
for layout in layouts:
    s = summary.get(layout, {})
    combos = []
    for (op, algo, b) in s:
        if (op, algo) not in combos: combos.append((op, algo))
    for op, algo in combos:
        keys = [k for k in s if k[0] == op and k[1] == algo]
        t = [rng([s[k]["time_cost_pct"] for k in keys if lo <= k[2] <= hi]) for _, lo, hi in ranges]
        e = [rng([s[k]["energy_saving_pct"] for k in keys if lo <= k[2] <= hi]) + " / " +
             rng([s[k]["attributed_energy_saving_pct"] for k in keys if lo <= k[2] <= hi])
             for _, lo, hi in ranges]
        d = med([s[k]["strategy.dvfs_per_call_per_rank"] for k in keys])
        th = rng([s[k]["strategy.throttle_per_call_per_rank"] for k in keys], "{:.1f}")
        print(f"| {layout} | {op} | {algo} | " + " | ".join(t) + " | " + " | ".join(e) +
              f" | {d:.1f}, {th} |")

print("\n## Per layout\n")
print("Columns: full / strat = time per call (us, max over ranks); extra = strat - full (us); "
      "trans = time the strategy's transitions took per call on the slowest rank (us, as "
      "logged); E full / strat = energy per call summed over ranks (uJ, meter); save = meter "
      "saving %; attr = the saving with the throttle's removed cycles charged at f_min (see the "
      "headline); dvfs / thr = "
      "transitions per call per rank; thr% = share of the calls' CPU cycles removed by the "
      "throttle.\n")
for layout in layouts:
    s = summary.get(layout)
    if not s: continue
    j0 = runs[layout][0]
    print(f"### {layout}: {j0['ranks']} ranks on {j0['nodes']} node(s), "
          f"{'block' if j0.get('block_placement') else 'cyclic'} placement, "
          f"throttle on CPUs {j0['throttle']['cpus']} per rank\n")
    for op in ("alltoall", "broadcast"):
        keys = sorted((k for k in s if k[0] == op), key=lambda k: (k[1], k[2]))
        if not keys: continue
        print(f"**{op}**\n")
        print("| algorithm | size | full us | strat us | time % | extra us | trans us | E full uJ | E strat uJ | save % | attr % | dvfs | thr | thr% |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for k in keys:
            d = s[k]
            print(f"| {k[1]} | {size(k[2])} | {d['full_power.call_us']:.1f} | {d['strategy.call_us']:.1f} | "
                  f"{d['time_cost_pct']:+.1f} | {d['extra_us']:+.1f} | {d['strategy.transition_us_per_call']:.1f} | "
                  f"{d['full_power.joules_per_call'] * 1e6:.1f} | {d['strategy.joules_per_call'] * 1e6:.1f} | "
                  f"{d['energy_saving_pct']:+.1f} | {d['attributed_energy_saving_pct']:+.1f} | "
                  f"{d['strategy.dvfs_per_call_per_rank']:.2f} | {d['strategy.throttle_per_call_per_rank']:.2f} | "
                  f"{100 * d['strategy.throttled_share']:.1f} |")
        print()

print("## Flags\n")
flags = []
for layout in layouts:
    s = summary.get(layout, {})
    for (op, algo, b), d in sorted(s.items()):
        if d["time_cost_pct"] < -10:
            flags.append(f"{layout} {op} {algo} {size(b)}: the strategy is faster "
                         f"({d['full_power.call_us']:.0f} -> {d['strategy.call_us']:.0f} us). "
                         "Lower frequency cannot do that; the strategy's busy-waits change the "
                         "calls' timing (e.g. a receive posted before its message arrives)")
    for op in ("alltoall", "broadcast"):
        for algo in sorted({k[1] for k in s if k[0] == op}):
            if all((s[k]["strategy.throttle_per_call_per_rank"] or 0) == 0
                   for k in s if k[0] == op and k[1] == algo) and layout != "node-2":
                flags.append(f"{layout} {op} {algo}: never throttled across hosts (node levels "
                             "from rounds matched by index: every round holds an intra-node "
                             "transfer on some member)")
for layout, js in runs.items():
    if len(js) < 2: continue
    by = {}
    for j in js:
        for r in j["results"]:
            by.setdefault((r["op"], r["algo"], r["bytes"]), []).append(r["energy_saving_pct"])
    # Energy ratios (strategy / full power) of the launches more than 20 % apart.
    wide = [(k, v) for k, v in by.items()
            if min(1 - x / 100 for x in v) > 0 and
            max(1 - x / 100 for x in v) / min(1 - x / 100 for x in v) > 1.2]
    if wide:
        flags.append(f"{layout}: {len(wide)} of {len(by)} rows have launches whose energy "
                     "ratios (strategy / full power) differ by more than 20 %: " +
                     ", ".join(f"{k[0]} {k[1]} {size(k[2])} ({min(v):+.0f}..{max(v):+.0f})"
                               for k, v in sorted(wide)[:8]) + (" ..." if len(wide) > 8 else ""))
print("\n".join(f"- {f}" for f in flags) if flags else "none")

print("\n## Failures\n")
print("\n".join(f"- {f}" for f in failures) if failures else "none")

json.dump({"environment": env,
           "cluster_status": open(os.path.join(out, "cluster-status.txt")).read(),
           "summary": {l: [dict(op=k[0], algo=k[1], bytes=k[2], **v) for k, v in s.items()]
                       for l, s in summary.items()},
           "failures": failures,
           "runs": {l: [f"json/{l}-{i}.json" for i in range(1, launches + 1)] for l in runs}},
          open(os.path.join(out, "results.json"), "w"), indent=1)
PY

mv "$out" "$final_out"
echo "results: $final_out"
