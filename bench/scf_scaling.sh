#!/usr/bin/env bash
# gaea-scf vs NWChem 7.0.2 and Psi4 1.3.2 (Debian) on water clusters of growing size (or given
# molecules), in the same run.
#   bench/scf_scaling.sh <build-dir> [sizes="4 8 12"] [ranks="1 2 4"] [reps=1] [basis=6-31G]
# A size is a water-cluster size n or an .xyz file, either with an optional ":<basis>" that
# overrides [basis] for it: "6:cc-pVDZ apps/scf/molecules/benzene.xyz:6-31G*".
# Environment:
#   SCF_FORM            cartesian (default) or spherical d/f shells, in all three codes
#   SCF_PSI4            1 (default): run Psi4 too (scf_type direct and pk, psi4 -n <ranks>)
#   SCF_PSI4_MEMORY     Psi4's memory (default "2 gb"; pk keeps the integrals in core)
#   SCF_BREAKDOWN_SIZE  cluster size of the counter/progress-mode breakdown (default: the
#                       smallest size; "none" skips it); its rank count is the largest of <ranks>
#   SCF_OUT             directory for inputs, logs and results (default: a new temporary dir)
#   SCF_GAEA_DIRECT     1 (default): also run gaea-scf with --integrals direct (the plain run
#                       is --integrals auto: in-core when the integrals fit in memory)
# Part 1: for every size and rank count, gaea-scf (counter atomic, batched; GAEA_PROGRESS=auto;
# --integrals auto, and --integrals direct as a second column)
# NWChem (direct SCF, same geometry, basis, Angstrom-to-Bohr constant; convergence: gradient
# 1e-8, integral screening 1e-12) and Psi4 (scf_type direct, then pk; e_convergence 1e-10,
# d_convergence 1e-8; threads = ranks) interleaved, medians over <reps> launches: total wall time
# of each launch, iterations, the time ratios gaea/peer and the energy differences (Psi4 gets
# the geometry in Bohr, converted with NWChem's constant like the others). The machine's load
# (uptime) is recorded before every launch set.
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
basis0=$basis
with_direct=${SCF_GAEA_DIRECT:-1}
form=${SCF_FORM:-cartesian}
[[ "$form" == cartesian || "$form" == spherical ]] ||
  { echo "scf_scaling.sh: SCF_FORM must be cartesian or spherical, not '$form'" >&2; exit 1; }
with_psi4=${SCF_PSI4:-1}
psi4_memory=${SCF_PSI4_MEMORY:-2 gb}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scf="$build/apps/scf/gaea-scf"
[[ -x "$scf" ]] || { echo "scf_scaling.sh: $scf not built" >&2; exit 1; }
command -v nwchem >/dev/null || { echo "scf_scaling.sh: nwchem not installed" >&2; exit 1; }
if [[ "$with_psi4" == 1 ]] && ! command -v psi4 >/dev/null; then
  echo "scf_scaling.sh: psi4 not installed (apt-get install psi4, or SCF_PSI4=0)" >&2; exit 1
fi
out=${SCF_OUT:-$(mktemp -d /tmp/gaea-scf-bench.XXXXXX)}
mkdir -p "$out"
mpi=(mpirun --oversubscribe)
if [[ ${EUID:-$(id -u)} -eq 0 ]]; then mpi+=(--allow-run-as-root); fi
# GNU nproc answers OMP_NUM_THREADS when it is set (the peers' runs set it to 1).
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
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
    echo "basis $form"
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
  env "${envs[@]}" "${mpi[@]}" -np "$np" "$scf" "$xyz" --basis "$basis" "--$form" \
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

psi4_deck() {  # <xyz> <scf_type>
  local xyz=$1 type=$2 pure=false
  [[ "$form" == spherical ]] && pure=true
  echo "memory $psi4_memory"
  echo "molecule {"
  echo "0 1"
  # In Bohr with NWChem's constant (gaea-scf --bohr nwchem): Psi4's own Angstrom conversion
  # (CODATA 2014) would move the nuclei and the energy by ~1e-7 Eh.
  tail -n +3 "$xyz" | awk -v f=1.8897259885789233 'NF >= 4 {
    printf "  %s %.12f %.12f %.12f\n", $1, $2 * f, $3 * f, $4 * f }'
  echo "symmetry c1"
  echo "no_reorient"
  echo "no_com"
  echo "units bohr"
  echo "}"
  echo "set basis $basis"
  echo "set puream $pure"
  echo "set scf_type $type"
  echo "set e_convergence 1e-10"
  echo "set d_convergence 1e-8"
  echo "energy('scf')"
}

