#!/usr/bin/env bash
# Runs `mpirun -np <ranks> <program> [args...]` with a 4 MiB /dev/shm of its own (a private mount
# namespace; exit 77 without the privilege), Open MPI's own shared memory kept in the working
# directory so that only Gaea's needs meet the small /dev/shm (cases/limits.cmake).
set -uo pipefail
np=$1
shift
if [[ -z "${GAEA_LIMITS_IN_NS:-}" ]]; then
  unshare --mount --propagation private true 2>/dev/null ||
    { echo "limits: skipped: a private /dev/shm needs a mount namespace (root)"; exit 77; }
  GAEA_LIMITS_IN_NS=1 exec unshare --mount --propagation private "$0" "$np" "$@"
fi
mount -t tmpfs -o size=4m tmpfs /dev/shm || { echo "limits: skipped: cannot mount"; exit 77; }
export OMPI_MCA_btl_vader_backing_directory=$PWD
exec "${GAEA_MPIEXEC:-mpirun}" -np "$np" --tag-output "$@"
