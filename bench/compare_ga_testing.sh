#!/usr/bin/env bash
# Global Arrays' own C test programs (GA's global/testing list), each built twice — against
# Debian's GA 5.8.2 and against Gaea's GA C API from an installed prefix — and run at N ranks.
# FORTRAN=1: GA's Fortran programs of that list instead (plus types-test), with
# -fdefault-integer-8 as Debian's GA is built (Gaea's gaea-ga-fortran-i8), util.c in C.
# Prints one table row per program: build and run result on each, and the reason of a failure.
# GA's files are read from a GA source tree or git directory and built in a scratch directory;
# none of them is copied into this repository.
#   bench/compare_ga_testing.sh <gaea-prefix> [out-dir]
# Environment: GA_SRC (a GA checkout or git directory; default the search tool's mirror),
#   RANKS (4), UCX_TLS (sm), ONLY (space-separated program names), TIMEOUT (seconds, 300),
#   FORTRAN (0; 1: the Fortran programs).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=$(cd "${1:?usage: $0 <gaea-prefix> [out-dir]}" && pwd)
out=${2:-$root/bench/out/$(date -u +%Y%m%d-%H%M%S)-ga-testing}
ga_src=${GA_SRC:-/work/.mirror/GlobalArrays+ga/repo}
ranks=${RANKS:-4}
limit=${TIMEOUT:-300}
export UCX_TLS=${UCX_TLS:-sm}
ga_config=/usr/lib/x86_64-linux-gnu/ga/openmpi/bin/ga-config
[[ -x $ga_config ]] || { echo "error: Debian's GA is missing (scripts/install-deps.sh --bench)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/gaea-ga-testing.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/testing
mkdir -p "$src"
if [[ -d $ga_src/global/testing ]]; then
  cp -r "$ga_src/global/testing/." "$src/"
else
  git -C "$ga_src" archive HEAD global/testing | tar -x -C "$work" --strip-components=1
fi
# GA's util.c includes GA's internal global.h; outside GA's tree this stand-in is enough.
standin=$work/standin
mkdir -p "$standin"
cat >"$standin/global.h" <<'EOF'
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "typesf2c.h"
#define F77_FUNC_(name, NAME) name##_
EOF
# What GA's config.h says on this system (GA's tests include <assert.h>, <stdio.h>, ... only
# under these; perf2 calls assert).
defs=(-DHAVE_ASSERT_H=1 -DHAVE_STDIO_H=1 -DHAVE_STDLIB_H=1 -DHAVE_STRING_H=1 -DHAVE_UNISTD_H=1
  -DHAVE_MATH_H=1)
# The C programs of GA's list: "ga_add_parallel_test (name "sources" ...)" lines without Fortran.
fortran=${FORTRAN:-0}
if [[ $fortran == 1 ]]; then
  # GA's Fortran programs; those made from .m4 files at GA's build time are left out.
  mapfile -t entries < <(sed -nE 's/^ *ga_add_parallel_test *\(([a-z_0-9-]+) +"([^"$]+)".*Fortran.*\)/\1|\2/p' \
    "$src/CMakeLists.txt")
  entries+=("types-test|types-test.F ffflush.F util.c")
else
  mapfile -t entries < <(sed -nE 's/^ *ga_add_parallel_test *\(([a-z_0-9-]+) +"([^"]+)".*\)/\1|\2/p' \
    "$src/CMakeLists.txt" | grep -v '\.F')
fi
flags=(--oversubscribe)
[[ $(id -u) == 0 ]] && flags+=(--allow-run-as-root)
gaea_cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags gaea-ga)
gaea_libs=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs gaea-ga)
if [[ $fortran == 1 ]]; then
  gaea_fflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags gaea-ga-fortran-i8)
  gaea_flibs=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs gaea-ga-fortran-i8)
  fopts=(-w -fdefault-integer-8 -fallow-argument-mismatch -I"$src" -I"$standin")
  # GA's galinalg.fh (testblas.F) only renames BLAS calls when GA was built without a BLAS.
  : >"$standin/galinalg.fh"
fi
# fortran_build <side> <exe> <files...>: the C files compiled with mpicc, the rest with mpif90.
fortran_build() {
  local side=$1 exe=$2 objs=() f
  shift 2
  for f in "$@"; do
    if [[ $f == *.c ]]; then
      local o=$exe.$(basename "$f" .c).o
      if [[ $side == ga ]]; then
        mpicc -w -c "${defs[@]}" -I"$standin" -I"$src" "$f" -o "$o" || return 1
      else
        mpicc -w -c "${defs[@]}" $gaea_cflags -I"$standin" -I"$src" "$f" -o "$o" || return 1
      fi
      objs+=("$o")
    else
      objs+=("$f")
    fi
  done
  if [[ $side == ga ]]; then
    mpif90 "${fopts[@]}" "${objs[@]}" -o "$exe" $($ga_config --libs) -lm
  else
    mpif90 "${fopts[@]}" $gaea_fflags "${objs[@]}" -o "$exe" $gaea_flibs
  fi
}
# reason <log>: the first line that says why a build or run failed.
reason() {
  grep -m1 -i -E 'error|undefined reference|fail|mismatch|abort|signal|timed out' "$1" |
    cut -c1-110 | tr '|' '/' || true
}
printf '| program | GA build | GA run | Gaea build | Gaea run | reason (Gaea) |\n|---|---|---|---|---|---|\n' \
  | tee "$out/table.md"
for entry in "${entries[@]}"; do
  name=${entry%%|*}
  files=()
  for f in ${entry#*|}; do files+=("$src/$f"); done
  if [[ -n ${ONLY:-} && " $ONLY " != *" $name "* ]]; then continue; fi
  row="| $name"
  gaea_reason=""
  for side in ga gaea; do
    exe=$work/$name.$side
    log=$out/$name.$side
    if [[ $fortran == 1 ]]; then
      cmd=(fortran_build "$side" "$exe" "${files[@]}")
    elif [[ $side == ga ]]; then
      cmd=(mpicc -w "${defs[@]}" -I"$standin" -I"$src" "${files[@]}" -o "$exe" $($ga_config --libs) -lgfortran -lm)
    else
      cmd=(mpicc -w "${defs[@]}" $gaea_cflags -I"$standin" -I"$src" "${files[@]}" -o "$exe" $gaea_libs)
    fi
    if ! "${cmd[@]}" >"$log.build.log" 2>&1; then
      row+=" | no | -"
      [[ $side == gaea ]] && gaea_reason=$(reason "$log.build.log")
      continue
    fi
    row+=" | yes"
    status=0
    (cd "$work" && timeout "$limit" mpirun "${flags[@]}" -np "$ranks" "$exe") >"$log.run.log" 2>&1 || status=$?
    # GA's Fortran programs that end with "All tests successful" also print expected failures
    # ("SHOULD FAIL") and residuals ("error= ").
    if [[ $status == 0 ]] && { [[ $fortran == 1 ]] && grep -q 'All tests successful' "$log.run.log" ||
      ! grep -i -E 'fail|mismatch|error' "$log.run.log" | grep -q -v -E 'rror *= *0(\.0+)?( |$)'; }; then
      row+=" | pass"
    else
      [[ $status == 124 ]] && echo "timed out after ${limit} s" >>"$log.run.log"
      row+=" | FAIL($status)"
      [[ $side == gaea ]] && gaea_reason=$(reason "$log.run.log")
    fi
  done
  echo "$row | $gaea_reason |" | tee -a "$out/table.md"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); logs in $out"
