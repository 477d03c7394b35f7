#!/usr/bin/env bash
# A workload that lives on all-to-all ([A2A-Energy] Fig. 4: NAS IS): the bucket sort of
# build/bench/gaea-a2a-sort-bench through gaea::coll, gaea::coll with the energy strategy and
# MPI_Alltoall(v), on 2 and 4 ranks of this machine, interleaved launches, medians.
#
#   bench/compare_a2a_workload.sh [build-dir=build] [launches=3]
#
# Every launch runs the three variants interleaved inside the program (bench/README.md); the
# launches are interleaved too: launch i runs every (ranks, keys) configuration, odd launches in
# the given order and even ones reversed. Figures are medians over launches of each launch's
# medians. Environment: A2A_RANKS (default "2 4"), A2A_KEYS (keys per rank, default
# "16K 256K 2M"), A2A_TLS (default sm), A2A_ARGS (extra program options, default "--reps 7"),
# A2A_TIMEOUT (s per launch, default 300). Batches: --iters from the keys per rank (64 sorts of
# 16K keys down to 4 of 2M), so that a batch lasts some tens of milliseconds.
# Every launch: GAEA_DVFS=simulated GAEA_THROTTLE=simulated GAEA_PROGRESS=spin, as
# compare_coll_energy.sh: this machine has neither cpufreq nor MSRs, so the strategy's saving is
# the energy *model*'s (its calls' CPU time charged at f_min), and its time cost includes the
# transitions' busy-waited cost but not the slower copies a real CPU at f_min would show.
# 4 ranks on a 2-core machine are oversubscribed (with a spinning progress thread each).
#
# Output: bench/out/<date>-a2a-workload/ (A2A_OUT overrides), written under <dir>.partial and
# renamed when complete: summary.md (the tables), results.json (the medians), json/ and logs/
# (every launch), environment.txt (uptime at start and end, load before every launch).
set -euo pipefail

build=${1:-build}
launches=${2:-3}
[[ $launches =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [build-dir] [launches]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exe=$build/bench/gaea-a2a-sort-bench
[[ -x $exe ]] || { echo "no $exe (cmake --build $build --target gaea-a2a-sort-bench)" >&2; exit 1; }
exe=$(readlink -f "$exe")
ranks_list=${A2A_RANKS:-"2 4"}
keys_list=${A2A_KEYS:-"16K 256K 2M"}
tls_list=${A2A_TLS:-sm}
extra=${A2A_ARGS:-"--reps 7"}
limit=${A2A_TIMEOUT:-300}
final_out=${A2A_OUT:-$here/out/$(date +%Y%m%d-%H%M%S)-a2a-workload}
[[ ! -e $final_out ]] || { echo "compare_a2a_workload.sh: $final_out exists; not overwriting it" >&2; exit 1; }
out=$final_out.partial
rm -rf "$out"
mkdir -p "$out/logs" "$out/json"
export GAEA_DVFS=simulated GAEA_THROTTLE=simulated GAEA_PROGRESS=spin
[[ $(id -u) == 0 ]] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# Sorts per batch for a keys-per-rank count (K/M suffixes: powers of 1024).
iters_for() {
  local k=$1 n
  case $k in *K) n=$((${k%K} * 1024)) ;; *M) n=$((${k%M} * 1048576)) ;; *) n=$k ;; esac
  if ((n <= 32768)); then echo 64; elif ((n <= 524288)); then echo 16; else echo 4; fi
}

configs=()
for tls in $tls_list; do
  for np in $ranks_list; do
    for k in $keys_list; do configs+=("$tls:$np:$k"); done
  done
done

{
  echo "command: $0 $*"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "machine: $(uname -srm), $(nproc) cores"
  echo "uptime at start: $(uptime)"
  echo "git: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "configurations (tls:ranks:keys per rank): ${configs[*]}; launches: $launches"
  echo "program args: $extra (+ --keys, --iters per configuration); timeout per launch: ${limit}s"
  echo "environment: GAEA_DVFS=$GAEA_DVFS GAEA_THROTTLE=$GAEA_THROTTLE GAEA_PROGRESS=$GAEA_PROGRESS"
} >"$out/environment.txt"
cat "$out/environment.txt"

run_one() {  # CONFIG LAUNCH
  local tls np k rc=0 load t0
  IFS=: read -r tls np k <<<"$1"
  local name=$tls-np$np-$k-$2
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  t0=$SECONDS
  echo "load before: $load" >"$out/logs/$name.txt"
  # shellcheck disable=SC2086
  UCX_TLS=$tls timeout -k 10 "$limit" mpirun --oversubscribe -np "$np" "$exe" --keys "$k" \
    --iters "$(iters_for "$k")" $extra --json "$out/json/$name.json" >>"$out/logs/$name.txt" 2>&1 ||
    rc=$?
  echo "launch $2 $tls np=$np keys=$k: rc $rc, $((SECONDS - t0)) s, load before $load" >>"$out/environment.txt"
  printf '  %-4s np=%s keys=%-5s launch %d: rc=%d in %3d s (load %s)\n' "$tls" "$np" "$k" "$2" "$rc" \
    "$((SECONDS - t0))" "$load"
}

