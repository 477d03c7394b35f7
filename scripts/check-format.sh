#!/usr/bin/env bash
# Fails (exit 1) when a tracked C/C++ file differs from what clang-format makes of it
# (.clang-format at the top), naming each file. CI runs it before the build (.ci/run).
#   scripts/check-format.sh          check
#   scripts/check-format.sh --fix    reformat those files in place
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v clang-format >/dev/null 2>&1; then
  echo "check-format.sh: error: clang-format is not installed (scripts/install-deps.sh --tests)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.c')
if [[ "${1:-}" == --fix ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "check-format.sh: ${#bad[@]} file(s) not formatted (run scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format.sh: ${#files[@]} files formatted"
