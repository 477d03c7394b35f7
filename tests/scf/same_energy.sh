#!/usr/bin/env bash
# same_energy.sh <tolerance> <reference command...> -- <command...>
# Runs the reference gaea-scf command, reads its total energy, then runs the second command with
# --expect-energy <that energy> --tolerance <tolerance>: passes only if both runs succeed and
# agree (e.g. one node against several emulated hosts).
set -uo pipefail
tol=$1
shift
ref=()
while [[ $# -gt 0 && $1 != -- ]]; do ref+=("$1"); shift; done
[[ ${1:-} == -- ]] || { echo "same_energy.sh: usage: <tolerance> <reference...> -- <command...>" >&2; exit 2; }
shift
out=$("${ref[@]}" 2>&1)
rc=$?
printf '%s\n' "$out" | grep -E "total energy|rror"
[[ $rc -eq 0 ]] || { echo "same_energy.sh: the reference run failed (exit $rc)"; printf '%s\n' "$out"; exit 1; }
energy=$(printf '%s\n' "$out" | awk '/total energy/ { print $3; exit }')
[[ -n $energy ]] || { echo "same_energy.sh: no 'total energy' in the reference output"; exit 1; }
echo "same_energy.sh: reference energy $energy Eh; the run must agree within $tol Eh"
exec "$@" --expect-energy "$energy" --tolerance "$tol"