for ((i = 1; i <= launches; i++)); do
  echo "=== launch $i of $launches"
  n=${#configs[@]}
  for ((c = 0; c < n; c++)); do
    if ((i % 2)); then run_one "${configs[$c]}" "$i"; else run_one "${configs[$((n - 1 - c))]}" "$i"; fi
  done
done
echo "uptime at end: $(uptime)" >>"$out/environment.txt"

python3 - "$out" "$launches" "${configs[@]}" <<'PY' | tee "$out/summary.md"
import json, os, re, statistics, sys

out, launches, configs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
env = open(os.path.join(out, "environment.txt")).read()
variants = ["gaea", "gaea+energy", "mpi"]

def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None

rows, failures = [], []
for c in configs:
    tls, np, keys = c.split(":")
    runs, loads = [], []
    for i in range(1, launches + 1):
        name = f"{tls}-np{np}-{keys}-{i}"
        try:
            j = json.load(open(os.path.join(out, "json", name + ".json")))
        except (OSError, ValueError) as e:
            failures.append(f"{name}: no JSON ({e.__class__.__name__}; see logs/{name}.txt)")
            continue
        if not j.get("complete"):
            failures.append(f"{name}: incomplete (see logs/{name}.txt)")
        if not j.get("verified"):
            failures.append(f"{name}: verification failed: {j.get('failures')}")
        runs.append(j)
        loads.append(float(j["load_start"].split()[0]))
    if not runs:
        continue
    r = {"tls": tls, "ranks": int(np), "keys_per_rank": runs[0]["args"]["keys_per_rank"],
         "iters": runs[0]["args"]["iters"], "launches": len(runs),
         "mib_across_ranks_per_sort": med([j["keys_sent_to_other_ranks_mib_per_sort"] for j in runs]),
         "load_1min": [min(loads), max(loads)]}
    for v in variants:
        rs = [j["variants"][v] for j in runs if v in j["variants"]]
        if not rs:
            continue
        r[v] = {f: med([x[f] for x in rs])
                for f in ("iter_ms", "comm_ms", "joules_per_iter", "time_vs_mpi", "energy_vs_mpi",
                          "dvfs_per_iter_per_rank")}
    for f in ("strategy_time_cost_pct", "strategy_energy_saving_pct"):
        v = [j[f] for j in runs if j.get(f) is not None]
        r[f] = med(v)
        r[f + "_range"] = [min(v), max(v)] if v else None
    rows.append(r)

up_start = re.search(r"uptime at start: (.*)", env).group(1)
up_end = re.search(r"uptime at end: (.*)", env).group(1)
print("# All-to-all workload: bucket sort (NAS IS pattern), gaea::coll vs strategy vs MPI\n")
print(f"Launches: {launches} per configuration, interleaved. uptime at start: `{up_start.strip()}`;"
      f" at end: `{up_end.strip()}`. DVFS and throttle simulated: energies are the model's.\n")
print("Per sort: time = max over ranks (median of the batches in a launch, then median over "
      "launches); comm = inside allreduce + alltoall + alltoallv; energy = model joules summed "
      "over ranks. time/mpi, energy/mpi = median over launches of each launch's ratio to the "
      "same sort on MPI_Allreduce/MPI_Alltoall/MPI_Alltoallv (so not always the ratio of the "
      "medians beside them). strategy = gaea+energy against gaea in the same launch (time cost, "
      "energy saving): median over launches, with the smallest and largest launch.\n")
print("| tls | ranks | keys/rank | MiB moved | variant | sort ms | comm ms | mJ | time/mpi | "
      "energy/mpi | dvfs/sort/rank | load 1-min |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
def f(x, p=3):
    return "–" if x is None else f"{x:.{p}f}"
for r in rows:
    for v in variants:
        if v not in r:
            continue
        d = r[v]
        print(f"| {r['tls']} | {r['ranks']} | {r['keys_per_rank']} | "
              f"{f(r['mib_across_ranks_per_sort'], 2)} | {v} | {f(d['iter_ms'])} | "
              f"{f(d['comm_ms'])} | {f(d['joules_per_iter'] * 1e3 if d['joules_per_iter'] is not None else None, 2)} | "
              f"{f(d['time_vs_mpi'])} | {f(d['energy_vs_mpi'])} | {f(d['dvfs_per_iter_per_rank'], 1)} | "
              f"{r['load_1min'][0]:.2f}–{r['load_1min'][1]:.2f} |")
def rng(r, k):
    x = r.get(k + "_range")
    return "" if not x else f" [{x[0]:.1f}, {x[1]:.1f}]"
print("\n| tls | ranks | keys/rank | strategy time cost % [min, max] | "
      "strategy energy saving % (model) [min, max] |")
print("|---|---|---|---|---|")
for r in rows:
    print(f"| {r['tls']} | {r['ranks']} | {r['keys_per_rank']} | "
          f"{f(r['strategy_time_cost_pct'], 1)}{rng(r, 'strategy_time_cost_pct')} | "
          f"{f(r['strategy_energy_saving_pct'], 1)}{rng(r, 'strategy_energy_saving_pct')} |")
print("\nVerification: " + ("every batch of every variant in every launch passed (globally "
      "sorted, key histogram equal to the serial reference's)." if not failures else "FAILURES:"))
for x in failures:
    print(f"- {x}")
json.dump({"configurations": rows, "failures": failures, "uptime_start": up_start,
           "uptime_end": up_end}, open(os.path.join(out, "results.json"), "w"), indent=2)
PY
mv "$out" "$final_out"
echo "results: $final_out"
