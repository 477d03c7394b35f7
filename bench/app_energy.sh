#!/usr/bin/env bash
# Application-level energy of the wait modes (issue 19 part 2): gaea-scf, gaea-lu and gaea-lbm
# under every GAEA_PROGRESS mode, on one node and across emulated hosts, with wall time (the app's
# own timing and the report's wall_s), CPU-seconds, energy (modelled or measured, with its source)
# from GAEA_REPORT; then a colocation scenario: a Gaea app on 2 ranks sharing the 2 cores with an
# unrelated CPU-bound job (bench/cpu_hog), the hog's throughput against the hog alone.
#
# Layouts (name: ranks, where):
#   node-2      2 ranks on this machine (UCX picks shared memory)
#   node-4      4 ranks on this machine's 2 cores (oversubscribed: where waiting matters most)
#   hosts       2 emulated hosts x 1 rank (scripts/cluster.sh; tcp over veth; needs root)
#   hosts-2x2   2 emulated hosts x 2 ranks (optional)
# Cases (one thread per rank; the hosts register a rank's arrays within ulimit -l, 8 MiB here,
# which caps LU there at n = 1152):
#   scf  (H2O)4 cc-pVDZ: the task pool's load imbalance at the end of every Fock build
#   lu   n = 6144, block 256 (hosts: n = 1152, block 64): ranks wait for every panel broadcast
#   lbm  cavity 256^2, 6000 steps: a ghost exchange every step
# Method: repetitions are interleaved (rep 1 runs every layout, app and mode, then rep 2, ...), and
# the order of the modes rotates by one per repetition; figures are medians over repetitions.
# Every launch has GAEA_REPORT=<json> and GAEA_DVFS=simulated (DVFS transitions counted by the
# energy model on machines without cpufreq; an explicit GAEA_DVFS wins).
# Quiet machine: before the first launch the 1-minute load must be below --max-load, and before
# every launch the cores must be less than --max-busy % busy over 0.5 s (what other jobs use; the
# load average would also count this script's own previous launches); waits up to --wait s.
# Output (built under DIR.partial, renamed to DIR when complete): runs.jsonl (one line per launch),
# coloc.jsonl (colocation launches and hog-alone runs), summary.md, summary.json,
# environment.txt, reports/ (GAEA_REPORT files), logs/ (every launch's output).
#   usage: bench/app_energy.sh [--build DIR] [--reps N] [--layouts "node-2 node-4 hosts"]
#            [--apps "scf lu lbm"] [--modes "spin adaptive interrupt auto off"]
#            [--coloc-app lu|scf|lbm|none] [--coloc-variants "pinned unpinned"] [--max-load L] [--max-busy P] [--wait S]
#            [--quick] [--out DIR]
# --quick: tiny sizes, 1 repetition, layout node-2, a short colocation with the pinned hog only
# (checks the script, not a measurement). Exit status: 0 done, 1 a launch failed (recorded; the summary is still written),
# 2 bad command line or missing programs, 77 a hosts layout without root.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/nodes_common.sh"
export GAEA_CLUSTER_NAME=gaeae  # its own cluster

build=$root/build
reps=3
layouts="node-2 node-4 hosts"
apps="scf lu lbm"
modes="spin adaptive interrupt auto off"
coloc_app=lu
coloc_variants="pinned unpinned"
max_load=1.5
max_busy=30
wait_s=900
quick=0
out=""
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --layouts) layouts=$2; shift 2 ;;
    --apps) apps=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --coloc-app) coloc_app=$2; shift 2 ;;
    --coloc-variants) coloc_variants=$2; shift 2 ;;
    --max-load) max_load=$2; shift 2 ;;
    --max-busy) max_busy=$2; shift 2 ;;
    --wait) wait_s=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "app_energy.sh: unknown option '$1'" >&2; usage ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "app_energy.sh: --reps '$reps': a positive integer" >&2; exit 2; }
for l in $layouts; do
  [[ $l =~ ^(node-2|node-4|hosts|hosts-2x2)$ ]] ||
    { echo "app_energy.sh: layout '$l': node-2, node-4, hosts or hosts-2x2" >&2; exit 2; }
done
for a in $apps; do
  [[ $a =~ ^(scf|lu|lbm)$ ]] || { echo "app_energy.sh: app '$a': scf, lu or lbm" >&2; exit 2; }
done
for m in $modes; do
  [[ $m =~ ^(spin|adaptive|interrupt|auto|off)$ ]] ||
    { echo "app_energy.sh: mode '$m': spin, adaptive, interrupt, auto or off" >&2; exit 2; }
done
[[ $coloc_app =~ ^(scf|lu|lbm|none)$ ]] ||
  { echo "app_energy.sh: --coloc-app '$coloc_app': scf, lu, lbm or none" >&2; exit 2; }
