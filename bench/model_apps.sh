#!/usr/bin/env bash
# The app models (framework/model, "Apps") against measurements: gaea-lu, gaea-lbm and gaea-scf
# at sizes that take seconds, predicted by gaea-model lu|lbm|scf from one-rank profiles (the apps'
# --json lines) and a machine description calibrated in the same layout (gaea-model calibrate
# --collectives: the syncs and barriers by the collectives' estimator).
# Layouts (name: ranks, where):
#   node-1       1 rank on this machine
#   node-2       2 ranks on this machine (shared memory)
#   hosts-none   2 emulated hosts x 1 rank, unshaped veth (tcp)
#   hosts-1gbit  the same with every host's link at 1 Gbit/s (the slow preset)
# Timings start only when the 1-minute load is below --max-load (waits up to --wait seconds,
# then gives up: a loaded machine measures other people's jobs).
# Results: bench/out/<date>-model-apps/ (built under .partial, renamed when complete):
# profile-*.txt, machine-*.json, meas-<app>-<layout>.txt, pred-<app>-<layout>.json, README.md
# (load, commands) and summary.md (predicted vs measured, error per model).
#   usage: bench/model_apps.sh [--build DIR] [--tool GAEA_MODEL] [--layouts "node-1 ..."]
#                              [--max-load L] [--wait S] [--quick --out DIR]
# --quick: sizes of a fraction of a second, to check the script itself (not a measurement);
# --out: the results directory instead of bench/out/<date>-model-apps.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/nodes_common.sh"
export GAEA_CLUSTER_NAME=gaeaa  # its own cluster
build=$root/build
tool=""
quick=0
out=""
layouts="node-1 node-2 hosts-none hosts-1gbit"
max_load=1.5
wait_s=900
while (($#)); do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --tool) tool=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --out) out=$2; shift 2 ;;
    --layouts) layouts=$2; shift 2 ;;
    --max-load) max_load=$2; shift 2 ;;
    --wait) wait_s=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--tool GAEA_MODEL] [--layouts \"node-1 node-2 hosts-none" \
            "hosts-1gbit\"] [--max-load L] [--wait S] [--quick --out DIR]" >&2
       exit 2 ;;
  esac
done
tool=${tool:-$build/apps/model/gaea-model}
lu=$build/apps/lu/gaea-lu
lbm=$build/apps/lbm/gaea-lbm
scf=$build/apps/scf/gaea-scf
for x in "$tool" "$lu" "$lbm" "$scf"; do
  [[ -x $x ]] || { echo "build first: $x missing" >&2; exit 1; }
done
"$tool" lu --help > /dev/null 2>&1 ||
  { echo "$tool has no 'lu' subcommand (apps/model/app_commands not wired in)" >&2; exit 1; }
out=${out:-$here/out/$(date +%Y%m%d-%H%M%S)-model-apps}
[[ -e $out ]] && { echo "$out exists" >&2; exit 1; }
mkdir -p "$out.partial"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_WARN_UNUSED_ENV_VARS=n
trap nodes_down EXIT

# The cases, one thread per rank, sized so that a rank's arrays fit the emulated hosts'
# locked-memory limit (ulimit -l, 8 MiB here; tcp registers them): LU n = 1152 (0.1 s on one
# rank, the largest that fits), LBM 256^2 for 3000 steps and SCF (H2O)4 cc-pVDZ (seconds).
"$root/apps/scf/molecules/make_cluster.sh" 4 > "$out.partial/water4.xyz"
lu_args=(--n 1152 --block 128 --threads 1 --json -)
lbm_args=(--case cavity --nx 256 --ny 256 --steps 3000 --tol 0 --no-check --threads 1 --json -)
# --integrals direct: the model is of the direct Fock build over the task counter.
scf_args=("$out.partial/water4.xyz" --basis cc-pVDZ --integrals direct -q --threads 1
          --energy-tol 1e-6 --density-tol 1e-4 --json -)
if ((quick)); then
  lu_args=(--n 512 --block 64 --threads 1 --json -)
  lbm_args=(--case cavity --nx 128 --ny 128 --steps 20 --tol 0 --no-check --threads 1 --json -)
  scf_args=("$root/apps/scf/molecules/water.xyz" --basis 6-31G --integrals direct -q --threads 1
            --json -)
fi

wait_load() {
  local t=0
  while awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$max_load" 'BEGIN{exit !(l >= m)}'; do
    ((t >= wait_s)) && { echo "load $(load_now) stayed above $max_load for ${wait_s} s" >&2; exit 1; }
    sleep 15
    t=$((t + 15))
  done
}

note() { echo "$*" | tee -a "$out.partial/README.md"; }

# launch LAYOUT COMMAND...: the command on the layout's ranks.
launch() {
  local layout=$1
  shift
  case $layout in
    node-1) timeout 600 mpirun -np 1 "$@" ;;
    node-2) timeout 600 mpirun -np 2 --oversubscribe "$@" ;;
    hosts-*) timeout 600 "$nodes_cluster" mpirun -np 2 --map-by ppr:1:node "$@" ;;
  esac
}
ranks_of() { [[ $1 == node-1 ]] && echo 1 || echo 2; }

