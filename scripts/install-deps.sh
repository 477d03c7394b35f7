#!/usr/bin/env bash
# Installs the Debian 12 (bookworm) packages Gaea's build, tests and benchmarks need.
# Does nothing at all (no apt-get update) when every package is already installed.
#   scripts/install-deps.sh          install what is missing (as root, or via sudo)
#   scripts/install-deps.sh --check  only report; exit 1 if anything is missing
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libopenmpi-dev openmpi-bin
  libucx-dev ucx-utils libibverbs-dev rdma-core
  libtbb-dev libhwloc-dev libeigen3-dev
  catch2 libcli11-dev libfmt-dev nlohmann-json3-dev
  libhdf5-openmpi-dev
  libglobalarrays-dev libarmci-mpi-dev libscalapack-openmpi-dev gfortran
  libint2-dev nwchem-data nwchem
)

check_only=0
case "${1:-}" in
  "") ;;
  --check) check_only=1 ;;
  -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
  *) echo "install-deps.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

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
