#!/bin/sh
# expect_failure.sh <regex> <command> [args...]
# Passes (exit 0) only when the command exits non-zero AND its output (stdout and stderr)
# matches the extended regular expression: a test that a failure is detected for the right reason.
re=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then
  echo "expect_failure: the command exited 0, expected a failure matching: $re"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
  echo "expect_failure: exit $rc, but the output does not match: $re"
  exit 1
fi
echo "expect_failure: failed as expected (exit $rc)"
exit 0