cluster_up() {  # the 2-host cluster for hosts-none / hosts-1gbit
  local shape=()
  [[ $1 == hosts-1gbit ]] && shape=(--rate 1gbit)
  "$nodes_cluster" down > /dev/null 2>&1 || true
  "$nodes_cluster" up 2 --ppn 1 "${shape[@]}" > /dev/null
  "$nodes_cluster" status >> "$out.partial/README.md"
}

{
  echo "# App models: predicted vs measured"
  echo
  echo "$(date -u) on $(hostname), $(nproc) cores; layouts: $layouts"
  echo "gaea-lu ${lu_args[*]}"
  echo "gaea-lbm ${lbm_args[*]}"
  echo "gaea-scf (H2O)4 (make_cluster.sh 4) ${scf_args[*]:1}"
  echo
} > "$out.partial/README.md"

# One-rank profiles (this machine, alone).
wait_load
note "profiles (load $(load_now))"
"$lu" "${lu_args[@]}" > "$out.partial/profile-lu.txt" 2>&1
"$lbm" "${lbm_args[@]}" > "$out.partial/profile-lbm.txt" 2>&1
"$scf" "${scf_args[@]}" > "$out.partial/profile-scf.txt" 2>&1

for layout in $layouts; do
  machine=$out.partial/machine-$layout.json
  wait_load  # the calibration is a measurement too
  case $layout in
    node-*) [[ -e $out.partial/machine-node.json ]] ||
              timeout 600 mpirun -np 2 --oversubscribe "$tool" calibrate --collectives \
                --output "$out.partial/machine-node.json" > "$out.partial/calibrate-node.txt" 2>&1
            machine=$out.partial/machine-node.json ;;
    hosts-*) cluster_up "$layout"
             launch "$layout" "$tool" calibrate --collectives --output "$machine" \
               > "$out.partial/calibrate-$layout.txt" 2>&1 ;;
    *) echo "unknown layout $layout" >&2; exit 2 ;;
  esac
  np=$(ranks_of "$layout")
  for app in lu lbm scf; do
    wait_load
    note "== $app $layout: $np rank(s), load $(load_now)"
    case $app in
      lu) launch "$layout" "$lu" "${lu_args[@]}" ;;
      lbm) launch "$layout" "$lbm" "${lbm_args[@]}" ;;
      scf) launch "$layout" "$scf" "${scf_args[@]}" ;;
    esac > "$out.partial/meas-$app-$layout.txt" 2>&1
    extra=()
    [[ $app == scf ]] && extra=(--progress-thread on)
    "$tool" "$app" --machine "$machine" --profile "$out.partial/profile-$app.txt" --ranks "$np" \
      "${extra[@]}" --json "$out.partial/pred-$app-$layout.json" \
      > "$out.partial/pred-$app-$layout.txt"
  done
  [[ $layout == hosts-* ]] && nodes_down
done
note "load after: $(load_now)"
python3 "$here/model_apps_summary.py" "$out.partial" "$layouts" > "$out.partial/summary.md"
mv "$out.partial" "$out"
cat "$out/summary.md"
echo "results: $out"
