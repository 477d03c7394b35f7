#!/usr/bin/env bash
# compare_python_get.sh [build-dir] [ranks]: the per-call cost of the Python binding against the
# C++ API — bench/get_bench (C++) and bench/python_get_bench.py (gaea.Array) side by side, rank 0
# getting 8 B and 1 MiB from rank 1, on the transports of UCX_TLS (default sm).
set -euo pipefail
build=${1:-build}
np=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
py=$(command -v /usr/bin/python3 || command -v python3)
export UCX_TLS=${UCX_TLS:-sm}
echo "== C++ (bench/get_bench), UCX_TLS=$UCX_TLS"
mpirun -np "$np" "$build/bench/get_bench" | head -3
echo "== Python (bench/python_get_bench.py)"
PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 mpirun -np "$np" "$py" \
  "$here/python_get_bench.py" | grep -v '^{'
