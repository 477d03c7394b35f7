#!/usr/bin/env bash
# Package test (ctest: package.find_package): installs the "library" component of a built Gaea
# tree into a temporary prefix and moves it elsewhere (the package must be relocatable), then
#  1. builds tests/package/consumer against the moved prefix with find_package(Gaea) (HDF5, MPI,
#     UCX, TBB, hwloc found by find_dependency) and runs it on 2 ranks, and a GA C program
#     (tests/ga_compat/core.c) linked to gaea::ga_compat;
#  2. builds the README's first program with a Makefile and `pkg-config --cflags --libs gaea`,
#     and with `gaea-config --cflags --libs`, and runs each on 2 ranks (it prints the result the
#     README shows);
#  3. builds every GA C program of tests/ga_compat with mpicc and `pkg-config --cflags --libs
#     gaea-ga` and runs each on 2 ranks, and (when built with Fortran) every GA Fortran program
#     (tests/ga_compat/fortran_*) with mpif90 and gaea-ga-fortran / gaea-ga-fortran-i8;
#  4. checks that no installed header is internal-only, that the library component installs no
#     program but gaea-config and gaea-info, and that the CMake package names no absolute
#     library path.
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
# Under set -e a failing step would end the test silently: name the line and the command.
trap 'echo "error: package test step failed (line $LINENO): $BASH_COMMAND" >&2' ERR
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

echo "== install $build_dir (component library) -> $work/staging, then moved to $prefix"
# The install log (hundreds of lines) is shown only on failure, so that a later failure's output
# is what a truncated CI log keeps.
cmake --install "$build_dir" --prefix "$work/staging" --component library \
  ${build_type:+--config "$build_type"} >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; echo "error: cmake --install failed" >&2; exit 1; }
mv "$work/staging" "$prefix"

config=$(find "$prefix" -name GaeaConfig.cmake -print -quit)
[[ -n "$config" ]] || { echo "error: GaeaConfig.cmake was not installed under $prefix" >&2; exit 1; }
echo "-- installed $config"

echo "== configure consumer"
cmake -S "$consumer_src" -B "$consumer_build" "${cfg_args[@]}" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "error: configuring the consumer failed" >&2; exit 1; }
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
ga_exe=$(find "$consumer_build" -type f -name gaea-ga-consumer -perm -u+x -print -quit)
[[ -n "$ga_exe" ]] || { echo "error: gaea-ga-consumer (GA C program) not built" >&2; exit 1; }
timeout --kill-after=10 180 "$mpiexec" "${mpi_args[@]}" "$ga_exe" >"$out" 2>&1 ||
  { cat "$out"; echo "error: the GA C program built with CMake (gaea::ga_compat) failed" >&2; exit 1; }
echo "-- GA C program built with find_package(Gaea) + gaea::ga_compat: passed on 2 ranks"
echo "== the README's first program, built by a Makefile with pkg-config and with gaea-config"
mk="$work/makefile-project"
mkdir -p "$mk"
awk '/^```cpp/ {f = 1; next} /^```/ {if (f) exit} f' "$source_dir/README.md" >"$mk/first.cpp"
grep -q "gaea::run_main" "$mk/first.cpp" || { echo "error: no first program in README.md" >&2; exit 1; }
# The README's program prints its result on rank 0; one more line per rank proves that every rank
# ran to the end.
sed -i 's|^    return 0;$|    std::printf("first program done\\n");\n    return 0;|' "$mk/first.cpp"
sed -i '1i #include <cstdio>' "$mk/first.cpp"
grep -q "first program done" "$mk/first.cpp" || { echo "error: README program changed shape" >&2; exit 1; }
cxx=$(cache_get CMAKE_CXX_COMPILER)
printf 'first: first.cpp\n\t$(CXX) -O1 -o $@ $< $(shell pkg-config --cflags --libs gaea)\n' \
  >"$mk/Makefile"
printf 'first2: first.cpp\n\t$(CXX) -O1 -o $@ $< $(shell %s --cflags --libs)\n' \
  "$prefix/bin/gaea-config" >"$mk/Makefile.config"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
  make -C "$mk" CXX="${cxx:-c++}"
make -C "$mk" -f Makefile.config CXX="${cxx:-c++}"
for exe in "$mk/first" "$mk/first2"; do
  timeout --kill-after=10 120 "$mpiexec" "${mpi_args[@]}" "$exe" >"$out" 2>&1 ||
    { cat "$out"; echo "error: $exe failed" >&2; exit 1; }
  [[ $(grep -c "first program done" "$out") -eq 2 ]] ||
    { cat "$out"; echo "error: $exe did not finish on both ranks" >&2; exit 1; }
  [[ $(grep -cF "sum of A[0:99, 0:99] = 20000 (expected 20000)" "$out") -eq 1 ]] ||
    { cat "$out"; echo "error: $exe did not print the README's result once" >&2; exit 1; }
