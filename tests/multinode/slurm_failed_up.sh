#!/usr/bin/env bash
# slurm_failed_up.sh <cluster.sh>: an 'up --slurm' whose second slurmd cannot start (munged,
# slurmctld and the first slurmd are running by then) must fail, stop every daemon it started and
# remove every namespace and file it made. Exit 0 when nothing is left, 1 otherwise (leftovers
# are removed then), 77 when this machine cannot host an emulated Slurm cluster.
set -u
script=$1
bash "$script" check --slurm || exit 77
export GAEA_CLUSTER_NAME=hslurm$(($$ % 10000)) GAEA_CLUSTER_SUBNET=10.213.97
unset GAEA_CLUSTER_DIR
state=/run/$GAEA_CLUSTER_NAME-cluster
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
real_slurmd=$(command -v slurmd)
# 'slurmd' as usual, except on host 1.
cat >"$bin/slurmd" <<WRAP
#!/bin/sh
case " \$* " in *" -N $GAEA_CLUSTER_NAME-h1 "*) echo "slurmd: refused for the test" >&2; exit 1 ;; esac
exec "$real_slurmd" "\$@"
WRAP
chmod +x "$bin/slurmd"
PATH=$bin:$PATH bash "$script" up 2 --slurm
rc=$?
echo "slurm_failed_up: up exited $rc"
left=""
[[ $rc -ne 0 ]] || left+=" (up succeeded)"
left+=" $(ip netns list | awk '{print $1}' | grep -E "^$GAEA_CLUSTER_NAME-(h[0-9]+|sw)$" | tr '\n' ' ')"
[[ ! -e $state ]] || left+=" $state"
compgen -G "/etc/netns/$GAEA_CLUSTER_NAME-h*" >/dev/null && left+=" /etc/netns/$GAEA_CLUSTER_NAME-h*"
# A daemon of this cluster names its state directory on its command line.
for d in /proc/[0-9]*; do
  cmd=$(tr "\0" " " 2>/dev/null <"$d/cmdline")
  [[ $cmd == *"$state/"* ]] && left+=" process ${d#/proc/} ($cmd)"
done
if [[ -n ${left// /} ]]; then
  echo "slurm_failed_up: left behind:$left"
  bash "$script" down >/dev/null 2>&1
  exit 1
fi
echo "slurm_failed_up: nothing left behind"
