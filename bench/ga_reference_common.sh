#!/usr/bin/env bash
# Helpers shared by the scripts that run a GA C program of bench/reference twice, built against
# Debian's GA 5.8.2 (<prog>) and against Gaea's GA C API (<prog>_gaea) by
# bench/reference/CMakeLists.txt: compare_ga_api.sh, compare_ga_diag.sh, compare_ga_coll.sh.
# Source it; it defines functions only, plus `ga_ref_root` (the repository).
#
#   ga_ref_setup BUILD OUT PROG...  installs the benchmark dependencies (unless GAEA_SKIP_DEPS=1),
#                                   exports UCX_TLS (default sm, for Gaea), checks that every
#                                   BUILD/bench/reference/PROG and PROG_gaea is built (exit 2
#                                   otherwise), creates OUT and sets `ref` (the programs'
#                                   directory), `jsonl` (OUT/results.jsonl, emptied) and
#                                   `load_before`
#   ga_ref_run CONFIG NP EXE [ARGS...]
#                                   runs EXE on NP ranks of this machine (timeout 900 s, the
#                                   log in OUT/CONFIG.$launch.<exe>.log) and appends its JSON
#                                   lines to `jsonl`, tagged with config, launch (the caller's
#                                   `launch`) and the load before the run; a failure prints the
#                                   log's tail and exits 1
#   ga_ref_load                     the 1/5/15-minute load averages
# Not meant to be run by itself.

ga_ref_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ga_ref_out=""
ga_ref_flags=(--oversubscribe)
[[ $(id -u) == 0 ]] && ga_ref_flags+=(--allow-run-as-root)

ga_ref_load() { cut -d' ' -f1-3 /proc/loadavg; }

ga_ref_setup() {
  local build=$1 p f
  ga_ref_out=$2
  shift 2
  if [[ ${GAEA_SKIP_DEPS:-0} != 1 ]]; then "$ga_ref_root/scripts/install-deps.sh" --bench; fi
  export UCX_TLS=${UCX_TLS:-sm}
  ref=$build/bench/reference
  for p in "$@"; do
    for f in "$ref/$p" "$ref/${p}_gaea"; do
      [[ -x $f ]] || { echo "error: $f not built (GA reference benchmarks need libglobalarrays-dev)" >&2; exit 2; }
    done
  done
  mkdir -p "$ga_ref_out"
  # shellcheck disable=SC2034  # ref, jsonl and load_before are for the caller
  jsonl=$ga_ref_out/results.jsonl
  : >"$jsonl"
  # shellcheck disable=SC2034
  load_before=$(ga_ref_load)
}

ga_ref_run() {
  local config=$1 np=$2 load
  shift 2
  local log
  # shellcheck disable=SC2154  # launch: the caller's loop variable
  log="$ga_ref_out/$config.$launch.$(basename "$1").log"
  load=$(ga_ref_load)
  if ! timeout 900 mpirun "${ga_ref_flags[@]}" -np "$np" "$@" >"$log" 2>&1; then
    echo "error: $config $* failed (log: $log)" >&2
    tail -5 "$log" >&2
    exit 1
  fi
  grep '^{' "$log" | sed -E "s/^\{/{\"config\":\"$config\",\"launch\":$launch,\"load\":\"$load\",/" >>"$jsonl"
}
