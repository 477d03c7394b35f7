#!/usr/bin/env bash
# Strong scaling of gaea-lbm against the memory-bandwidth bound of this machine, and the ghost
# exchange overlapped with the interior update (--overlap on) against the blocking order (off).
#
#   bench/lbm_scaling.sh [build-dir] [repetitions]      (defaults: build, 3)
#
# 1. Measures STREAM-like copy bandwidth (build/bench/stream) with 1 thread and with all cores,
#    once per repetition (interleaved with the runs, so that the bound sees the same load), and
#    takes the median of the per-repetition bests.
# 2. Runs the lid-driven cavity (--no-check --tol 0: a fixed number of steps) at 1024^2 (200
#    steps) and 4096^2 (12 steps) on 1 rank x 1 thread, 1 rank x all cores, 2 ranks and 4 ranks
#    (1 thread each; the multi-rank ones with --overlap off and on, over UCX_TLS=sm,self and
#    tcp,self: on one node sm gets are direct copies made while they are issued, so only tcp has
#    transfers to hide), repetitions interleaved, and
#    prints medians: MLUPS, per-step t_compute and t_ghosts (mean over ranks; the split of
#    [PGAS-BGQ Fig. 13]; with overlap t_ghosts is the exposed part: starting the update plus the
#    final wait, which is printed too), and the fraction of the bandwidth bound.
# 3. Overlap: for each size, rank count and transport, hidden = 1 - t_ghosts(on) / t_ghosts(off), the
#    fraction of the exchange (as measured alone, in the blocking order) that the interior
#    update hid, and the speedup of the whole run (MLUPS on / off).
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
echo "== load at start: $(uptime)"

# ranks:threads:overlap:transport configurations (transport "-": UCX's default choice)
CONFIGS="1:1:off:- 1:$CORES:off:-"
for tls in sm tcp; do
  CONFIGS="$CONFIGS 2:1:off:$tls 2:1:on:$tls 4:1:off:$tls 4:1:on:$tls"