for v in $coloc_variants; do
  [[ $v =~ ^(pinned|unpinned)$ ]] ||
    { echo "app_energy.sh: --coloc-variants: '$v' is neither pinned nor unpinned" >&2; exit 2; }
done
if ((quick)); then
  reps=1
  layouts=node-2
  coloc_variants=pinned
fi
declare -A prog=([scf]=$build/apps/scf/gaea-scf [lu]=$build/apps/lu/gaea-lu
                 [lbm]=$build/apps/lbm/gaea-lbm)
hog=$build/bench/cpu_hog
for x in "${prog[@]}" "$hog"; do
  [[ -x $x ]] || { echo "app_energy.sh: build first: $x missing" >&2; exit 2; }
done
if [[ $layouts == *hosts* ]]; then
  "$nodes_cluster" check || exit $?
fi

out=${out:-$here/out/$(date +%Y%m%d-%H%M%S)-app-energy}
[[ -e $out ]] && { echo "app_energy.sh: $out exists" >&2; exit 2; }
part=$out.partial
rm -rf "$part"
mkdir -p "$part/reports" "$part/logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_WARN_UNUSED_ENV_VARS=n
export OMPI_MCA_rmaps_base_oversubscribe=1
export GAEA_DVFS=${GAEA_DVFS:-simulated}
hog_pid=""
cleanup() {  # no failing test here: under set -e it would become the script's exit status
  if [[ -n $hog_pid ]]; then kill -TERM "$hog_pid" 2>/dev/null || true; fi
  if [[ $layouts == *hosts* ]]; then nodes_down; fi
}
trap cleanup EXIT

# The cases. node_* for node-2/node-4, host_* across hosts (locked-memory limit).
water4=$part/water4.xyz
"$root/apps/scf/molecules/make_cluster.sh" 4 > "$water4"
# --integrals direct: the study is of the task pool's imbalance in every (direct) Fock build.
scf_args=("$water4" --basis cc-pVDZ --integrals direct -q --threads 1 --json -)
node_lu_args=(--n 6144 --block 256 --threads 1 --json -)
host_lu_args=(--n 1152 --block 64 --threads 1 --json -)
lbm_args=(--case cavity --nx 256 --ny 256 --steps 6000 --tol 0 --no-check --threads 1 --json -)
hog_alone_s=4
if ((quick)); then
  scf_args=("$root/apps/scf/molecules/water.xyz" --basis 6-31G --integrals direct -q --threads 1
            --json -)
  node_lu_args=(--n 512 --block 64 --threads 1 --json -)
  host_lu_args=("${node_lu_args[@]}")
  lbm_args=(--case cavity --nx 128 --ny 128 --steps 200 --tol 0 --no-check --threads 1 --json -)
  hog_alone_s=1
fi
args_of() {  # APP LAYOUT -> the app's arguments, one per line
  case $1 in
    scf) printf '%s\n' "${scf_args[@]}" ;;
    lu) if [[ $2 == hosts* ]]; then printf '%s\n' "${host_lu_args[@]}"
        else printf '%s\n' "${node_lu_args[@]}"; fi ;;
    lbm) printf '%s\n' "${lbm_args[@]}" ;;
  esac
}
ranks_of() { case $1 in node-2|hosts) echo 2 ;; node-4|hosts-2x2) echo 4 ;; esac; }

# launch LAYOUT COMMAND...: the command on the layout's ranks.
launch() {
  local layout=$1
  shift
  case $layout in
    node-2) timeout 900 mpirun -np 2 "$@" ;;
    node-4) timeout 900 mpirun -np 4 --oversubscribe "$@" ;;
    hosts) timeout 900 "$nodes_cluster" mpirun -np 2 --map-by ppr:1:node "$@" ;;
    hosts-2x2) timeout 900 "$nodes_cluster" mpirun -np 4 --map-by ppr:2:node "$@" ;;
  esac
}

# wait_quiet: until fewer than --max-busy % of the cores are busy (other jobs); the last reading
# ("12% cc1plus x1") stays in $busy for the launch's record.
busy=""
wait_quiet() {
  local t=0
  while busy=$(busy_now); ((${busy%%%*} >= max_busy)); do
    ((t >= wait_s)) && { echo "app_energy.sh: cores stayed $busy busy (max $max_busy %) for $wait_s s" >&2; exit 1; }
    sleep 5
    t=$((t + 5))
  done
}
now() { date +%s.%N; }

{
  echo "script: bench/app_energy.sh $*"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (modified)')"
  echo "host: $(hostname), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "reps: $reps; layouts: $layouts; apps: $apps; modes: $modes; colocation: $coloc_app"
  echo "GAEA_DVFS: $GAEA_DVFS; quick: $quick"
  echo "scf: ${scf_args[*]}"
  echo "lu (node): ${node_lu_args[*]}"
  echo "lu (hosts): ${host_lu_args[*]}"
  echo "lbm: ${lbm_args[*]}"
  echo "loadavg at start: $(cat /proc/loadavg)"
} > "$part/environment.txt"

