#!/usr/bin/env bash
# Every Fortran symbol of GA 5.8.2's library (ga58_fortran_symbols.txt) is defined in each of
# Gaea's Fortran GA libraries, so that a GA Fortran program never fails to link on a GA name
# (calls that cannot be meaningful here exist and end the job naming themselves).
#   usage: fortran_symbols_defined.sh <ga58_fortran_symbols.txt> <libgaea_ga_compat_fortran*.a>...
set -euo pipefail
list=$1
shift
wanted=$(grep -v '^#' "$list" | sort -u)
status=0
for lib in "$@"; do
  defined=$(nm -g --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort -u)
  missing=$(comm -23 <(echo "$wanted") <(echo "$defined"))
  if [[ -n "$missing" ]]; then
    echo "GA 5.8.2 Fortran symbols not defined in $(basename "$lib"):"
    echo "$missing"
    status=1
  else
    echo "all $(wc -l <<<"$wanted") GA 5.8.2 Fortran symbols are defined in $(basename "$lib")"
  fi
done
exit $status
