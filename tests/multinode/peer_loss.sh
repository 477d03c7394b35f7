#!/usr/bin/env bash
# peer_loss.sh <kill|link> <bound-seconds> <program> -- <launch command...>
# Runs the launch command (`cluster.sh mpirun -np 4 <program> ...` on a 2x2 emulated cluster:
# ranks 0-1 on one host, 2-3 on the other), then after 6 s either
# kills rank 3 with SIGKILL (kill) or takes its host's fabric link (eth0) down (link; the
# launcher's management network stays up, as when a node's fabric port fails). Passes only when
# mpirun ends with a non-zero exit within <bound-seconds> of the fault, no rank process is left,
# and a rank names the loss: for kill a rank of the other host (0 or 1) names a lost rank of the
# failed host; for link a rank names a lost rank across the downed link.
set -uo pipefail
fault=$1 bound=$2 program=$3
shift 3
[[ ${1:-} == -- ]] && shift
[[ $fault == kill || $fault == link ]] || { echo "peer_loss.sh: fault '$fault' is not kill or link"; exit 2; }
program=$(readlink -f "$program")
# Processes running the program (by executable, so this script's own command line never counts).
rank_pids() {
  local d
  for d in /proc/[0-9]*; do
    [[ $(readlink "$d/exe" 2>/dev/null) == "$program" ]] && echo "${d#/proc/}"
  done
}
log=$(mktemp)
link_host=""
cleanup() {
  [[ -z $link_host ]] || ip -n "$link_host" link set eth0 up 2>/dev/null
  rm -f "$log"
}
trap cleanup EXIT
"$@" >"$log" 2>&1 &
launcher=$!
sleep 6
# The rank-3 process: a process of the program whose environment says it is world rank 3.
victim=""
for pid in $(rank_pids); do
  if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=3; then victim=$pid; fi
done
[[ -n $victim ]] || { echo "peer_loss.sh: rank 3 is not running 6 s after the launch"; cat "$log"; kill "$launcher"; exit 1; }
host=$(nsenter -t "$victim" -u hostname)
start=$(date +%s.%N)
if [[ $fault == kill ]]; then
  kill -9 "$victim"
else
  link_host=$host
  ip -n "$host" link set eth0 down
fi
echo "peer_loss.sh: $fault of rank 3 (pid $victim, host $host)"
# Wait for mpirun, at most the bound (plus a margin to see how late it would be).
deadline=$(awk -v b="$bound" 'BEGIN { print b + 30 }')
while kill -0 "$launcher" 2>/dev/null; do
  sleep 0.25
  if awk -v s="$start" -v n="$(date +%s.%N)" -v d="$deadline" 'BEGIN { exit !(n - s > d) }'; then
    echo "peer_loss.sh: mpirun still running $deadline s after the fault"
    kill -9 "$launcher"
    break
  fi
done
wait "$launcher"
rc=$?
took=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - s }')
grep -v '^ *[0-9]' "$log" | grep -v '^step' | head -40
echo "peer_loss.sh: mpirun exited $rc, $took s after the fault (bound $bound s)"
fail=0
[[ $rc -ne 0 ]] || { echo "FAIL: mpirun exited 0"; fail=1; }
awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t <= b) }' || { echo "FAIL: took longer than $bound s"; fail=1; }
sleep 1
left=$(rank_pids)
if [[ -n $left ]]; then echo "FAIL: rank processes are left: $left"; kill -9 $left; fail=1; fi
# Who must name the loss. A killed rank: the ranks of the other host (0 and 1), whose connections
# to it reset; the first of them to notice names a rank of the failed host (the launcher may end
# the other before it notices), and the killed rank's own host reports its death through the
# launcher's daemon there. A fabric link down: both sides lose each other, and whichever rank
# notices first names a rank across the link (the launcher's management network is still up, so
# it ends the others when that rank exits, perhaps before they notice).
# Each report as "reporting-host lost-host".
reports=$(sed -nE 's/^gaea: rank [0-9]+ \(host ([^)]*)\): lost the connection to rank [0-9]+ \(host ([^)]*)\).*/\1 \2/p' "$log")
if [[ $fault == kill ]]; then
  awk -v h="$host" '$1 != h && $2 == h { found = 1 } END { exit !found }' <<<"$reports" ||
    { echo "FAIL: no rank of the other host named a lost rank of $host"; fail=1; }
else
  awk -v h="$host" '$1 != $2 && ($1 == h || $2 == h) { found = 1 } END { exit !found }' <<<"$reports" ||
    { echo "FAIL: no rank named a lost rank across $host's fabric link"; fail=1; }
fi
exit $fail
