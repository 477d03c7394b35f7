#!/usr/bin/env bash
# Installs the Debian 12 (bookworm) packages a use of Gaea needs, and only those.
# Does nothing at all (no apt-get update) when every package is already installed.
#   scripts/install-deps.sh [what...] [--check]
# what (several may be given; default --all):
#   --library  build and install the library (compilers, CMake, MPI, UCX, TBB, hwloc, Eigen,
#              HDF5, nlohmann-json, OpenBLAS and LAPACKE, OTF2, ScaLAPACK, gfortran for GA's Fortran API)
#   --apps     the library, and the mini-apps and tools (CLI11, libint2, basis sets)
#   --tests    the library, apps, plots, python, slurm and the test suite (Catch2, clang-format, otf2-tools,
#              iproute2 for the emulated cluster, doxygen for the API reference check, lmod for the
#              modulefile's test); what scripts/build.sh installs
#   --bench    the library, apps, plots, and the peers the benchmarks compare against (Global
#              Arrays, ARMCI-MPI, NWChem, Psi4)
#   --plots    the library, and python3-matplotlib and python3-h5py for tools/plot/gaea_plot.py
#   --python   the library, and the Python package `gaea` (pybind11, NumPy) with its tests
#              (pytest, mpi4py); docs/python.md
#   --slurm    the library, and Slurm and munge for `scripts/cluster.sh up N --slurm` (an emulated
#              Slurm cluster; no service is enabled or configured by this script)
#   --all      everything above
#   --check    only report what is missing; exit 1 if anything is
#   --list     print the packages of the selection and exit
set -euo pipefail

library=(
  build-essential cmake pkg-config
  libopenmpi-dev openmpi-bin
  libucx-dev libibverbs-dev rdma-core
  libtbb-dev libhwloc-dev libeigen3-dev nlohmann-json3-dev
  libopenblas-dev libopenblas0-pthread liblapacke-dev
  libhdf5-openmpi-dev libotf2-trace-dev libscalapack-openmpi-dev gfortran
)
apps=(libcli11-dev libint2-dev nwchem-data)
tests=(catch2 clang-format iproute2 git otf2-tools doxygen lmod)
plots=(python3-matplotlib python3-h5py)
python=(pybind11-dev python3-dev python3-numpy python3-pytest python3-mpi4py)
slurm=(slurm-wlm munge)
bench=(ucx-utils libglobalarrays-dev libarmci-mpi-dev nwchem psi4)

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }

want_apps=0 want_tests=0 want_bench=0 want_plots=0 want_python=0 want_slurm=0 check_only=0 list_only=0 any=0
for a in "$@"; do
  case "$a" in
    --library) any=1 ;;
    --apps) any=1; want_apps=1 ;;
    --tests) any=1; want_apps=1; want_tests=1; want_plots=1; want_python=1; want_slurm=1 ;;
    --bench) any=1; want_apps=1; want_bench=1; want_plots=1 ;;
    --plots) any=1; want_plots=1 ;;
    --python) any=1; want_python=1 ;;
    --slurm) any=1; want_slurm=1 ;;
    --all) any=1; want_apps=1; want_tests=1; want_bench=1; want_plots=1; want_python=1; want_slurm=1 ;;
    --check) check_only=1 ;;
    --list) list_only=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-deps.sh: error: unknown argument '$a'" >&2; usage >&2; exit 2 ;;
  esac
done
if [[ $any -eq 0 ]]; then want_apps=1; want_tests=1; want_bench=1; want_plots=1; want_python=1; want_slurm=1; fi

packages=("${library[@]}")
if [[ $want_apps -eq 1 ]]; then packages+=("${apps[@]}"); fi
if [[ $want_tests -eq 1 ]]; then packages+=("${tests[@]}"); fi
if [[ $want_bench -eq 1 ]]; then packages+=("${bench[@]}"); fi
if [[ $want_plots -eq 1 ]]; then packages+=("${plots[@]}"); fi
if [[ $want_python -eq 1 ]]; then packages+=("${python[@]}"); fi
if [[ $want_slurm -eq 1 ]]; then packages+=("${slurm[@]}"); fi

if [[ $list_only -eq 1 ]]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps.sh: dpkg-query not found; this script supports Debian 12 only." >&2
  echo "Install the equivalents of: ${packages[*]}" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps.sh: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps.sh: missing packages: ${missing[*]}"
if [[ $check_only -eq 1 ]]; then
  exit 1
fi

if [[ ${EUID:-$(id -u)} -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  echo "install-deps.sh: not running as root; using sudo to install them"
  as_root=(sudo)
else
  echo "install-deps.sh: not running as root and sudo is not available." >&2
  echo "Run as root:  apt-get update && apt-get install --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
set -x
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
