#!/usr/bin/env bash
# gaea-scf vs NWChem 7.0.2 (Debian) on water clusters of growing size, in the same run.
#   bench/scf_scaling.sh <build-dir> [sizes="4 8 12"] [ranks="1 2 4"] [reps=1] [basis=6-31G]
# Environment:
#   SCF_BREAKDOWN_SIZE  cluster size of the counter/progress-mode breakdown (default: the
#                       smallest size; "none" skips it); its rank count is the largest of <ranks>
#   SCF_OUT             directory for inputs, logs and results (default: a new temporary dir)
# Part 1: for every size and rank count, gaea-scf (counter atomic, batched; GAEA_PROGRESS=auto)
# and NWChem (direct SCF, same geometry, basis, Angstrom-to-Bohr constant; convergence: gradient
# 1e-8, integral screening 1e-12) interleaved, medians over <reps> launches: total wall time of
# the launch, SCF time, iterations, time per iteration, and the energy difference.
# Part 2: gaea-scf's time breakdown per iteration (integrals, counter wait, get, accumulate,
# diagonalise; rank 0 computes like every rank) for each counter mode and dispense variant under
# GAEA_PROGRESS=auto, and each progress mode with the owner-served counter.
# On a machine with fewer cores than ranks, runs are oversubscribed: the tables say so.
set -euo pipefail
# The peers this comparison runs (GA, ScaLAPACK, NWChem): installed if missing.
if [[ "${GAEA_SKIP_DEPS:-0}" != 1 ]]; then
  "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/install-deps.sh" --bench
fi
build=${1:?usage: bench/scf_scaling.sh <build-dir> [sizes] [ranks] [reps] [basis]}
sizes=${2:-4 8 12}
ranks=${3:-1 2 4}
reps=${4:-1}
basis=${5:-6-31G}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scf="$build/apps/scf/gaea-scf"
[[ -x "$scf" ]] || { echo "scf_scaling.sh: $scf not built" >&2; exit 1; }
command -v nwchem >/dev/null || { echo "scf_scaling.sh: nwchem not installed" >&2; exit 1; }
out=${SCF_OUT:-$(mktemp -d /tmp/gaea-scf-bench.XXXXXX)}
mkdir -p "$out"
mpi=(mpirun --oversubscribe)
if [[ ${EUID:-$(id -u)} -eq 0 ]]; then mpi+=(--allow-run-as-root); fi
cores=$(nproc)
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

nwchem_deck() {  # <xyz> <name> <dir>
  local xyz=$1 name=$2 dir=$3
  {
    echo "start $name"
    echo "permanent_dir $dir"
    echo "scratch_dir $dir"
    echo "echo"
    echo "geometry units angstrom noautoz nocenter noautosym"
    tail -n +3 "$xyz" | awk 'NF >= 4 {printf "  %s %s %s %s\n", $1, $2, $3, $4}'
    echo "end"
    echo "basis cartesian"
    echo "  * library $basis"
    echo "end"
    echo "scf"
    echo "  singlet"
    echo "  rhf"
    echo "  direct"
    echo "  thresh 1e-8"
    echo "  tol2e 1e-12"
    echo "  maxiter 200"
    echo "end"
    echo "task scf energy"
  }
}

run_gaea() {  # <np> <xyz> <log> [env...] -- [args...]
  local np=$1 xyz=$2 log=$3
  shift 3
  local envs=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do envs+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift
  local t0 t1
  t0=$(now)
  env "${envs[@]}" "${mpi[@]}" -np "$np" "$scf" "$xyz" --basis "$basis" --cartesian \
    --bohr nwchem "$@" >"$log" 2>&1 || { echo "gaea-scf failed, see $log" >&2; return 1; }
  t1=$(now)
  echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}' >"$log.wall"
}

