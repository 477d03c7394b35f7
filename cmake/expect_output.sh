#!/bin/sh
# expect_output.sh <regex>... -- <command> [args...]
# Passes (exit 0) only when the command exits 0 AND its output (stdout and stderr) matches every
# extended regular expression.
n=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do n=$((n + 1)); eval "re_$n=\$1"; shift; done
[ "${1:-}" = "--" ] || { echo "expect_output: usage: <regex>... -- <command>"; exit 2; }
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "expect_output: the command exited $rc"; exit 1; }
i=1
while [ $i -le $n ]; do
  eval "re=\$re_$i"
  if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
    echo "expect_output: the output does not match: $re"
    exit 1
  fi
  i=$((i + 1))
done
echo "expect_output: all $n patterns found"
