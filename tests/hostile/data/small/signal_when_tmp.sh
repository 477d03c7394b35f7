#!/usr/bin/env bash
# signal_when_tmp.sh <signal> <launcher|rank> <pid of a rank> <directory>
# Waits (up to ~20 s) until a temporary (*.tmp.*, a file or a directory) exists in <directory>,
# then sends <signal> (TERM, INT, HUP) to the MPI launcher above that rank (as a user's Ctrl-C or
# kill would) or to the rank itself, while the temporary is being written. Exit 1 without
# signalling when no temporary appeared (the case then cannot show anything).
set -u
sig=$1 whom=$2 pid=$3 dir=$4
target=$pid
if [[ $whom == launcher ]]; then
  while [[ -n "$target" && "$target" != 1 ]]; do
    case "$(ps -o comm= -p "$target")" in mpirun | mpiexec | orterun | prterun) break ;; esac
    target=$(ps -o ppid= -p "$target" | tr -d ' ')
  done
  [[ -z "$target" || "$target" == 1 ]] && { echo "signal_when_tmp: no launcher above $pid" >&2; exit 1; }
fi
seen=0
for _ in $(seq 10000); do
  compgen -G "$dir/*.tmp.*" >/dev/null && { seen=1; break; }
  sleep 0.002
done
((seen)) || { echo "signal_when_tmp: no temporary appeared in $dir" >&2; exit 1; }
echo "signal_when_tmp: SIG$sig to the $whom ($target) with $(compgen -G "$dir/*.tmp.*" | wc -l) temporary(ies) present" >&2
kill -"$sig" "$target"
