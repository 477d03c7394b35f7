#!/usr/bin/env bash
# ctest app_energy_quick (label "bench"): bench/app_energy.sh --quick on node-2 in a temporary
# directory, then app_energy_summary.py check: every app x mode row with positive time, CPU-s and
# energy, a goal per app, a colocation row per mode. Checks the script, not the machine: it
# never waits for a quiet machine.
#   usage: bench/app_energy_test.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: app_energy_test.sh BUILD_DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gaea-app-energy-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rc=0
"$here/app_energy.sh" --quick --build "$build" --out "$tmp/q" --max-load 1000 --max-busy 101 \
  > "$tmp/out.txt" 2>&1 || rc=$?
if ((rc != 0)); then
  cat "$tmp/out.txt"
  echo "app_energy.sh --quick: exit $rc"
  exit 1
fi
python3 "$here/app_energy_summary.py" check "$tmp/q" --layouts node-2 --coloc-app lu
