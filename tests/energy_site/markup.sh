#!/usr/bin/env bash
# Region markup for a site energy manager, end to end over 2 ranks: with GEOPM's launcher environment (GEOPM_CTL) and a
# fake libgeopm (GAEA_GEOPM_LIBRARY), gaea-info reports markup as the energy control, its waits
# enter and leave the region "gaea_wait" in pairs with the network hint, and Gaea's own DVFS is
# not used even when asked for (GAEA_DVFS=simulated). Then a library without geopm_prof_exit, a
# missing library and GAEA_ENERGY_MANAGER=own are each reported and leave Gaea's own DVFS in use.
#   markup.sh <mpirun> <gaea-info> <fake libgeopm> <fake libgeopm without geopm_prof_exit>
# The transport is the harness's UCX_TLS.
set -uo pipefail
mpirun=$1 info=$2 lib=$3 lib_no_exit=$4
fail() { echo "energy-markup: FAIL: $*"; exit 1; }

dir=$(mktemp -d /tmp/gaea-energy-markup.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
# Every run asks for the simulated DVFS actuator: used unless a manager takes over.
run() { "$mpirun" -np 2 -x GAEA_DVFS=simulated -x FAKE_GEOPM_LOG="$dir/calls.log" "$@" "$info" 2>&1; }

# 1. A manager present and the library complete: markup, no DVFS of Gaea's.
out=$(run -x GEOPM_CTL=process -x GAEA_GEOPM_LIBRARY="$lib" -x GAEA_REPORT="$dir/report.json")
status=$?
echo "$out" | grep -E '^(energy control|  (used|refused) +(markup|DVFS|throttle) )'
[[ $status -eq 0 ]] || fail "gaea-info exited $status: $out"
grep -Eq '^energy control \(rank 0\): markup: GEOPM$' <<<"$out" ||
  fail "gaea-info does not report markup as the energy control"
grep -Eq "^  used +markup +GEOPM manages the frequency: waits are marked as region 'gaea_wait'" \
  <<<"$out" || fail "the decision table does not show markup used"
grep -Eq '^  refused +DVFS +markup: GEOPM controls the frequency' <<<"$out" ||
  fail "the decision table does not say why Gaea's DVFS is not used"
python3 - "$dir/calls.log" "$dir/report.json" <<'PY' || fail "the wait regions or the report are wrong"
import collections, json, sys
calls = collections.defaultdict(list)
for line in open(sys.argv[1]):
    pid, what, *rest = line.split()
    calls[pid].append((what, rest))
assert len(calls) == 2, f"{len(calls)} processes called libgeopm, expected 2"
for pid, seq in calls.items():
    what, rest = seq[0]
    assert what == "region" and rest[0] == "gaea_wait", f"{pid}: first call {seq[0]}"
    assert int(rest[1], 16) == 4, f"{pid}: hint {rest[1]} is not GEOPM_REGION_HINT_NETWORK"
    rid, depth, entered = rest[2], 0, 0
    for what, rest in seq[1:]:
        assert rest == [rid], f"{pid}: {what} of region {rest}, registered {rid}"
        depth += 1 if what == "enter" else -1
        entered += what == "enter"
        assert depth in (0, 1), f"{pid}: {what} leaves the region depth at {depth}"
    assert depth == 0 and entered >= 1, f"{pid}: {entered} regions entered, depth {depth} at the end"
    print(f"pid {pid}: {entered} balanced gaea_wait regions")
r = json.load(open(sys.argv[2]))
m, d = r["energy_manager"], r["dvfs"]
print(f"report: energy control {m['mode']}, {m['regions_entered']} regions; DVFS {d['actuator']}, "
      f"{d['transitions']} transitions")
assert m["mode"] == "markup: GEOPM" and m["regions_entered"] >= 1
assert d["actuator"] == "none" and d["transitions"] == 0
PY

# refused <case> <the markup row's reason (ERE)> <run's arguments...>: gaea-info succeeds, its
# decision table refuses markup for that reason and Gaea's own DVFS is used; `out` keeps the output.
refused() {
  local what=$1 reason=$2
  shift 2
  out=$(run "$@")
  local status=$?
  [[ $status -eq 0 ]] || fail "gaea-info ($what) exited $status: $out"
  grep -Eq "^  refused +markup +$reason" <<<"$out" ||
    fail "the decision table does not give the reason ($what): $out"
  grep -Eq '^  used +DVFS +simulated' <<<"$out" || fail "Gaea's own DVFS is not used ($what)"
}

# 2. A library without geopm_prof_exit: refused, named, and Gaea's own DVFS as without GEOPM.
rm -f "$dir/calls.log"
refused "no geopm_prof_exit" ".*has no geopm_prof_exit" -x GEOPM_CTL=process \
  -x GAEA_GEOPM_LIBRARY="$lib_no_exit"
grep -Eq '^energy control \(rank 0\): own DVFS \(simulated\)' <<<"$out" ||
  fail "gaea-info does not report own DVFS"
[[ ! -s $dir/calls.log ]] || fail "a refused library was called: $(<"$dir/calls.log")"

# 3. No library at the named path: refused with the loader's reason, own DVFS.
refused "missing library" "cannot load GEOPM's library: .*missing/libgeopm.so.2" \
  -x GEOPM_CTL=process -x GAEA_GEOPM_LIBRARY="$dir/missing/libgeopm.so.2"

# 4. GAEA_ENERGY_MANAGER=own: Gaea's control although the manager and the library are there.
refused "own" "GAEA_ENERGY_MANAGER=own" -x GEOPM_CTL=process -x GAEA_GEOPM_LIBRARY="$lib" \
  -x GAEA_ENERGY_MANAGER=own
[[ ! -s $dir/calls.log ]] || fail "GAEA_ENERGY_MANAGER=own called the library"
echo "energy-markup: markup chosen and balanced, refusals reported, own control kept otherwise"
