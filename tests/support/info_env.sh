#!/usr/bin/env bash
# gaea-info --env lists exactly the variables of docs/environment.md, each once with its help:
# every module's settings are registered in the program that prints the table, whatever the
# linker kept. Usage: info_env.sh <gaea-info> <docs/environment.md>
set -euo pipefail
info=$1 doc=$2
out=$("$info" --env)
listed=$(grep -oE '^  GAEA_[A-Z0-9_]+' <<<"$out" | tr -d ' ' | sort)
# The rows of the document's variables section (up to its first "## " heading).
documented=$(sed -n '1,/^## /p' "$doc" | grep -oE '^\| `GAEA_[A-Z0-9_]+`' | tr -d '|` ' | sort)
if [[ "$listed" != "$documented" ]]; then
  echo "gaea-info --env and $doc differ (< gaea-info, > document):"
  diff <(echo "$listed") <(echo "$documented") || true
  exit 1
fi
dups=$(uniq -d <<<"$listed")
[[ -z "$dups" ]] || { echo "listed twice: $dups"; exit 1; }
n=$(wc -l <<<"$listed")
# Each entry is three lines: name/default, accepts, help (non-empty).
helps=$(grep -cE '^    [^ ]' <<<"$out")
[[ $helps -eq $((2 * n)) ]] || { echo "expected $((2 * n)) accepts/help lines, got $helps"; exit 1; }
echo "gaea-info --env lists the $n documented variables"
