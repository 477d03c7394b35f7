#!/usr/bin/env bash
# quiet.sh <program> [args...]: runs one rank's program and fails if it printed anything of UCX's
# (cases/limits.cmake); its output is passed on, its exit status kept.
"$@" 2>err.$$
status=$?
cat err.$$ >&2
if grep -q UCX err.$$; then echo "quiet: UCX printed $(grep -c UCX err.$$) lines" >&2; status=1; fi
rm -f err.$$
exit $status