run_psi4() {  # <np> <deck> <log> <dir>
  local np=$1 deck=$2 log=$3 dir=$4 t0 t1
  t0=$(now)
  (cd "$dir" && psi4 -n "$np" "$deck" -o "$log" -s "$dir") >"$log.stdout" 2>&1 ||
    { echo "psi4 failed, see $log" >&2; return 1; }
  t1=$(now)
  echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}' >"$log.wall"
}

# A size entry: sets mol_tag, basis and writes the molecule to $out/<tag>.xyz (mol_xyz).
resolve_entry() {  # <entry>
  local e=$1
  basis=$basis0
  if [[ "$e" == *:* ]]; then basis=${e#*:}; e=${e%%:*}; fi
  if [[ "$e" == *.xyz ]]; then
    [[ -f "$e" ]] || { echo "scf_scaling.sh: no molecule file $e" >&2; exit 1; }
    mol_tag=$(basename "$e" .xyz)
    mol_xyz="$out/$mol_tag.xyz"
    cp "$e" "$mol_xyz"
  elif [[ "$e" =~ ^[0-9]+$ ]]; then
    mol_tag="(H2O)$e"
    mol_xyz="$out/water$e.xyz"
    [[ -f "$mol_xyz" ]] || "$repo/apps/scf/molecules/make_cluster.sh" "$e" >"$mol_xyz"
  else
    echo "scf_scaling.sh: a size is a cluster size or an .xyz file, not '$e'" >&2; exit 1
  fi
}

# Parsers: print one number each.
g_energy() { awk '/^  total energy/ {print $3}' "$1"; }
g_iters() { awk '/^SCF converged after/ {print $4}' "$1"; }
# The iteration table's wall column is the last one before the second "|".
g_scf_time() {
  awk -F'|' '/^ +[0-9]+ +-[0-9.]+ .*\|/ {n = split($2, f, " "); s += f[n]} END {printf "%.3f\n", s}' "$1"
}
g_full() { awk '/Fock builds:/ {print $3}' "$1"; }
g_breakdown() {  # integrals counter get acc diag per iteration
  awk '/integrals\+contraction/ {print $2, $5, $7, $9, $11}' "$1"
}
n_energy() { awk '/Total SCF energy/ {print $5}' "$1"; }
n_scf_time() { awk '/Time for solution/ {gsub("s", "", $5); print $5}' "$1"; }
p_energy() { awk '/Total Energy =/ {e = $4} END {print e}' "$1"; }
p_iters() { grep -cE '@(RHF|RKS) iter +[0-9]+:' "$1"; }       # iterations on exact integrals
p_df_iters() { grep -cE '@DF-RHF iter +[0-9]+:' "$1" || true; }  # the DF guess's (direct)
n_iters() { awk '/iter +energy +gnorm/ {on = 1; next} on && /^ +[0-9]+ +-[0-9.]+/ {n = $1} on && /Final RHF/ {on = 0} END {print n}' "$1"; }

echo "gaea-scf vs NWChem 7.0.2 and Psi4 1.3.2: $sizes (default basis $basis0, $form), $cores cores;" \
     "logs in $out"
echo "convergence: gaea-scf |dE| < 1e-10 Eh, rms orbital gradient < 1e-8 (on a full Fock build); NWChem" \
     "thresh 1e-8, tol2e 1e-12 (quadratically convergent: an iteration is several Fock builds);" \
     "Psi4 e 1e-10, d 1e-8, Schwarz 1e-12 (direct: DF iterations first, then exact ones)"
echo "times: whole-launch wall seconds, medians over $reps launch(es); ratios < 1: gaea faster;" \
     "it: iterations (gaea: full Fock builds in brackets; psi4 direct: DF + exact); scf: SCF" \
     "seconds alone (gaea: its iterations' wall time; NWChem: its 'Time for solution', CPU" \
     "seconds of rank 0: the same as wall on a quiet machine, far below it under load); gaea:" \
     "--integrals auto (in-core when they fit: 'ic' after it, else 'dir'), gdir: --integrals direct"
echo "columns: gaea = --integrals auto; gdir = --integrals direct; psi4dir = scf_type direct;" \
     "psi4pk = scf_type pk (in-core integrals); g/x = gaea / x (wall)"
printf '\n%-14s %-8s %5s %3s %4s %5s | %8s %3s %7s %7s | %8s | %8s %7s %3s %6s %6s | %8s %7s %6s | %8s %3s %6s | %9s %9s %9s\n' \
  molecule basis nbf np over load "gaea[s]" int scf it "gdir[s]" "nwchem" scf it "g/nw" "scf" \
  "psi4dir" it "g/p4d" "psi4pk" it "g/p4pk" \
  "dE(nw)" "dE(p4d)" "dE(p4pk)"
goals=()
for entry in $sizes; do
  resolve_entry "$entry"
  xyz=$mol_xyz
  n=$(echo "$mol_tag-$basis" | tr -c 'A-Za-z0-9\n-' '_')
  for np in $ranks; do
    dir="$out/nw-$n-$np"
    mkdir -p "$dir"
    nwchem_deck "$xyz" "w$n" "$dir" >"$dir/w$n.nw"
    pdir="$out/psi4-$n-$np"
    mkdir -p "$pdir"
    psi4_deck "$xyz" direct >"$pdir/direct.dat"
    psi4_deck "$xyz" pk >"$pdir/pk.dat"
    gw=() gs=() gi=() gf=() nw=() ns=() ni=() dw=() di=() dd=() kw=() ki=() loads=() xw=()
    for ((r = 1; r <= reps; r++)); do
      loads+=("$(awk '{print $1}' /proc/loadavg)")
      uptime >>"$out/load.log"
      glog="$out/gaea-$n-$np-$r.log" nlog="$out/nwchem-$n-$np-$r.log"
      xlog="$out/gaea-direct-$n-$np-$r.log"
      dlog="$pdir/direct-$r.out" klog="$pdir/pk-$r.out"
      run_gaea "$np" "$xyz" "$glog" GAEA_PROGRESS=auto -- --counter atomic --dispense batched
      run_nwchem "$np" "w$n.nw" "$nlog" "$dir"
      if [[ "$with_direct" == 1 ]]; then
        run_gaea "$np" "$xyz" "$xlog" GAEA_PROGRESS=auto -- --counter atomic --dispense batched \
          --integrals direct
        xw+=("$(cat "$xlog.wall")")
      fi
      gw+=("$(cat "$glog.wall")") gs+=("$(g_scf_time "$glog")") gi+=("$(g_iters "$glog")") gf+=("$(g_full "$glog")")
      nw+=("$(cat "$nlog.wall")") ns+=("$(n_scf_time "$nlog")") ni+=("$(n_iters "$nlog")")
      if [[ "$with_psi4" == 1 ]]; then
        run_psi4 "$np" direct.dat "$dlog" "$pdir"
        run_psi4 "$np" pk.dat "$klog" "$pdir"
        dw+=("$(cat "$dlog.wall")") di+=("$(p_iters "$dlog")") dd+=("$(p_df_iters "$dlog")")
        kw+=("$(cat "$klog.wall")") ki+=("$(p_iters "$klog")")
      fi
    done
    nbf=$(awk '/^basis:/ {for (i = 1; i <= NF; i++) if ($i ~ /^functions/) print $(i-1)}' "$glog")
    ge=$(g_energy "$glog") ne=$(n_energy "$nlog")
    med() { printf '%s\n' "$@" | median; }
    G=$(med "${gw[@]}") GI=$(med "${gi[@]}") GF=$(med "${gf[@]}") N=$(med "${nw[@]}")
    NI=$(med "${ni[@]}") L=$(med "${loads[@]}") GS=$(med "${gs[@]}") NS=$(med "${ns[@]}")
    D=nan DI=0 DD=0 K=nan KI=0 de=nan ke=nan X=nan
    [[ "$with_direct" == 1 ]] && X=$(med "${xw[@]}")
    GM=dir
    grep -q '^integrals: in-core' "$glog" && GM=ic
    if [[ "$with_psi4" == 1 ]]; then
      D=$(med "${dw[@]}") DI=$(med "${di[@]}") DD=$(med "${dd[@]}") K=$(med "${kw[@]}")
      KI=$(med "${ki[@]}") de=$(p_energy "$dlog") ke=$(p_energy "$klog")
    fi
    over=no
    ((np > cores)) && over=yes
    row=$(awk -v n="$mol_tag" -v b="$basis" -v nbf="$nbf" -v np="$np" -v o="$over" -v l="$L" \
        -v g="$G" -v gi="$GI" -v gm="$GM" -v x="$X" \
        -v gf="$GF" -v nw="$N" -v ni="$NI" -v d="$D" -v di="$DI" -v dd="$DD" -v k="$K" \
        -v ki="$KI" -v ge="$ge" -v ne="$ne" -v de="$de" -v ke="$ke" -v gs="$GS" -v ns="$NS" 'BEGIN {
      printf "%-14s %-8s %5d %3d %4s %5.2f | %8.2f %3s %7.2f %3d(%d) | %8.2f | %8.2f %7.2f %3d" \
             " %6.2f %6.2f | %8.2f %2d+%-3d %6.2f | %8.2f %3d %6.2f | %9.1e %9.1e %9.1e\n",
        n, b, nbf, np, o, l, g, gm, gs, gi, gf, x, nw, ns, ni, g / nw, gs / ns, d, dd, di, g / d,
        k, ki, g / k, ge - ne, ge - de, ge - ke }')
    echo "$row"
    # What the issue's goal reads (gaea <= 0.5 x NWChem, < 1 x Psi4 direct, |dE(nw)| <= 1e-8):
    # one line per size and rank count, printed again at the end.
    goals+=("$(awk -v t="$mol_tag" -v b="$basis" -v nbf="$nbf" -v np="$np" -v g="$G" -v gs="$GS" \
      -v nw="$N" -v ns="$NS" -v d="$D" -v k="$K" -v ge="$ge" -v ne="$ne" 'BEGIN {
      printf "%s %s, %4d bf, %d ranks: gaea/NWChem %.2f wall, %.2f SCF (goal <= 0.5: %s);" \
             " gaea/Psi4 direct %.2f wall (goal < 1: %s); gaea/Psi4 PK %.2f wall (goal < 1: %s);" \
             " gaea - NWChem %.1e Eh (goal |.| <= 1e-8: %s)",
        t, b, nbf, np, g / nw, gs / ns, g / nw <= 0.5 ? "met" : "not met", g / d,
        g / d < 1 ? "met" : (d == "nan" ? "n/a" : "not met"), g / k,
        g / k < 1 ? "met" : (k == "nan" ? "n/a" : "not met"), ge - ne,
        (ge - ne <= 1e-8 && ne - ge <= 1e-8) ? "met" : "not met" }')")
  done
done
uptime >>"$out/load.log"
echo
echo "goals (whole-launch medians; load column above):"
printf '  %s\n' "${goals[@]}"

bsize=${SCF_BREAKDOWN_SIZE:-${sizes%% *}}
if [[ "$bsize" != none ]]; then
  np=$(echo "$ranks" | tr ' ' '\n' | sort -n | tail -1)
  resolve_entry "$bsize"
  xyz=$mol_xyz
  echo
  echo "time per iteration (s; Fock parts summed over threads, mean over ranks), $mol_tag $basis," \
       "$np ranks$( ((np > cores)) && echo ' (oversubscribed)'), medians over $reps launch(es)," \
       "--integrals direct (every build over the counter)"
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
      run_gaea "$np" "$xyz" "$log" GAEA_PROGRESS="$p" -- --counter "$c" --dispense "$d" \
        --integrals direct
      rows+=("$(g_breakdown "$log") $(g_scf_time "$log") $(g_iters "$log")")
    done
    med=()
    for k in 1 2 3 4 5 6 7; do
      med+=("$(printf '%s\n' "${rows[@]}" | awk -v k=$k '{print $k}' | median)")
    done
    printf '%-9s %-12s %-9s | %9.4f %9.4f %9.4f %9.4f %9.4f | %9.2f %5d\n' "$c" "$d" "$p" "${med[@]}"
  done
fi