run_nwchem() {  # <np> <deck> <log> <dir>
  local np=$1 deck=$2 log=$3 dir=$4 t0 t1
  rm -f "$dir"/*.movecs "$dir"/*.db 2>/dev/null || true
  t0=$(now)
  (cd "$dir" && "${mpi[@]}" -np "$np" nwchem "$deck") >"$log" 2>&1 ||
    { echo "nwchem failed, see $log" >&2; return 1; }
  t1=$(now)
  echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}' >"$log.wall"
}

# Parsers: print one number each.
g_energy() { awk '/^  total energy/ {print $3}' "$1"; }
g_iters() { awk '/^SCF converged after/ {print $4}' "$1"; }
g_scf_time() { awk '/^ +[0-9]+ +-[0-9.]+ .*\|/ {s += $NF} END {printf "%.3f\n", s}' "$1"; }
g_breakdown() {  # integrals counter get acc diag per iteration
  awk '/integrals\+contraction/ {print $2, $5, $7, $9, $11}' "$1"
}
n_energy() { awk '/Total SCF energy/ {print $5}' "$1"; }
n_scf_time() { awk '/Time for solution/ {gsub("s", "", $5); print $5}' "$1"; }
n_iters() { awk '/iter +energy +gnorm/ {on = 1; next} on && /^ +[0-9]+ +-[0-9.]+/ {n = $1} on && /Final RHF/ {on = 0} END {print n}' "$1"; }

echo "gaea-scf vs NWChem 7.0.2, water clusters in $basis (cartesian), $cores cores; logs in $out"
echo "convergence: gaea-scf |dE| < 1e-10 Eh, rms(dP) < 1e-8, Schwarz 1e-12; NWChem thresh 1e-8," \
     "tol2e 1e-12 (quadratically convergent SCF: an NWChem iteration is several Fock builds)"
printf '\n%5s %5s %4s %4s | %10s %10s %5s %9s | %10s %10s %5s %9s | %10s\n' waters nbf np over \
  "gaea[s]" "gaea SCF" it "s/iter" "nwchem[s]" "nw SCF" it "s/iter" "dE [Eh]"
for n in $sizes; do
  xyz="$out/water$n.xyz"
  "$repo/apps/scf/molecules/make_cluster.sh" "$n" >"$xyz"
  for np in $ranks; do
    dir="$out/nw-$n-$np"
    mkdir -p "$dir"
    nwchem_deck "$xyz" "w$n" "$dir" >"$dir/w$n.nw"
    gw=() gs=() gi=() nw=() ns=() ni=()
    for ((r = 1; r <= reps; r++)); do
      glog="$out/gaea-$n-$np-$r.log" nlog="$out/nwchem-$n-$np-$r.log"
      run_gaea "$np" "$xyz" "$glog" GAEA_PROGRESS=auto -- --counter atomic --dispense batched
      run_nwchem "$np" "w$n.nw" "$nlog" "$dir"
      gw+=("$(cat "$glog.wall")") gs+=("$(g_scf_time "$glog")") gi+=("$(g_iters "$glog")")
      nw+=("$(cat "$nlog.wall")") ns+=("$(n_scf_time "$nlog")") ni+=("$(n_iters "$nlog")")
    done
    nbf=$(awk '/^basis:/ {for (i = 1; i <= NF; i++) if ($i ~ /^functions/) print $(i-1)}' "$glog")
    ge=$(g_energy "$glog") ne=$(n_energy "$nlog")
    G=$(printf '%s\n' "${gw[@]}" | median) GS=$(printf '%s\n' "${gs[@]}" | median)
    GI=$(printf '%s\n' "${gi[@]}" | median) N=$(printf '%s\n' "${nw[@]}" | median)
    NS=$(printf '%s\n' "${ns[@]}" | median) NI=$(printf '%s\n' "${ni[@]}" | median)
    over=no
    ((np > cores)) && over=yes
    awk -v n="$n" -v nbf="$nbf" -v np="$np" -v o="$over" -v g="$G" -v gs="$GS" -v gi="$GI" \
        -v nw="$N" -v ns="$NS" -v ni="$NI" -v ge="$ge" -v ne="$ne" 'BEGIN {
      printf "%5d %5d %4d %4s | %10.2f %10.2f %5d %9.3f | %10.2f %10.2f %5d %9.3f | %10.2e\n",
        n, nbf, np, o, g, gs, gi, gs / gi, nw, ns, ni, ns / ni, ge - ne }'
  done
done

bsize=${SCF_BREAKDOWN_SIZE:-${sizes%% *}}
if [[ "$bsize" != none ]]; then
  np=$(echo "$ranks" | tr ' ' '\n' | sort -n | tail -1)
  xyz="$out/water$bsize.xyz"
  [[ -f "$xyz" ]] || "$repo/apps/scf/molecules/make_cluster.sh" "$bsize" >"$xyz"
  echo
  echo "time per iteration (s; Fock parts summed over threads, mean over ranks), (H2O)$bsize," \
       "$np ranks$( ((np > cores)) && echo ' (oversubscribed)'), medians over $reps launch(es)"
  printf '%-9s %-12s %-9s | %9s %9s %9s %9s %9s | %9s %5s\n' counter dispense progress \
    integrals counter get acc diag "SCF [s]" it
  configs=()
  for c in atomic progress owner; do for d in single batched hierarchical; do
    configs+=("$c $d auto"); done; done
  for p in spin adaptive interrupt off; do configs+=("owner single $p"); done
  for cfg in "${configs[@]}"; do
    read -r c d p <<<"$cfg"
    rows=()
    for ((r = 1; r <= reps; r++)); do
      log="$out/breakdown-$c-$d-$p-$r.log"
      run_gaea "$np" "$xyz" "$log" GAEA_PROGRESS="$p" -- --counter "$c" --dispense "$d"
      rows+=("$(g_breakdown "$log") $(g_scf_time "$log") $(g_iters "$log")")
    done
    med=()
    for k in 1 2 3 4 5 6 7; do
      med+=("$(printf '%s\n' "${rows[@]}" | awk -v k=$k '{print $k}' | median)")
    done
    printf '%-9s %-12s %-9s | %9.4f %9.4f %9.4f %9.4f %9.4f | %9.2f %5d\n' "$c" "$d" "$p" "${med[@]}"
  done
fi
