#!/usr/bin/env bash
# Package test of the Lmod modulefile (ctest: package.modulefile): with Lmod,
# `module use <prefix>/share/modulefiles` and `module load gaea`, then checks that
#  - GAEA_ROOT is the prefix, and CMAKE_PREFIX_PATH, PKG_CONFIG_PATH and LD_LIBRARY_PATH start
#    with the prefix's directories;
#  - gaea-info and gaea-config on PATH are the prefix's, and `gaea-info --help` exits 0;
#  - `pkg-config --modversion gaea` prints the version of the modulefile (<version>.lua) and
#    `gaea-config --version` the same;
#  - `module unload gaea` removes GAEA_ROOT.
#   usage: modulefile.sh <install-prefix>
#          modulefile.sh --build <gaea-build-dir>
#   (--build: installs that tree's library component into a temporary prefix, moves it, checks
#   that it has gaea-info, and then the above; needs a complete build with GAEA_BUILD_APPS=ON.)
# Exits 77 (skipped) when Lmod is not installed (Debian: apt-get install lmod) or, given a
# prefix, when it has no modulefile (with --build that is an error).
set -euo pipefail

usage() {
  echo "usage: $0 <install-prefix> | --build <gaea-build-dir>" >&2
  exit 2
}
lmod_init=${GAEA_LMOD_INIT:-/usr/share/lmod/lmod/init/bash}
if [[ ! -f "$lmod_init" ]]; then
  echo "skip: Lmod is not installed ($lmod_init not found; Debian: apt-get install lmod)"
  exit 77
fi
if [[ "${1:-}" == "--build" ]]; then
  [[ $# -eq 2 ]] || usage
  build_dir=$(cd "$2" && pwd)
  [[ -f "$build_dir/CMakeCache.txt" ]] ||
    { echo "error: $build_dir is not a build tree" >&2; exit 2; }
  work=$(mktemp -d "${TMPDIR:-/tmp}/gaea-modulefile.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt" | head -n 1)
  # Installed, then moved: the modulefile must find the prefix from its own path.
  cmake --install "$build_dir" --prefix "$work/staging" --component library \
    ${build_type:+--config "$build_type"} >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; echo "error: cmake --install failed" >&2; exit 1; }
  mv "$work/staging" "$work/prefix"
  prefix=$(cd "$work/prefix" && pwd -P)
  echo "-- installed $build_dir (component library), moved to $prefix"
  [[ -x "$prefix/bin/gaea-info" ]] ||
    { echo "error: the library component did not install gaea-info" >&2; exit 1; }
  ls "$prefix"/share/modulefiles/gaea/*.lua >/dev/null 2>&1 ||
    { echo "error: no share/modulefiles/gaea/*.lua in the library component" >&2; exit 1; }
else
  [[ $# -eq 1 ]] || usage
  prefix=$(cd "$1" && pwd -P)
fi
modroot="$prefix/share/modulefiles"
modfile=$(find "$modroot/gaea" -maxdepth 1 -name '*.lua' -print -quit 2>/dev/null || true)
if [[ -z "$modfile" ]]; then
  echo "skip: no modulefile under $modroot/gaea (an install older than the modulefile?)"
  exit 77
fi
version=$(basename "$modfile" .lua)

fail() {
  echo "error: $*" >&2
  exit 1
}

# A clean Lmod state: no modules of the caller's shell, no other Gaea on the search paths.
unset LOADEDMODULES _LMFILES_ MODULEPATH GAEA_ROOT
for v in $(compgen -e | grep -E '^(__LMOD|_ModuleTable)' || true); do unset "$v"; done
# Lmod's init script reads unset variables: not under set -u.
set +u
# shellcheck disable=SC1090
source "$lmod_init"
module use "$modroot"
module load gaea || fail "module load gaea failed"
set -u

echo "== module load gaea ($modfile)"
[[ "${GAEA_ROOT:-}" == "$prefix" ]] || fail "GAEA_ROOT is '${GAEA_ROOT:-}', not $prefix"
echo "-- GAEA_ROOT=$GAEA_ROOT"
[[ "${CMAKE_PREFIX_PATH%%:*}" == "$prefix" ]] ||
  fail "CMAKE_PREFIX_PATH does not start with $prefix: '${CMAKE_PREFIX_PATH:-}'"
[[ "${PKG_CONFIG_PATH%%:*}" == "$prefix"/*/pkgconfig ]] ||
  fail "PKG_CONFIG_PATH does not start with $prefix/<libdir>/pkgconfig: '${PKG_CONFIG_PATH:-}'"
[[ "${LD_LIBRARY_PATH%%:*}" == "$prefix"/* ]] ||
  fail "LD_LIBRARY_PATH does not start with $prefix: '${LD_LIBRARY_PATH:-}'"

for prog in gaea-info gaea-config; do
  found=$(command -v "$prog" || true)
  [[ "$found" == "$prefix"/* ]] || fail "$prog on PATH is '$found', not the prefix's"
  echo "-- $prog: $found"
done
out=$(gaea-info --help 2>&1) || { echo "$out"; fail "gaea-info --help exited with $?"; }
grep -qi "usage" <<<"$out" || { echo "$out"; fail "gaea-info --help printed no usage"; }
echo "-- gaea-info --help: exit 0"

pc_version=$(pkg-config --modversion gaea) || fail "pkg-config does not find gaea"
[[ "$pc_version" == "$version" ]] ||
  fail "pkg-config --modversion gaea is '$pc_version', the modulefile is $version"
cfg_version=$(gaea-config --version)
[[ "$cfg_version" == "$version" ]] || fail "gaea-config --version is '$cfg_version', not $version"
echo "-- pkg-config --modversion gaea: $pc_version; gaea-config --version: $cfg_version"

set +u
module unload gaea
set -u
[[ -z "${GAEA_ROOT:-}" ]] || fail "module unload gaea left GAEA_ROOT=$GAEA_ROOT"
echo "-- module unload gaea: GAEA_ROOT unset"
echo "== package.modulefile: OK"