t=0
while awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$max_load" 'BEGIN{exit !(l >= m)}'; do
  ((t >= wait_s)) && { echo "app_energy.sh: load $(load_now) stayed above $max_load for $wait_s s" >&2; exit 1; }
  sleep 15
  t=$((t + 15))
done
if [[ $layouts == *hosts* ]]; then
  nodes_up none
  nodes_status > "$part/cluster-status.txt"
fi

failed=0
read -r -a mode_list <<< "$modes"
nmodes=${#mode_list[@]}
# rotated REP: the modes in the order of repetition REP (0-based), rotated by REP.
rotated() {
  local i
  for ((i = 0; i < nmodes; i++)); do echo "${mode_list[$(((i + $1) % nmodes))]}"; done
}

# run_app APP LAYOUT MODE REP KIND: one launch; its JSON line (app_energy_summary.py) on stdout.
run_app() {
  local app=$1 layout=$2 mode=$3 rep=$4 kind=$5 name args rc t0 t1 lb la bb
  name=$kind-$app-$layout-$mode-r$rep
  mapfile -t args < <(args_of "$app" "$layout")
  rm -f "$part/reports/$name.json"
  lb=$(load_now)
  bb=$busy
  t0=$(now)
  rc=0
  GAEA_PROGRESS=$mode GAEA_REPORT=$part/reports/$name.json \
    launch "$layout" "${prog[$app]}" "${args[@]}" > "$part/logs/$name.txt" 2>&1 || rc=$?
  t1=$(now)
  la=$(load_now)
  ((rc == 0)) || { failed=1; echo "  FAILED (exit $rc): $name, see logs/$name.txt" >&2; }
  python3 "$here/app_energy_summary.py" record --kind "$kind" --app "$app" --layout "$layout" --mode "$mode" \
    --rep "$rep" --ranks "$(ranks_of "$layout")" --exit "$rc" --launch-s "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" \
    --load-before "$lb" --load-after "$la" --busy-before "$bb" --log "$part/logs/$name.txt" \
    --report "$part/reports/$name.json" --args "${args[*]}"
}

echo "app_energy: $reps rep(s), layouts: $layouts, apps: $apps, modes: $modes -> $out"
for ((rep = 0; rep < reps; rep++)); do
  for layout in $layouts; do
    for app in $apps; do
      for mode in $(rotated "$rep"); do
        wait_quiet
        echo "rep $((rep + 1))/$reps $layout $app $mode (load $(load_now))"
        run_app "$app" "$layout" "$mode" "$rep" run >> "$part/runs.jsonl"
      done
    done
  done
done

# Colocation: the app on node-2 with cpu_hog (2 threads, pinned to the 2 cores or left to the
# scheduler) for its whole launch, and the hog alone for hog_alone_s, interleaved the same way.
if [[ $coloc_app != none ]]; then
  for ((rep = 0; rep < reps; rep++)); do
    for variant in $coloc_variants; do
      pin=()
      [[ $variant == pinned ]] && pin=(--pin)
      wait_quiet
      echo "rep $((rep + 1))/$reps colocation: hog alone, $variant"
      "$hog" --threads 2 --seconds "$hog_alone_s" "${pin[@]}" > "$part/logs/hog-alone-$variant-r$rep.json"
      python3 "$here/app_energy_summary.py" hog --variant "$variant" --rep "$rep" \
        --load "$(load_now)" --json "$part/logs/hog-alone-$variant-r$rep.json" >> "$part/coloc.jsonl"
      for mode in $(rotated "$rep"); do
        wait_quiet
        echo "rep $((rep + 1))/$reps colocation: $coloc_app node-2 $mode with the hog, $variant"
        hog_out=$part/logs/hog-$variant-$mode-r$rep.json
        "$hog" --threads 2 "${pin[@]}" > "$hog_out" &
        hog_pid=$!
        run_app "$coloc_app" node-2 "$mode" "$rep" "coloc-$variant" > "$part/coloc-run.tmp"
        kill -TERM "$hog_pid"
        wait "$hog_pid" || true
        hog_pid=""
        python3 "$here/app_energy_summary.py" attach-hog --variant "$variant" \
          --hog "$hog_out" < "$part/coloc-run.tmp" >> "$part/coloc.jsonl"
      done
    done
  done
  rm -f "$part/coloc-run.tmp"
fi

echo "loadavg at end: $(cat /proc/loadavg)" >> "$part/environment.txt"
python3 "$here/app_energy_summary.py" summary "$part"
mv "$part" "$out"
cat "$out/summary.md"
echo "results: $out"
exit "$failed"