done
version=$("$prefix/bin/gaea-config" --version)
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "error: gaea-config --version: '$version'" >&2; exit 1; }
# Captured first: `grep -q` would close the pipe early, and pipefail would count the SIGPIPE.
config_text=$("$prefix/bin/gaea-config" --config)
grep -q "^Gaea $version" <<<"$config_text" || { echo "error: gaea-config --config" >&2; exit 1; }

echo "== the GA C programs of tests/ga_compat, built with mpicc and pkg-config gaea-ga"
# As a GA user would: unmodified C sources, the C compiler wrapper, flags from gaea-ga.pc.
mpicc=$(cache_get MPI_C_COMPILER)
if [[ -z "$mpicc" || "$mpicc" == *NOTFOUND ]]; then mpicc=mpicc; fi
ga_flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
             pkg-config --cflags --libs gaea-ga)
ga_inc=$(tr ' ' '\n' <<<"$ga_flags" | sed -n 's|^-I\(.*/include/gaea-ga\)$|\1|p' | head -n 1)
[[ -n "$ga_inc" && "$(realpath "$ga_inc")" == "$(realpath "$prefix/include/gaea-ga")" ]] ||
  { echo "error: gaea-ga.pc does not point at $prefix/include/gaea-ga: $ga_flags" >&2; exit 1; }
for src in "$source_dir"/tests/ga_compat/*.c; do
  name=$(basename "$src" .c)
  # shellcheck disable=SC2086 # ga_flags is a list of flags
  "$mpicc" -std=c11 -O1 -Wall -Werror -o "$work/ga_$name" "$src" $ga_flags
  timeout --kill-after=10 180 "$mpiexec" "${mpi_args[@]}" "$work/ga_$name" >"$out" 2>&1 ||
    { cat "$out"; echo "error: GA program $name failed" >&2; exit 1; }
  echo "-- GA program $name: built with pkg-config gaea-ga, passed on 2 ranks"
done

echo "== the GA Fortran programs of tests/ga_compat, built with mpif90 and pkg-config gaea-ga-fortran(-i8)"
# Only when the build had a Fortran compiler (it then installs gaea-ga-fortran.pc).
if [[ -f "$prefix/lib/pkgconfig/gaea-ga-fortran.pc" ]]; then
  grep -q "gaea::ga_compat_fortran_i8" "$prefix"/lib/cmake/Gaea/GaeaTargets.cmake ||
    { echo "error: the CMake package has no gaea::ga_compat_fortran_i8" >&2; exit 1; }
  mpif90=$(cache_get MPI_Fortran_COMPILER)
  if [[ -z "$mpif90" || "$mpif90" == *NOTFOUND ]]; then mpif90=mpif90; fi
  for pc in gaea-ga-fortran gaea-ga-fortran-i8; do
    f_flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
                pkg-config --cflags --libs "$pc")
    for src in "$source_dir"/tests/ga_compat/fortran_*.F*; do
      name=$(basename "${src%.*}")
      defs=()
      if [[ "$pc" == *-i8 ]]; then defs=(-DGAEA_TEST_I8=1); fi
      # shellcheck disable=SC2086 # f_flags is a list of flags
      "$mpif90" -O1 -fallow-argument-mismatch "${defs[@]}" -o "$work/$name-$pc" "$src" $f_flags \
        >"$work/compile.log" 2>&1 ||
        { cat "$work/compile.log"; echo "error: mpif90 could not build $name ($pc)" >&2; exit 1; }
      timeout --kill-after=10 180 "$mpiexec" "${mpi_args[@]}" "$work/$name-$pc" >"$out" 2>&1 ||
        { cat "$out"; echo "error: GA Fortran program $name ($pc) failed" >&2; exit 1; }
      echo "-- GA Fortran program $name: built with mpif90 and pkg-config $pc, passed on 2 ranks"
    done
  done
else
  echo "-- no gaea-ga-fortran.pc (built without a Fortran compiler): skipped"
fi

echo "== installed headers are the API; the library component's programs: gaea-config, gaea-info"
internal=$(grep -rlE "users do not need|--- internal ---|Internal \(not API\)" \
             "$prefix/include/gaea" --include='*.hpp' | grep -v '/detail/' || true)
if [[ -n "$internal" ]]; then
  echo "error: internal-only headers installed outside detail/:" >&2
  echo "$internal" >&2
  exit 1
fi
extra=$(ls "$prefix/bin" | grep -vE '^gaea-(config|info)$' || true)
if [[ -n "$extra" ]]; then
  echo "error: the library component installed programs: $extra" >&2
  exit 1
fi
if grep -rqE "/usr/lib[^\"]*\.(so|a)\b" "$prefix/lib/cmake/Gaea"; then
  echo "error: an absolute library path in the CMake package:" >&2
  grep -rnE "/usr/lib[^\"]*\.(so|a)\b" "$prefix/lib/cmake/Gaea" >&2
  exit 1
fi
echo "== package.find_package: OK"
