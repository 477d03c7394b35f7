#!/usr/bin/env bash
# term_launcher_when_tmp.sh <pid of a rank> <directory>
# Waits (up to ~10 s) until a temporary (*.tmp.*) appears in <directory>, then sends SIGTERM to
# the MPI launcher above that rank, as a user's Ctrl-C/kill would while an output is written.
set -u
pid=$1 dir=$2
launcher=$pid
while [[ -n "$launcher" && "$launcher" != 1 ]]; do
  case "$(ps -o comm= -p "$launcher")" in mpirun | mpiexec | orterun | prterun) break ;; esac
  launcher=$(ps -o ppid= -p "$launcher" | tr -d ' ')
done
[[ -z "$launcher" || "$launcher" == 1 ]] && { echo "term_launcher: no launcher above $pid" >&2; exit 1; }
for _ in $(seq 5000); do
  compgen -G "$dir/*.tmp.*" >/dev/null && break
  sleep 0.002
done
echo "term_launcher: SIGTERM to $launcher with $(compgen -G "$dir/*.tmp.*" | wc -l) temporary file(s) present" >&2
kill -TERM "$launcher"
