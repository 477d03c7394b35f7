#!/usr/bin/env bash
# The command-line convention of apps/common/cli.hpp, checked on every program's --help (and each
# subcommand's): one spelling per meaning. Refused: --out, --file and -o (the output is
# --output), --progress (GAEA_PROGRESS sets it), and a --json that takes no value (--json FILE,
# "-" for standard output).
#   usage: cli_convention.sh <program>...
set -uo pipefail
fail=0
check_help() {  # <label> <help text>
  local label=$1 text=$2 line
  while IFS= read -r line; do
    # Option lines of CLI11's help: leading spaces, then the option names.
    [[ "$line" =~ ^[[:space:]]+(-[A-Za-z0-9-].*)$ ]] || continue
    local names=${BASH_REMATCH[1]}
    names=${names%%  *}  # the names (and value type) end at the first double space
    local name
    for name in ${names//,/ }; do
      case "$name" in
        --out | --file | -o | --progress)
          echo "cli_convention: $label: option $name (see apps/common/cli.hpp)"
          fail=1
          ;;
      esac
    done
    if [[ "$names" =~ (^|,)--json($|[[:space:]]*$) ]]; then
      echo "cli_convention: $label: --json takes no value (expected --json FILE)"
      fail=1
    fi
  done <<<"$text"
}
checked=0
for prog in "$@"; do
  name=$(basename "$prog")
  help=$("$prog" --help 2>&1) || { echo "cli_convention: $name --help failed"; fail=1; continue; }
  check_help "$name" "$help"
  checked=$((checked + 1))
  # Subcommands: the lines after "Subcommands:", a name at the start of each.
  subs=$(awk '/^Subcommands:/ {s = 1; next} s && /^[[:space:]]+[a-z]/ {print $1} s && /^$/ {s = 0}' \
           <<<"$help")
  for sub in $subs; do
    sub_help=$("$prog" "$sub" --help 2>&1) ||
      { echo "cli_convention: $name $sub --help failed"; fail=1; continue; }
    check_help "$name $sub" "$sub_help"
    checked=$((checked + 1))
  done
done
echo "cli_convention: $checked help texts checked"
((checked >= $#)) || fail=1
exit $fail
