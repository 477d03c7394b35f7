#!/usr/bin/env bash
# Runs one gaea-scf case and checks its outcome (used by the scf.* ctest entries).
#   run_case.sh <expected-exit> <stderr-regex|-> <output-file|-> <file-expected: yes|no> -- cmd...
# Passes when the command exits with <expected-exit>, its stderr matches <stderr-regex> (unless
# "-"), and <output-file> exists (yes: an HDF5 file) or does not exist, nor any temporary
# sibling of it (no). The output file is removed before the run.
set -uo pipefail
expected=$1 regex=$2 outfile=$3 want_file=$4
shift 4
[[ "$1" == "--" ]] && shift
if [[ "$outfile" != "-" ]]; then rm -f "$outfile" "$outfile".tmp.*; fi
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$@" 2> >(tee "$err" >&2)
status=$?
wait
fail=0
if [[ $status -ne $expected ]]; then
  echo "run_case: exit status $status, expected $expected" >&2; fail=1
fi
if [[ "$regex" != "-" ]] && ! grep -Eq -- "$regex" "$err"; then
  echo "run_case: stderr does not match '$regex'" >&2; fail=1
fi
if [[ "$outfile" != "-" ]]; then
  tmp_left=$(ls -a "$(dirname "$outfile")" | grep -Fc "$(basename "$outfile").tmp." || true)
  if [[ "$want_file" == yes ]]; then
    if [[ ! -s "$outfile" ]] || [[ "$(head -c 4 "$outfile" | od -An -c | tr -d ' ')" != '211HDF' ]]; then
      echo "run_case: $outfile is missing or not an HDF5 file" >&2; fail=1
    fi
  elif [[ -e "$outfile" ]]; then
    echo "run_case: $outfile exists although the run failed" >&2; fail=1
  fi
  if [[ $tmp_left -ne 0 ]]; then echo "run_case: temporary file left next to $outfile" >&2; fail=1; fi
  rm -f "$outfile"
fi
exit $fail
