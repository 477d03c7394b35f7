#!/usr/bin/env bash
# Strong scaling of gaea-lbm against the memory-bandwidth bound of this machine.
#
#   bench/lbm_scaling.sh [build-dir] [repetitions]      (defaults: build, 3)
#
# 1. Measures STREAM-like copy bandwidth (build/bench/stream) with 1 thread and with all cores.
# 2. Runs the lid-driven cavity (--no-check --tol 0: a fixed number of steps) at 1024^2 (200
#    steps) and 4096^2 (12 steps) on 1 rank x 1 thread, 1 rank x all cores, 2 ranks and 4 ranks
#    (1 thread each), repetitions interleaved, and prints medians: MLUPS, per-step t_compute and
#    t_ghosts (mean over ranks; the split of [PGAS-BGQ Fig. 13]), and the fraction of the bandwidth bound.
# Bound: a D2Q9 double cell update reads 9 and writes 9 doubles = 144 B (the same counting as
# STREAM copy, which also leaves the write-allocate read uncounted), so
#   bound MLUPS = copy bandwidth (B/s) / 144 / 1e6, with the bandwidth of min(threads, cores).
# More ranks than cores are oversubscribed: the table marks them.
set -euo pipefail
BUILD=${1:-build}
REPS=${2:-3}
LBM=$BUILD/apps/lbm/gaea-lbm
STREAM=$BUILD/bench/stream
for exe in "$LBM" "$STREAM"; do
  [[ -x $exe ]] || { echo "lbm_scaling: $exe not built (cmake --build $BUILD --target gaea-lbm stream)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
CORES=$(nproc)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "== STREAM-like bandwidth (best of 10; array 256 MiB)"
"$STREAM" --reps 10 --threads "1,$CORES" | tee "$TMP/stream.txt"
copy_bw() { awk -v t="$1" '$1 == t && $2 == "copy" { print $3 }' "$TMP/stream.txt"; }
BW1=$(copy_bw 1)
BWC=$(copy_bw "$CORES")

# ranks:threads configurations
CONFIGS="1:1 1:$CORES 2:1 4:1"
run() {  # n steps ranks threads -> one line: mlups tc_mean tg_mean tc_max tg_max grid
  local n=$1 steps=$2 np=$3 th=$4 out
  out=$(mpirun -np "$np" "$LBM" --case cavity --nx "$n" --steps "$steps" --tol 0 --no-check \
        --threads "$th" 2>/dev/null)
  local ml tc tcm tg tgm grid
  ml=$(sed -n 's/.* \([0-9.]*\) MLUPS$/\1/p' <<<"$out")
  read -r tc tcm tg tgm < <(sed -n 's/.*t_compute \([0-9.]*\) s (max \([0-9.]*\)), t_ghosts \([0-9.]*\) s (max \([0-9.]*\)).*/\1 \2 \3 \4/p' <<<"$out")
  grid=$(sed -n 's/.* ranks as \([0-9]*\) x \([0-9]*\) tiles.*/\1x\2/p' <<<"$out")
  echo "$ml $tc $tg $tcm $tgm $grid"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for spec in 1024:200 4096:12; do
  n=${spec%%:*}
  steps=${spec##*:}
  for rep in $(seq "$REPS"); do
    for c in $CONFIGS; do
      run "$n" "$steps" "${c%%:*}" "${c##*:}" >>"$TMP/$n-$c.txt"
    done
  done
done

echo
echo "== gaea-lbm strong scaling, lid-driven cavity, medians of $REPS runs (copy bandwidth: 1 thread $BW1 GB/s, $CORES threads $BWC GB/s)"
printf "%6s %6s %5s %5s %8s %7s %12s %12s %7s %9s %8s\n" cells steps ranks thr grid MLUPS \
  "t_comp ms/st" "t_ghost ms/st" "ghost%" "bound" "of bound"
for spec in 1024:200 4096:12; do
  n=${spec%%:*}
  steps=${spec##*:}
  for c in $CONFIGS; do
    f=$TMP/$n-$c.txt
    np=${c%%:*}
    th=${c##*:}
    ml=$(awk '{ print $1 }' "$f" | median)
    tc=$(awk '{ print $2 }' "$f" | median)
    tg=$(awk '{ print $3 }' "$f" | median)
    grid=$(awk 'NR == 1 { print $6 }' "$f")
    used=$((np * th))
    bw=$([[ $used -ge $CORES ]] && echo "$BWC" || echo "$BW1")
    note=""
    [[ $used -gt $CORES ]] && note=" (oversubscribed: $used threads on $CORES cores)"
    awk -v n="$n" -v s="$steps" -v np="$np" -v th="$th" -v g="$grid" -v ml="$ml" -v tc="$tc" \
        -v tg="$tg" -v bw="$bw" -v note="$note" 'BEGIN {
      bound = bw * 1e9 / 144 / 1e6
      printf "%5d^2 %6d %5d %5d %8s %7.2f %12.2f %12.2f %6.1f%% %9.1f %7.0f%%%s\n", n, s, np, th, g, ml,
             1e3 * tc / s, 1e3 * tg / s, 100 * tg / (tc + tg), bound, 100 * ml / bound, note }'
  done
done
