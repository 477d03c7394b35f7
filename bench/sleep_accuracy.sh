#!/usr/bin/env bash
# Runs bench/sleep_accuracy ([AdaptivePolling Fig. 4]: requested vs actual clock_nanosleep, idle
# and busy, with and without PR_SET_TIMERSLACK=1 ns) and prints its table between two `uptime`
# lines (the machine's load, to report beside the figures). Builds nothing.
#
#   bench/sleep_accuracy.sh [BUILD_DIR [JSON_FILE]] [-- extra sleep_accuracy arguments]
#     BUILD_DIR  default ./build (the program is BUILD_DIR/bench/sleep_accuracy)
#     JSON_FILE  also write the figures there (default: none)
set -euo pipefail

build=./build
json=
if [[ $# -gt 0 && $1 != -- ]]; then build=$1; shift; fi
if [[ $# -gt 0 && $1 != -- ]]; then json=$1; shift; fi
[[ ${1:-} == -- ]] && shift
prog=$build/bench/sleep_accuracy
if [[ ! -x $prog ]]; then
  echo "sleep_accuracy.sh: $prog not found; build it first:" >&2
  echo "  cmake --build $build --target sleep_accuracy" >&2
  exit 1
fi
echo "# kernel $(uname -r), $(nproc) CPUs; load before: $(uptime)"
args=("$@")
[[ -n $json ]] && args+=(--json "$json")
"$prog" "${args[@]}"
echo "# load after: $(uptime)"
