#!/usr/bin/env bash
# srun_check.sh <cluster.sh> [--expect REGEX]... -- <srun args...>
# Runs `cluster.sh srun <srun args...>` on the emulated Slurm cluster named by GAEA_CLUSTER_NAME
# (brought up by the test's fixture). Exits 77 with the reason when this machine cannot host it
# (not root, Slurm or munge not installed, the cluster not up); otherwise passes only when srun
# exits 0 and its output (stdout and stderr) matches every extended regular expression.
set -uo pipefail
cluster=$1
shift
expect=()
while [[ $# -gt 0 && $1 != -- ]]; do
  [[ $1 == --expect && $# -ge 2 ]] || { echo "srun_check.sh: usage: <cluster.sh> [--expect REGEX]... -- <srun args...>"; exit 2; }
  expect+=("$2")
  shift 2
done
[[ ${1:-} == -- ]] || { echo "srun_check.sh: no '--' before the srun arguments"; exit 2; }
shift
"$cluster" check --slurm >/dev/null || exit 77  # check says why
status=$("$cluster" status 2>/dev/null)
if ! grep -q '^cluster: .*slurm=yes' <<<"$status"; then
  echo "srun_check.sh: no Slurm cluster '${GAEA_CLUSTER_NAME:-gaea}' is up (its fixture's 'up' failed or was skipped)"
  exit 77
fi
out=$("$cluster" srun "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[[ $rc -eq 0 ]] || { echo "srun_check.sh: srun exited $rc"; exit 1; }
for re in "${expect[@]}"; do
  printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "srun_check.sh: the output does not match: $re"; exit 1; }
done
echo "srun_check.sh: srun exited 0 and all ${#expect[@]} patterns were found"
