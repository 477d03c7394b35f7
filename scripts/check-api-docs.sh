#!/usr/bin/env bash
# Builds the API reference with doxygen and fails when a public declaration is undocumented.
#   scripts/check-api-docs.sh <Doxyfile> <warnings.log> [module...]
# With modules (e.g. base dense), only warnings in framework/<module>/include count; none: all.
# Exit 77 (skipped) when doxygen is not installed (scripts/install-deps.sh --tests installs it).
set -euo pipefail
doxyfile=$1 log=$2
shift 2
if ! command -v doxygen >/dev/null 2>&1; then
  echo "check-api-docs: doxygen not found; skipped (apt install doxygen)" >&2
  exit 77
fi
doxygen "$doxyfile" >/dev/null
pattern='.'
if [[ $# -gt 0 ]]; then
  pattern="framework/($(IFS='|'; echo "$*"))/include/"
fi
found=$(grep -E "$pattern" "$log" | grep -E 'warning' || true)
if [[ -n "$found" ]]; then
  echo "$found"
  echo "check-api-docs: $(echo "$found" | wc -l) doxygen warning(s) in the public headers (${*:-all modules})" >&2
  exit 1
fi
echo "check-api-docs: no undocumented public declaration (${*:-all modules})"
