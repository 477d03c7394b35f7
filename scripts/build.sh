#!/usr/bin/env bash
# Gaea build driver.
#   scripts/build.sh demo [scf-args...]   install deps, configure + build ./build, run SCF on a water
#                                         cluster on 4 local ranks with GAEA_REPORT=1 (energy,
#                                         timing, progress/energy report); args replace the default
#                                         gaea-scf arguments
#   scripts/build.sh demo-matvec [n tile] the same for the y = A x demo (build/apps/demo/gaea-demo)
#   scripts/build.sh test                 install deps, configure + build ./build, run ctest
# Environment:
#   GAEA_BUILD_DIR   build directory (default: <repo>/build)
#   GAEA_BUILD_TYPE  CMAKE_BUILD_TYPE (default: RelWithDebInfo)
#   GAEA_SKIP_DEPS=1 skip scripts/install-deps.sh (e.g. on a cluster with modules)
#   GAEA_CMAKE_ARGS  extra arguments for the configure step (word-split)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

usage() { sed -n '2,14p' "${BASH_SOURCE[0]}"; }
step() { printf '\n==> %s\n' "$*"; }

cmd="${1:-}"
case "$cmd" in
  demo|demo-matvec|test) shift ;;
  -h|--help|help) usage; exit 0 ;;
  "") usage >&2; exit 2 ;;
  *) echo "build.sh: unknown subcommand '$cmd'" >&2; usage >&2; exit 2 ;;
esac

build_dir="${GAEA_BUILD_DIR:-$repo/build}"
build_type="${GAEA_BUILD_TYPE:-RelWithDebInfo}"
jobs=$(nproc 2>/dev/null || echo 2)
mpi_args=(--oversubscribe)
if [[ ${EUID:-$(id -u)} -eq 0 ]]; then mpi_args=(--allow-run-as-root "${mpi_args[@]}"); fi

# install_deps <selection>: scripts/install-deps.sh with it (the configure step needs the test
# suite's packages too: the tests are part of the default build).
install_deps() {
  if [[ "${GAEA_SKIP_DEPS:-0}" == 1 ]]; then
    step "dependencies: skipped (GAEA_SKIP_DEPS=1)"
  else
    step "dependencies: scripts/install-deps.sh $1"
    "$repo/scripts/install-deps.sh" "$1"
  fi
}

configure() {
  local extra=() more=()
  # A rebuild after a change or a fresh build dir reuses earlier compiles when ccache is present.
  if command -v ccache >/dev/null; then
    extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  if [[ -n "${GAEA_CMAKE_ARGS:-}" ]]; then read -r -a more <<<"$GAEA_CMAKE_ARGS"; extra+=("${more[@]}"); fi
  step "configure: $build_dir ($build_type)"
  cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" "${extra[@]}"
}

# build [target...]: the named targets (and what they need), or everything.
build() {
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  step "build: -j$jobs${*:+ (only $*)}"
  cmake --build "$build_dir" --parallel "$jobs" "${targets[@]}"
}

# Fails with a hint when an app the command runs was not built (its target may not exist).
require_exe() {
  if [[ ! -x "$1" ]]; then
    echo "build.sh: $1 was not built ($2)" >&2
    exit 1
  fi
}

case "$cmd" in
  demo)
    install_deps --tests
    configure
    # The demo needs the library and the SCF app only; the tests and benchmarks come with `test`.
    scf="$build_dir/apps/scf/gaea-scf"
    build gaea-scf || { require_exe "$scf" "needs libint2-dev and libcli11-dev, and GAEA_BUILD_APPS=ON"; exit 1; }
    args=("$repo/apps/scf/molecules/water3.xyz" --basis 6-31G)
    if [[ $# -gt 0 ]]; then args=("$@"); fi
    step "run: GAEA_REPORT=1 mpirun ${mpi_args[*]} -np 4 $scf ${args[*]}"
    GAEA_REPORT=1 mpirun "${mpi_args[@]}" -np 4 "$scf" "${args[@]}"
    ;;
  demo-matvec)
    install_deps --tests
    configure
    demo="$build_dir/apps/demo/gaea-demo"
    build gaea-demo || { require_exe "$demo" "is the gaea-demo target in apps/demo and GAEA_BUILD_APPS=ON?"; exit 1; }
    step "run: mpirun ${mpi_args[*]} -np 4 $demo $*"
    mpirun "${mpi_args[@]}" -np 4 "$demo" "$@"
    ;;
  test)
    install_deps --tests
    configure
    build
    step "test: ctest --test-dir $build_dir --output-on-failure -j1 --timeout 600"
    ctest --test-dir "$build_dir" --output-on-failure -j1 --timeout 600
    ;;
esac
step "done: $cmd"
