#!/usr/bin/env bash
# Package test (ctest: package.find_package): installs a built Gaea tree into a temporary prefix,
# configures and builds tests/package/consumer against it with find_package(Gaea), and runs the
# consumer on 2 ranks.
#   usage: run_consumer.sh <gaea-build-dir> <gaea-source-dir>
# Set GAEA_KEEP_PACKAGE_TMP=1 to keep the temporary directory for inspection.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 <gaea-build-dir> <gaea-source-dir>" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
consumer_src="$source_dir/tests/package/consumer"
[[ -f "$consumer_src/CMakeLists.txt" ]] || { echo "error: no consumer project at $consumer_src" >&2; exit 2; }
[[ -f "$build_dir/CMakeCache.txt" ]] || { echo "error: $build_dir is not a configured build tree" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/gaea-package.XXXXXX")
cleanup() {
  if [[ "${GAEA_KEEP_PACKAGE_TMP:-0}" == 1 ]]; then
    echo "-- kept $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
prefix="$work/prefix"
consumer_build="$work/consumer-build"

# Values of the Gaea build that the consumer should share (compilers, build type, MPI launcher).
cache_get() {
  sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt" | head -n 1
}
cfg_args=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
for var in CMAKE_BUILD_TYPE CMAKE_C_COMPILER CMAKE_CXX_COMPILER MPI_HOME UCX_ROOT; do
  val=$(cache_get "$var")
  if [[ -n "$val" ]]; then cfg_args+=(-D"$var=$val"); fi
done
build_type=$(cache_get CMAKE_BUILD_TYPE)
mpiexec=$(cache_get MPIEXEC_EXECUTABLE)
if [[ -z "$mpiexec" || "$mpiexec" == *NOTFOUND ]]; then mpiexec=mpirun; fi

echo "== install $build_dir -> $prefix"
cmake --install "$build_dir" --prefix "$prefix" ${build_type:+--config "$build_type"}

config=$(find "$prefix" -name GaeaConfig.cmake -print -quit)
[[ -n "$config" ]] || { echo "error: GaeaConfig.cmake was not installed under $prefix" >&2; exit 1; }
echo "-- installed $config"

echo "== configure consumer"
cmake -S "$consumer_src" -B "$consumer_build" "${cfg_args[@]}"
gaea_dir=$(sed -n 's/^Gaea_DIR:[A-Z]*=//p' "$consumer_build/CMakeCache.txt")
if [[ "$gaea_dir" != "$prefix"/* ]]; then
  echo "error: consumer found Gaea at '$gaea_dir', not in the test prefix $prefix" >&2
  exit 1
fi

echo "== build consumer"
cmake --build "$consumer_build" --parallel "$(nproc 2>/dev/null || echo 2)" ${build_type:+--config "$build_type"}
exe=$(find "$consumer_build" -type f -name gaea-consumer -perm -u+x -print -quit)
[[ -n "$exe" ]] || { echo "error: gaea-consumer executable not found in $consumer_build" >&2; exit 1; }

echo "== run consumer on 2 ranks"
mpi_args=(--oversubscribe -np 2)
if [[ ${EUID:-$(id -u)} -eq 0 ]]; then mpi_args=(--allow-run-as-root "${mpi_args[@]}"); fi
export UCX_TLS="${UCX_TLS:-sm}"
out="$work/consumer.out"
timeout --kill-after=10 240 "$mpiexec" "${mpi_args[@]}" "$exe" 2>&1 | tee "$out"
for r in 0 1; do
  grep -q "rank $r of 2" "$out" || { echo "error: no output from rank $r" >&2; exit 1; }
done
echo "== package.find_package: OK"
