#!/usr/bin/env bash
# [PGAS-BGQ Fig. 14-15] here: gaea-scf with its shared task counter served by rank 0's main
# thread only ("default": GAEA_PROGRESS=off, --counter owner) against the same counter served by
# the asynchronous progress thread (GAEA_PROGRESS=auto, --counter progress), and the network
# atomics (--counter atomic) beside them, on every layout this machine runs: 1-4 ranks on the node
# (sm) and emulated hosts 2 x 2 and 3 x 1. Every (layout, molecule) runs the three modes
# interleaved, <reps> times; medians of the Fock build per iteration and of the counter wait's share
# of it (gaea-scf --json: counter_s / fock_s). Oversubscribed layouts (more ranks than cores) are
# marked: there the progress thread competes with the ranks for the cores. gaea-scf runs its
# direct build (--integrals direct): in-core replays take no task from the counter.
#   bench/scf_counter_progress.sh [reps=3] [layouts="1 2 3 4 2x2 3x1"]
# Environment: SCF_MOLECULES  "name:xyz-args..." entries separated by ';' (default below)
# Results: bench/out/<date>-scf-counter/ (SCFC_OUT overrides): runs.tsv, summary.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/nodes_common.sh"
export GAEA_CLUSTER_NAME=gaeas  # its own cluster
reps=${1:-3}
layouts=${2:-1 2 3 4 2x2 3x1}
scf=$root/build/apps/scf/gaea-scf
[[ -x $scf ]] || { echo "build first: $scf missing" >&2; exit 1; }
out=${SCFC_OUT:-$here/out/$(date +%Y%m%d-%H%M%S)-scf-counter}
[[ -e $out ]] && { echo "$out exists" >&2; exit 1; }
mkdir -p "$out.partial"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_WARN_UNUSED_ENV_VARS=n
trap '"$nodes_cluster" down >/dev/null 2>&1 || true' EXIT
"$root/apps/scf/molecules/make_cluster.sh" 4 >"$out.partial/water4.xyz"
default_molecules="water3-631g:$root/apps/scf/molecules/water3.xyz --basis 6-31G*;"
default_molecules+="water4-ccpvdz:$out.partial/water4.xyz --basis cc-pVDZ"
IFS=';' read -r -a molecules <<<"${SCF_MOLECULES:-$default_molecules}"
modes=("default:GAEA_PROGRESS=off:owner" "async:GAEA_PROGRESS=auto:progress"
  "atomic:GAEA_PROGRESS=auto:atomic")
{
  echo "command: bench/scf_counter_progress.sh $reps \"$layouts\""
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(uname -srm), $(nproc) cores"
  echo "git: $(git -C "$root" rev-parse --short HEAD)"
  echo "uptime at start: $(uptime)"
} >"$out.partial/run.txt"
printf 'layout\tmolecule\tmode\trep\tfock_s\tcounter_s\titerations\tconverged\tload\n' \
  >"$out.partial/runs.tsv"
for layout in $layouts; do
  launch=()
  if [[ $layout == *x* ]]; then
    h=${layout%x*} p=${layout#*x}
    [[ $(id -u) -eq 0 ]] || { echo "layout $layout needs root; skipped" >>"$out.partial/run.txt"; continue; }
    "$nodes_cluster" up "$h" --ppn "$p" >/dev/null
    launch=(env GAEA_SHARED_CORES=yes "$nodes_cluster" mpirun -np $((h * p)) -x GAEA_SHARED_CORES
      -x GAEA_PROGRESS)
  else
    launch=(mpirun --oversubscribe -np "$layout" -x GAEA_PROGRESS)
  fi
  for mol in "${molecules[@]}"; do
    name=${mol%%:*}
    read -r -a args <<<"${mol#*:}"
    for ((r = 1; r <= reps; ++r)); do
      for m in "${modes[@]}"; do
        IFS=: read -r mode env_kv counter <<<"$m"
        line=$(env "$env_kv" "${launch[@]}" "$scf" "${args[@]}" -q \
          --integrals direct --counter "$counter" --json - 2>>"$out.partial/stderr.txt" | grep '^{' | tail -1 || true)
        [[ -n $line ]] || { echo "$layout $name $mode rep $r: no JSON line" >>"$out.partial/run.txt"; continue; }
        python3 - "$line" "$layout" "$name" "$mode" "$r" "$(load_now)" >>"$out.partial/runs.tsv" <<'EOF'
import json, sys
j = json.loads(sys.argv[1])
print("\t".join(sys.argv[2:6] + [str(j["fock_s"]), str(j["counter_s"]), str(j["iterations"]),
                                   str(j["converged"]), sys.argv[6]]))
EOF
      done
    done
  done
  [[ $layout == *x* ]] && "$nodes_cluster" down >/dev/null
done
echo "uptime at end: $(uptime)" >>"$out.partial/run.txt"
python3 - "$out.partial" >"$out.partial/summary.md" <<'EOF'
import collections, csv, os, statistics, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "runs.tsv")), delimiter="\t"))
print("# gaea-scf: counter served by rank 0 (default) vs the progress thread (async) vs atomics\n")
print("```\n" + open(os.path.join(d, "run.txt")).read().rstrip() + "\n```\n")
print("Fock build per iteration (median of the launches) and the counter wait's share of it; "
      "async/default below 1: the progress thread is faster. Ranks above "
      f"{os.cpu_count()} cores are oversubscribed.\n")
print("| layout | molecule | default s | counter % | async s | counter % | atomic s | counter % "
      "| async/default | atomic/default |")
print("|---|---|---|---|---|---|---|---|---|---|")
by = collections.defaultdict(list)
for r in rows:
    if r["converged"].lower() != "true":
        continue  # never report an unconverged run as a result
    by[(r["layout"], r["molecule"], r["mode"])].append(r)
keys = sorted({(k[0], k[1]) for k in by}, key=lambda k: (len(k[0]), k[0], k[1]))
for lay, mol in keys:
    cell = {}
    for mode in ("default", "async", "atomic"):
        rs = by.get((lay, mol, mode), [])
        if rs:
            f = statistics.median(float(x["fock_s"]) for x in rs)
            c = statistics.median(float(x["counter_s"]) / float(x["fock_s"]) for x in rs)
            cell[mode] = (f, c)
    def show(m):
        return f"{cell[m][0]:.4f} | {100 * cell[m][1]:.1f}" if m in cell else "- | -"
    def ratio(m):
        return f"{cell[m][0] / cell['default'][0]:.2f}" if m in cell and "default" in cell else "-"
    print(f"| {lay} | {mol} | {show('default')} | {show('async')} | {show('atomic')} "
          f"| {ratio('async')} | {ratio('atomic')} |")
EOF
mv "$out.partial" "$out"
echo "results in $out"
