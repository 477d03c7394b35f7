#!/usr/bin/env bash
# One GA C benchmark source, two Global Arrays: Debian's GA 5.8.2 (ARMCI-MPI) and Gaea's GA C API
# (framework/ga_compat), plus Gaea's native C++ API for the overhead of the compat layer.
# Programs (bench/reference, built twice: <prog> against GA, <prog>_gaea against Gaea):
#   ga_rma_sweep     get / put+fence latency and bandwidth, 8 B .. 1 MiB   (native: get_bench --sweep)
#   ga_strided_bench strided 2-D get/put, accumulate, non-blocking gets   (native: ga_strided)
#   ga_read_inc_bench NGA_Read_inc with the owner idle / computing ([PGAS-BGQ Fig. 10])
# ga-api-yield: the GA-API build of the strided and read_inc programs with Open MPI yielding in
# blocking MPI calls (OMPI_MCA_mpi_yield_when_idle=1).
# Launches are interleaved (GA, GA API, native, GA, …); the table gives medians over launches of
# each program's own median, the machine load before and after, and ratios against GA.
#   bench/compare_ga_api.sh [build-dir] [launches=3] [out-dir=bench/out/<date>-ga-api]
# Environment: UCX_TLS for Gaea (default sm), RANKS for read_inc (default 4).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=ga_reference_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/ga_reference_common.sh"
build=${1:-build}
launches=${2:-3}
out=${3:-$ga_ref_root/bench/out/$(date -u +%Y%m%d-%H%M%S)-ga-api}
ranks=${RANKS:-4}
ga_ref_setup "$build" "$out" ga_rma_sweep ga_strided_bench ga_read_inc_bench
run() { ga_ref_run "$@"; }  # run <config> <np> <program> [args…]
sizes=8,64,512,4KiB,32KiB,256KiB,1MiB
for ((launch = 1; launch <= launches; launch++)); do
  echo "== launch $launch of $launches (load $(cut -d' ' -f1 /proc/loadavg))"
  run ga 2 "$ref/ga_rma_sweep" --sizes "$sizes" --reps 5
  run ga-api 2 "$ref/ga_rma_sweep_gaea" --sizes "$sizes" --reps 5
  run native 2 "$build/bench/get_bench" --sweep --sizes "$sizes" --reps 5
  run ga 2 "$ref/ga_strided_bench" --quick
  run ga-api 2 "$ref/ga_strided_bench_gaea" --quick
  run native 2 "$build/bench/ga_strided" --quick
  run ga "$ranks" "$ref/ga_read_inc_bench" --reps 3
  run ga-api "$ranks" "$ref/ga_read_inc_bench_gaea" --reps 3
  # The GA programs wait in blocking MPI calls (MPI_Allreduce, MPI_Test loops) that spin: on a
  # full node that takes the CPU from the owner's progress thread. The same binary with Open
  # MPI yielding while it waits:
  OMPI_MCA_mpi_yield_when_idle=1 run ga-api-yield 2 "$ref/ga_strided_bench_gaea" --quick
  OMPI_MCA_mpi_yield_when_idle=1 run ga-api-yield "$ranks" "$ref/ga_read_inc_bench_gaea" --reps 3
done
load_after=$(ga_ref_load)

python3 "$ga_ref_root/bench/ga_api_summary.py" "$jsonl" "$launches" "$load_before" "$load_after" "$UCX_TLS" |
  tee "$out/summary.md"
echo "(raw JSON: $jsonl)"
