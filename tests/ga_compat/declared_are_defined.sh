#!/usr/bin/env bash
# The GA headers (ga.h, macdecls.h, ga-mpi.h, armci.h, message.h) declare only what the library
# implements: every function they declare must be defined in libgaea_ga_compat.a (otherwise a GA program would compile and then fail
# to link on a name the coverage table calls done).
#   usage: declared_are_defined.sh <include/gaea-ga dir> <libgaea_ga_compat.a>
set -euo pipefail
inc=$1
lib=$2
declared=$(cat "$inc"/ga.h "$inc"/macdecls.h "$inc"/ga-mpi.h "$inc"/armci.h "$inc"/message.h |
  grep -v '^#' | grep -oE '\b((N?GA|MA)_[A-Za-z0-9_]+|armci_[a-z_]+|ARMCI_[A-Za-z_]+)[[:space:]]*\(' |
  sed -E 's/[[:space:]]*\($//' | sort -u)
defined=$(nm -g --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$defined"))
count=$(wc -l <<<"$declared")
if [[ -n "$missing" ]]; then
  echo "declared in the GA headers but not defined in $(basename "$lib"):"
  echo "$missing"
  exit 1
fi
echo "all $count functions declared in the GA headers are defined"