done
SIZES="1024:200 4096:12"
run() {  # n steps ranks threads overlap transport -> one line: mlups tc tg tcm tgm grid tw
  local n=$1 steps=$2 np=$3 th=$4 ov=$5 tls=$6 out
  local env=()
  [[ $tls != - ]] && env=(-x "UCX_TLS=$tls,self")
  out=$(mpirun -np "$np" "${env[@]}" "$LBM" --case cavity --nx "$n" --steps "$steps" --tol 0 \
        --no-check --threads "$th" --overlap "$ov" 2>/dev/null)
  local ml tc tcm tg tgm tw grid
  ml=$(sed -n 's/.* \([0-9.]*\) MLUPS$/\1/p' <<<"$out")
  read -r tc tcm tg tgm < <(sed -n 's/.*t_compute \([0-9.]*\) s (max \([0-9.]*\)), t_ghosts \([0-9.]*\) s (max \([0-9.]*\)).*/\1 \2 \3 \4/p' <<<"$out")
  tw=$(sed -n 's/.*t_ghost_wait \([0-9.]*\) s.*/\1/p' <<<"$out")
  grid=$(sed -n 's/.* ranks as \([0-9]*\) x \([0-9]*\) tiles.*/\1x\2/p' <<<"$out")
  echo "$ml $tc $tg $tcm $tgm $grid $tw"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
copy_bw() { awk -v t="$1" '$1 == t && $2 == "copy" { print $3 }' "$2"; }

for rep in $(seq "$REPS"); do
  "$STREAM" --reps 10 --threads "1,$CORES" >"$TMP/stream-$rep.txt"
  copy_bw 1 "$TMP/stream-$rep.txt" >>"$TMP/bw1.txt"
  copy_bw "$CORES" "$TMP/stream-$rep.txt" >>"$TMP/bwc.txt"
  for spec in $SIZES; do
    n=${spec%%:*}
    steps=${spec##*:}
    for c in $CONFIGS; do
      IFS=: read -r np th ov tls <<<"$c"
      run "$n" "$steps" "$np" "$th" "$ov" "$tls" >>"$TMP/$n-$c.txt"
    done
  done
done
BW1=$(median <"$TMP/bw1.txt")
BWC=$(median <"$TMP/bwc.txt")

echo "== STREAM-like bandwidth (best of 10 per repetition; array 256 MiB): the last repetition"
cat "$TMP/stream-$REPS.txt"
echo "   copy GB/s per repetition: 1 thread $(paste -sd' ' "$TMP/bw1.txt"), $CORES threads $(paste -sd' ' "$TMP/bwc.txt")"
echo
echo "== gaea-lbm strong scaling, lid-driven cavity, medians of $REPS runs (copy bandwidth, median of the repetitions' bests: 1 thread $BW1 GB/s, $CORES threads $BWC GB/s)"
printf "%6s %6s %5s %5s %4s %4s %6s %7s %12s %12s %12s %7s %8s %8s\n" cells steps ranks thr ovl tls grid \
  MLUPS "t_comp ms/st" "t_ghost ms/st" "t_wait ms/st" "ghost%" "bound" "of bound"
for spec in $SIZES; do
  n=${spec%%:*}
  steps=${spec##*:}
  for c in $CONFIGS; do
    f=$TMP/$n-$c.txt
    IFS=: read -r np th ov tls <<<"$c"
    ml=$(awk '{ print $1 }' "$f" | median)
    tc=$(awk '{ print $2 }' "$f" | median)
    tg=$(awk '{ print $3 }' "$f" | median)
    tw=$(awk '{ print $7 }' "$f" | median)
    grid=$(awk 'NR == 1 { print $6 }' "$f")
    used=$((np * th))
    bw=$([[ $used -ge $CORES ]] && echo "$BWC" || echo "$BW1")
    note=""
    [[ $used -gt $CORES ]] && note=" (oversubscribed: $used threads on $CORES cores)"
    awk -v n="$n" -v s="$steps" -v np="$np" -v th="$th" -v ov="$ov" -v tls="$tls" -v g="$grid" -v ml="$ml" \
        -v tc="$tc" -v tg="$tg" -v tw="$tw" -v bw="$bw" -v note="$note" 'BEGIN {
      bound = bw * 1e9 / 144 / 1e6
      printf "%5d^2 %6d %5d %5d %4s %4s %6s %7.2f %12.2f %12.2f %12.2f %6.1f%% %8.1f %7.0f%%%s\n", n,
             s, np, th, ov, tls, g, ml, 1e3 * tc / s, 1e3 * tg / s, 1e3 * tw / s, 100 * tg / (tc + tg),
             bound, 100 * ml / bound, note }'
  done
done

echo
echo "== overlap: hidden = 1 - t_ghosts(on) / t_ghosts(off) (medians), speedup = MLUPS(on) / MLUPS(off)"
printf "%6s %5s %4s %14s %14s %8s %8s\n" cells ranks tls "t_ghost off ms" "t_ghost on ms" hidden \
  speedup
for spec in $SIZES; do
  n=${spec%%:*}
  steps=${spec##*:}
  for tls in sm tcp; do
    for np in 2 4; do
      off=$TMP/$n-$np:1:off:$tls.txt
      on=$TMP/$n-$np:1:on:$tls.txt
      tgoff=$(awk '{ print $3 }' "$off" | median)
      tgon=$(awk '{ print $3 }' "$on" | median)
      mloff=$(awk '{ print $1 }' "$off" | median)
      mlon=$(awk '{ print $1 }' "$on" | median)
      awk -v n="$n" -v s="$steps" -v np="$np" -v tls="$tls" -v a="$tgoff" -v b="$tgon" -v x="$mloff" -v y="$mlon" 'BEGIN {
        hidden = a > 0 ? 100 * (1 - b / a) : 0
        speedup = x > 0 ? y / x : 0
        printf "%5d^2 %5d %4s %14.2f %14.2f %7.0f%% %8.3f\n", n, np, tls, 1e3 * a / s, 1e3 * b / s,
               hidden, speedup }'
    done
  done
done
echo "== load at end: $(uptime)"
