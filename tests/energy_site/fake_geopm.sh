#!/usr/bin/env bash
# A fake GEOPM command line for the energy tests, installed as `geopmread` and `geopmwrite`
# (symbolic links: the name chooses the role). State in $FAKE_GEOPM_DIR:
#   signals/<NAME>@<domain>@<index>    a signal's value (what geopmread prints);
#   controls/<NAME>@<domain>@<index>   present when the site's access list allows writing it;
#   writes.log                         every accepted write, "<NAME> <domain> <index> <value>".
# CPU_ENERGY grows by 1.5 J at every read, as a package's energy does under load.
#   geopmread <SIGNAL> <domain> <index>          geopmwrite <CONTROL> <domain> <index> <value>
set -u
dir=${FAKE_GEOPM_DIR:?FAKE_GEOPM_DIR not set}
role=$(basename "$0")
# One caller at a time, as the service serialises its clients' requests (ranks run it at once).
exec 9>>"$dir/lock" && flock 9
if [[ $role == geopmread && $# -eq 3 ]]; then
  f="$dir/signals/$1@$2@$3"
  [[ -r $f ]] || { echo "Error: <geopm> signal $1 not available at $2 $3" >&2; exit 1; }
  value=$(<"$f")
  if [[ $1 == CPU_ENERGY ]]; then
    awk -v v="$value" 'BEGIN { printf "%.6f\n", v + 1.5 }' >"$f.new" && mv "$f.new" "$f"
  fi
  echo "$value"
elif [[ $role == geopmwrite && $# -eq 4 ]]; then
  [[ -e "$dir/controls/$1@$2@$3" ]] ||
    { echo "Error: <geopm> control $1 at $2 $3: not in the access list" >&2; exit 1; }
  [[ $4 =~ ^[0-9.eE+-]+$ ]] || { echo "Error: <geopm> bad value '$4'" >&2; exit 1; }
  echo "$4" >"$dir/signals/$1@$2@$3" && echo "$1 $2 $3 $4" >>"$dir/writes.log"
else
  echo "Error: <geopm> usage: $role (fake) takes a name, a domain, an index$( [[ $role == geopmwrite ]] && echo ' and a value')" >&2
  exit 2
fi
