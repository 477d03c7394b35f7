#!/usr/bin/env bash
# cluster_failed_up.sh <cluster.sh>: an 'up' that fails half-way (the second host's fabric
# address is refused, inside a helper function) must remove every namespace, file and /etc/netns
# entry it made. Exit 0 when nothing is left, 1 otherwise (leftovers are removed then), 77
# without root.
set -u
script=$1
[[ ${EUID:-$(id -u)} -eq 0 ]] || { echo "cluster_failed_up: skipped: needs root"; exit 77; }
export GAEA_CLUSTER_NAME=hfail$$ GAEA_CLUSTER_SUBNET=10.213.99
export GAEA_CLUSTER_DIR=$PWD/state
real_ip=$(command -v ip)
mkdir -p bin
# 'ip' as usual, except that the address of host 1 is refused.
cat >bin/ip <<WRAP
#!/bin/sh
case " \$* " in *" addr add 10.213.99.11/24 "*) echo "ip: refused for the test" >&2; exit 2 ;; esac
exec "$real_ip" "\$@"
WRAP
chmod +x bin/ip
PATH=$PWD/bin:$PATH bash "$script" up 2 --cpus shared
echo "cluster_failed_up: up exited $?"
left=$(ip netns list | awk '{print $1}' | grep -E "^$GAEA_CLUSTER_NAME-(h[0-9]+|sw)$")
[[ -e $GAEA_CLUSTER_DIR ]] && left+=" $GAEA_CLUSTER_DIR"
compgen -G "/etc/netns/$GAEA_CLUSTER_NAME-h*" >/dev/null && left+=" /etc/netns/$GAEA_CLUSTER_NAME-h*"
if [[ -n ${left// /} ]]; then
  echo "cluster_failed_up: left behind: $(echo $left)"
  bash "$script" down >/dev/null 2>&1
  exit 1
fi
echo "cluster_failed_up: nothing left behind"
