#!/usr/bin/env bash
# The accumulate sweep of [PGAS-BGQ Fig. 11]: a 1 MiB accumulate against its chunk size,
# target-driven vs source-driven (pipelined) and automatic (build/bench/ga_acc_sweep), with
# Global Arrays 5.8's NGA_Acc of the same patch beside it (build/bench/reference/
# ga_strided_bench --acc-bytes 1048576: GA has no chunk size, one figure per configuration).
#
#   bench/compare_acc_sweep.sh [build-dir=build] [launches=3] [out-dir]
#
# Configurations (ACC_CONFIGS, default "node hosts"):
#   node    2 ranks on this machine (UCX's default transports: shared memory)
#   hosts   2 emulated hosts (scripts/cluster.sh up 2 --ppn 2, unshaped), ranks 0 and 1 on
#           different hosts (--map-by node): tcp between them; GA with osc/pt2pt (nodes_common.sh)
# Launches are interleaved; each figure is the median over launches of the per-launch medians.
# Output: a table on stdout and, in out-dir (default bench/out/<date>-acc-sweep): raw.jsonl
# (tagged with config, launch and load) and summary.txt. Needs root for the emulated hosts.
set -euo pipefail
build=${1:-build}
launches=${2:-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${3:-$here/out/$(date +%Y%m%d-%H%M%S)-acc-sweep}
# shellcheck source-path=SCRIPTDIR source=nodes_common.sh
source "$here/nodes_common.sh"
configs=${ACC_CONFIGS:-"node hosts"}
args=${SWEEP_ARGS:-"--reps 5 --iters 4"}
gaea_exe=$build/bench/ga_acc_sweep
ga_exe=$build/bench/reference/ga_strided_bench
[[ -x $gaea_exe ]] || { echo "no $gaea_exe (cmake --build $build --target ga_acc_sweep)" >&2; exit 1; }
mkdir -p "$out"
raw=$out/raw.jsonl
: >"$raw"
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
trap 'nodes_down' EXIT
tag() { sed "s/^{/{\"config\":\"$1\",\"launch\":$2,\"load\":\"$(load_now)\",/"; }
for ((i = 1; i <= launches; i++)); do
  for c in $configs; do
    case $c in
      node)
        # shellcheck disable=SC2086
        timeout -k 10 300 mpirun "${flags[@]}" -np 2 "$gaea_exe" $args 2>/dev/null | grep '^{' | tag node "$i" >>"$raw" || true
        if [[ -x $ga_exe ]]; then
          timeout -k 10 300 mpirun "${flags[@]}" -np 2 "$ga_exe" --acc-bytes 1048576 --iters 4 2>/dev/null |
            grep '"acc"' | tag node "$i" >>"$raw" || true
        fi ;;
      hosts)
        nodes_up none
        # shellcheck disable=SC2086
        timeout -k 10 300 "$nodes_cluster" mpirun -np 2 --map-by node "$gaea_exe" $args 2>/dev/null |
          grep '^{' | tag hosts "$i" >>"$raw" || true
        if [[ -x $ga_exe ]]; then
          read -r -a env_words <<<"$(ga_env pt2pt)"
          env "${env_words[@]}" timeout -k 10 300 "$nodes_cluster" mpirun -np 2 --map-by node \
            "$ga_exe" --acc-bytes 1048576 --iters 4 2>/dev/null | grep '"acc"' | tag hosts "$i" >>"$raw" || true
        fi ;;
      *) echo "unknown configuration '$c' (node, hosts)" >&2; exit 2 ;;
    esac
  done
done
awk -f "$here/jsonl.awk" -f <(cat <<'AWK'
{
  parse_flat($0, f)
  if (f["system"] == "gaea") {
    for (k in f) if (k ~ /_us$/) v[f["config"] "|" f["chunk"] "|" k] = v[f["config"] "|" f["chunk"] "|" k] " " f[k]
    chunks[f["chunk"]] = 1; cfgs[f["config"]] = 1
  } else ga[f["config"]] = ga[f["config"]] " " f["us"]
}
END {
  n = 0; for (c in chunks) s[++n] = c
  for (i = 2; i <= n; i++) for (j = i; j > 1 && s[j-1] + 0 > s[j] + 0; j--) { t = s[j]; s[j] = s[j-1]; s[j-1] = t }
  for (c in cfgs) {
    printf "\n%s: 1 MiB accumulate from rank 1 into rank 0, us (median over launches); GA NGA_Acc: %s us\n", c, (c in ga) ? sprintf("%.1f", med(ga[c])) : "-"
    printf "%10s %10s %14s %14s\n", "chunk[B]", "auto", "target-driven", "source-driven"
    for (i = 1; i <= n; i++)
      printf "%10s %10.1f %14.1f %14.1f\n", s[i], med(v[c "|" s[i] "|auto_us"]), med(v[c "|" s[i] "|target_us"]), med(v[c "|" s[i] "|source_us"])
  }
}
AWK
) "$raw" | tee "$out/summary.txt"
echo "($launches interleaved launches; $args; load at the end $(load_now))" | tee -a "$out/summary.txt"
