#!/usr/bin/env bash
# signal_when_tmp.sh <signal> <launcher|rank> <directory>
# Waits (up to 45 s) until a temporary <name>.tmp.<pid>.<random> (a file or a directory) exists
# in <directory>, then sends <signal> (TERM, INT, HUP) to the process <pid> that made it (a rank)
# or to the MPI launcher above it (as a user's Ctrl-C or kill would), while it is being written.
# The temporary's name gives the pid, so nothing slow runs between seeing it and signalling. For
# the launcher, the writer is stopped first (SIGSTOP): the write cannot finish while the signal
# travels through the launcher, which sends SIGCONT before passing SIGTERM on.
# Exit 1 without signalling when no temporary appeared (the case then shows nothing).
set -u
sig=$1 whom=$2 dir=$3
tmp=""
while ((SECONDS < 45)); do
  for f in "$dir"/*.tmp.*; do
    [[ -e $f ]] && { tmp=$f; break 2; }
  done
  sleep 0.001
done
[[ -n $tmp ]] || { echo "signal_when_tmp: no temporary appeared in $dir" >&2; exit 1; }
target=${tmp##*.tmp.}
target=${target%%.*}
if [[ $whom == launcher ]]; then
  kill -STOP "$target"
  while [[ -n "$target" && "$target" != 1 ]]; do
    case "$(ps -o comm= -p "$target")" in mpirun | mpiexec | orterun | prterun) break ;; esac
    target=$(ps -o ppid= -p "$target" | tr -d ' ')
  done
  [[ -z "$target" || "$target" == 1 ]] && { echo "signal_when_tmp: no launcher above $tmp" >&2; exit 1; }
fi
kill -"$sig" "$target"
echo "signal_when_tmp: SIG$sig to the $whom ($target) while $tmp existed" >&2
