#!/usr/bin/env bash
# A job run by one user while another user of the same primary group probes its shared objects
# (cases/isolation.cmake): other_user.sh <gaea-hold> <ranks>. Needs root (to make the two users);
# exits 77 (skipped) without it. Passes when the probe reaches nothing and the job's values are
# unchanged; the transport is the harness's UCX_TLS.
set -uo pipefail
hold=$1 np=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $(id -u) -ne 0 ]]; then echo "isolation: skipped: needs root to make two users"; exit 77; fi
getent group gaea-iso >/dev/null || groupadd --system gaea-iso || exit 1
for u in gaea-iso-job gaea-iso-other; do
  id "$u" >/dev/null 2>&1 || useradd --system --no-create-home --gid gaea-iso \
    --shell /usr/sbin/nologin "$u" || exit 1
done
job_uid=$(id -u gaea-iso-job)
# Everything the job user runs lives in a directory it can reach (the build tree may not be).
dir=$(mktemp -d /tmp/gaea-iso.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir" && cp "$hold" "$dir/gaea-hold" && mkdir "$dir/run" "$dir/home" &&
  chown gaea-iso-job:gaea-iso "$dir/run" "$dir/home" || exit 1
as_job=(setpriv --reuid=gaea-iso-job --regid=gaea-iso --init-groups env HOME="$dir/home"
        TMPDIR="$dir/home" OMPI_ALLOW_RUN_AS_ROOT= OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=)
"${as_job[@]}" mpirun -np "$np" "$dir/gaea-hold" "$dir/run" &
job=$!
for ((i = 0; i < 300; i++)); do
  [[ -e "$dir/run/ready" ]] || ! kill -0 "$job" 2>/dev/null && break
  sleep 0.1
done
if [[ ! -e "$dir/run/ready" ]]; then
  echo "isolation: the job did not get ready"; kill "$job" 2>/dev/null; wait "$job"; exit 1
fi
pids=$(pgrep -u gaea-iso-job -f "$dir/gaea-hold" | grep -v "^$job\$" | tr '\n' ' ')
echo "isolation: ranks of uid $job_uid: $pids"
setpriv --reuid=gaea-iso-other --regid=gaea-iso --init-groups /usr/bin/python3 "$here/probe.py" \
  "$job_uid" $pids
probe=$?
touch "$dir/run/done"
wait "$job"
status=$?
echo "isolation: probe exit $probe, job exit $status"
[[ $probe -eq 0 && $status -eq 0 ]]
