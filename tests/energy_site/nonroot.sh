#!/usr/bin/env bash
# Issue 42's done-when, as a user who is not root: with a fake msr-safe tree (device files and
# allow-list under GAEA_SYSFS_ROOT), gaea-info must report the msr-safe throttle and meter it
# uses, and a 2-rank run must record its throttle transitions through the device; then, with a
# fake GEOPM service (fake_geopm.sh as geopmread/geopmwrite, GAEA_GEOPM_BIN_DIR), the same for
# the GEOPM DVFS backend and meter.
#   nonroot.sh <mpirun> <gaea-info> <gaea-site-run> <msr-safe|geopm>   (which half to run)
# Runs the job as uid nobody (65534) through setpriv; needs root to switch, exits 77 (skipped)
# without it. The transport is the harness's UCX_TLS.
set -uo pipefail
mpirun=$1 info=$2 run=$3 phase=$4
[[ $phase == msr-safe || $phase == geopm ]] || { echo "energy-site: phase '$phase'?"; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
user=65534
if [[ $(id -u) -ne 0 ]]; then echo "energy-site: skipped: needs root to switch to uid $user"; exit 77; fi
fail() { echo "energy-site: FAIL: $*"; exit 1; }

dir=$(mktemp -d /tmp/gaea-energy-site.XXXXXX) || exit 1
ticker=
cleanup() { [[ -n $ticker ]] && kill "$ticker" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
chmod 755 "$dir" && mkdir "$dir/home" "$dir/root" || exit 1
cpus=$(nproc --all)
python3 "$here/make_msr_safe_tree.py" "$dir/root" "$cpus" || fail "cannot make the fake tree"
chown -R "$user:$user" "$dir/home" "$dir/root" || exit 1
# The package energy counter advances while the job runs, as the hardware's does.
setpriv --reuid=$user --regid=$user --clear-groups \
  /usr/bin/python3 "$here/msr_ticker.py" "$dir/root/dev/cpu/0/msr_safe" &
ticker=$!

as_user=(setpriv --reuid=$user --regid=$user --clear-groups env HOME="$dir/home"
         TMPDIR="$dir/home" OMPI_ALLOW_RUN_AS_ROOT= OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=
         GAEA_SYSFS_ROOT="$dir/root")
[[ $("${as_user[@]}" id -u) == "$user" ]] || fail "setpriv did not switch to uid $user"

if [[ $phase == msr-safe ]]; then
# As under Slurm (for the ranks only: mpirun itself must not take this for an allocation).
slurm=(-x SLURM_JOB_ID=4242)
out=$("${as_user[@]}" "$mpirun" -np 2 "${slurm[@]}" "$info" 2>&1)
status=$?
echo "$out" | sed -n '/^DVFS (rank 0)/,$p'
[[ $status -eq 0 ]] || fail "gaea-info exited $status: $out"
grep -Eq '^  used +throttle +msr-safe-clockmod' <<<"$out" ||
  fail "gaea-info does not report the msr-safe throttle as used"
grep -Eq '^  used +meter +msr-safe-rapl \(measured\)' <<<"$out" ||
  fail "gaea-info does not report the msr-safe-rapl meter as used"
grep -Eq "^  note +slurm +Slurm job 4242: sacct's ConsumedEnergy is the node's" <<<"$out" ||
  fail "gaea-info does not say which energy figure is Slurm's"

out=$("${as_user[@]}" GAEA_REPORT="$dir/home/report.json" "$mpirun" -np 2 "${slurm[@]}" "$run" \
        msr-safe-clockmod - 2>&1)
status=$?
echo "$out" | grep '^rank '
[[ $status -eq 0 ]] || fail "gaea-site-run exited $status: $out"
python3 - "$dir/home/report.json" <<'PY' || fail "the run's report does not show the msr-safe backends at work"
import json, sys
r = json.load(open(sys.argv[1]))
backend = r["throttle_choice"]["backend"]
transitions = r["sections"]["throttle"]["transitions"]
source = r["energy"]["source"]
print(f"report: throttle {backend}, {transitions} transitions; energy {r['energy']['joules']:.3f} J "
      f"from {source} ({r['energy']['kind']})")
# Every CPU goes to T5 and back to T0: two writes per CPU, made by whichever rank changed the
# node's outcome (the arbiter), so at least two in all; none when the device is not used.
ok = backend == "msr-safe-clockmod" and transitions >= 2 and source == "msr-safe-rapl"
ok = ok and r["energy"].get("slurm", "").startswith("Slurm job 4242: sacct's ConsumedEnergy")
sys.exit(0 if ok else 1)
PY
# At the end every register is back at its original value (T0).
python3 - "$dir/root" "$cpus" <<'PY' || fail "a clock-modulation register was not restored"
import struct, sys
for cpu in range(int(sys.argv[2])):
    with open(f"{sys.argv[1]}/dev/cpu/{cpu}/msr_safe", "rb") as f:
        f.seek(0x19A)
        if struct.unpack("<Q", f.read(8))[0] != 0:
            sys.exit(1)
PY
echo "energy-site: msr-safe throttle and meter used and recorded as uid $user"
exit 0
fi

# GEOPM: the service serves CPU_ENERGY and lets the user write each CPU's frequency control.
geopm="$dir/geopm"
mkdir -p "$geopm/bin" "$geopm/signals" "$geopm/controls" || exit 1
ln -s "$here/fake_geopm.sh" "$geopm/bin/geopmread" && ln -s "$here/fake_geopm.sh" "$geopm/bin/geopmwrite"
echo 100 >"$geopm/signals/CPU_ENERGY@board@0"
for ((cpu = 0; cpu < cpus; cpu++)); do
  echo 1000000000 >"$geopm/signals/CPU_FREQUENCY_MIN_AVAIL@cpu@$cpu"
  echo 3000000000 >"$geopm/signals/CPU_FREQUENCY_MAX_AVAIL@cpu@$cpu"
  echo 3000000000 >"$geopm/signals/CPU_FREQUENCY_MAX_CONTROL@cpu@$cpu"
  touch "$geopm/controls/CPU_FREQUENCY_MAX_CONTROL@cpu@$cpu"
done
chown -R "$user:$user" "$geopm" || exit 1
as_geopm=("${as_user[@]}" GAEA_GEOPM_BIN_DIR="$geopm/bin" FAKE_GEOPM_DIR="$geopm"
          GAEA_ENERGY_METER=geopm)
out=$("${as_geopm[@]}" "$mpirun" -np 2 "$info" 2>&1)
status=$?
echo "$out" | grep -E '^  (used|refused) +(DVFS|meter) '
[[ $status -eq 0 ]] || fail "gaea-info (GEOPM) exited $status: $out"
grep -Eq '^  used +DVFS +geopm' <<<"$out" || fail "gaea-info does not report the GEOPM DVFS backend"
grep -Eq '^  used +meter +geopm \(measured\)' <<<"$out" ||
  fail "gaea-info does not report the GEOPM meter"
: >"$geopm/writes.log"
out=$("${as_geopm[@]}" GAEA_REPORT="$dir/home/report-geopm.json" "$mpirun" -np 2 "$run" \
        msr-safe-clockmod geopm 2>&1)
status=$?
echo "$out" | grep '^rank '
[[ $status -eq 0 ]] || fail "gaea-site-run (GEOPM) exited $status: $out"
python3 - "$dir/home/report-geopm.json" "$geopm/writes.log" <<'PY' || fail "the GEOPM run did not go through geopmwrite"
import json, sys
r = json.load(open(sys.argv[1]))
writes = open(sys.argv[2]).read().split("\n")
low = [w for w in writes if w.startswith("CPU_FREQUENCY_MAX_CONTROL cpu ") and w.endswith(" 1000000000")]
print(f"report: DVFS {r['dvfs']['actuator']}, {r['dvfs']['transitions']} transitions; energy from "
      f"{r['energy']['source']}; geopmwrite set the low level {len(low)} times")
# Every CPU lowered (by whichever rank changed the node's outcome) and raised again.
ok = r["dvfs"]["actuator"] == "geopm" and r["dvfs"]["transitions"] >= 2 and len(low) >= 1
ok = ok and r["energy"]["source"] == "geopm"
sys.exit(0 if ok else 1)
PY
for ((cpu = 0; cpu < cpus; cpu++)); do
  [[ $(<"$geopm/signals/CPU_FREQUENCY_MAX_CONTROL@cpu@$cpu") == 3000000000 ]] ||
    fail "CPU $cpu's frequency control was not restored"
done
echo "energy-site: GEOPM DVFS and meter used and recorded as uid $user"
