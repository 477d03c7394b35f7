#!/usr/bin/env bash
# An emulated cluster on one machine: N hosts, each a network namespace with its own hostname,
# its own /dev/shm and its own kernel boot id, joined by two bridges as cluster nodes are by two
# networks: the fabric (eth0: UCX's and MPI's traffic) and the management network (mgmt0: the
# launcher's own control traffic, Open MPI's out-of-band channel). A fault of a host's fabric
# link is then seen by the application, not by the launcher. Needs root (CAP_NET_ADMIN and
# CAP_SYS_ADMIN).
#
#   scripts/cluster.sh up N [--ppn K] [--latency T] [--rate R] [--preset NAME] [--cpus HOW] [--slurm]
#       create hosts gaea-h0 .. gaea-h<N-1> (K slots each, default 2). Leftovers of an earlier
#       cluster are removed first; a failed 'up' removes what it made.
#         --slurm       also run a Slurm cluster on the hosts: one munged (a key of its own),
#                       slurmctld on gaea-h0 and a slurmd on every host (K CPUs each, partition
#                       named after the cluster), all configured, logged and spooled under the
#                       state directory (Debian: scripts/install-deps.sh --slurm)
#         --cpus HOW    split (default): the machine's CPUs are divided among the hosts, as real
#                       hosts own their cores (with more hosts than CPUs, host i gets CPU i mod C);
#                       every command a host runs is confined to its CPUs by a cpuset cgroup (so
#                       hwloc, and Gaea's placement, see what such a host has; taskset where the
#                       cgroup cannot be made, which threads may leave). shared: every host runs
#                       on every CPU.
#         --latency T   one-way delay added on every host's link (e.g. 5us); needs sch_netem
#         --rate R      bandwidth of every host's link (e.g. 10gbit, 1800mbit)
#         --preset NAME bgq | ib | none  (see 'presets' below)
#   scripts/cluster.sh mpirun [mpirun args...]
#       run mpirun on gaea-h0 across all hosts; the arguments are the ones used on one node
#   scripts/cluster.sh srun [srun args...]
#       (a cluster made with --slurm) run srun on gaea-h0: srun --mpi=pmix -N 2 -n 4 PROGRAM;
#       the tasks run under the hosts' slurmd, which share one /dev/shm per host
#   scripts/cluster.sh exec HOST command [args...]
#       run a command on one host, as 'ssh HOST command...' would (also mpirun's rsh agent); each
#       call gets a fresh /dev/shm of that host, shared by the processes it starts. With --slurm,
#       SLURM_CONF names the cluster's slurm.conf (exec gaea-h0 sinfo, squeue, sbatch, ...)
#   scripts/cluster.sh status     hosts, addresses, slots, shaping and Slurm's nodes; exit 1 if
#                                 no cluster
#   scripts/cluster.sh down       stop every daemon 'up' started, remove every namespace, link,
#                                 bridge and file it made
#   scripts/cluster.sh check [--slurm]  exit 0 if this machine can host a cluster (with Slurm),
#                                 else say why (exit 77)
#
# Presets (one-way delay per link, link rate). Shaping a veth on one kernel approximates a
# network: the loopback path and the shared cores add their own costs, and delay needs the
# kernel's sch_netem (the rate alone is applied when it is missing, and 'status' says so).
#   bgq   1.45us, 14400mbit   Blue Gene/Q torus as seen by ARMCI-over-PAMI [PGAS-BGQ]: 2.9 us get
#                             latency (a round trip) and about 1.8 GB/s per link
#   ib    1us, 56gbit         FDR InfiniBand: about 2 us round trip, 56 Gbit/s
#   none  no shaping
#
# mpirun: ranks are not bound to cores (the emulated hosts share the machine's cores; pass
# --bind-to core to override), and the whole environment reaches every rank, as the rsh agent
# runs on this machine (on a real cluster, export variables with -x). srun: the same, and
# OMPI_MCA_btl_tcp_if_include=eth0 and UCX_NET_DEVICES=eth0 unless set; ranks are not bound
# (TaskPlugin task/none) and are tracked by process tree (no cgroup is made).
#
# Environment: GAEA_CLUSTER_SHARED_IDENTITY=1 runs commands without their host's own /dev/shm
# and boot id, as plain containers on one kernel look (UCX then takes the hosts for one machine;
# for testing Gaea's detection of that). GAEA_CLUSTER_NAME (default gaea: hosts gaea-h0..;
# several clusters can coexist under different names), GAEA_CLUSTER_DIR (state, default
# /run/<name>-cluster), GAEA_CLUSTER_SUBNET (first three octets of the fabric's /24, which
# exists only inside the cluster's namespaces, default 10.213.77; the management network takes
# the next /24; checked before anything is made).
set -euo pipefail

self=$(readlink -f "${BASH_SOURCE[0]}")
name=${GAEA_CLUSTER_NAME:-gaea}
[[ $name =~ ^[a-z][a-z0-9]{0,9}$ ]] || { echo "cluster.sh: GAEA_CLUSTER_NAME='$name' must be 1-10 lower-case letters or digits" >&2; exit 2; }
state=${GAEA_CLUSTER_DIR:-/run/$name-cluster}
subnet=${GAEA_CLUSTER_SUBNET:-10.213.77}
switch_ns=$name-sw
host_prefix=$name-h
iface=eth0  # the fabric device inside every host, as on a real node
mgmt_iface=mgmt0  # the management network's device
# Three octets 0-255 (no leading zeros) of a unicast network, checked before anything is made.
[[ $subnet =~ ^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){2}$ &&
   ${subnet%%.*} -ne 0 && ${subnet%%.*} -ne 127 && ${subnet%%.*} -lt 224 ]] ||
  { echo "cluster.sh: GAEA_CLUSTER_SUBNET='$subnet' must be three octets 0-255 of a unicast network (first not 0, 127 or 224-255), e.g. 10.213.77" >&2; exit 2; }
mgmt_subnet=${subnet%.*}.$(((${subnet##*.} + 1) % 256))

usage() { sed -n '2,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "cluster.sh: $*" >&2; exit 1; }

# One line and exit 77 (ctest's skip code) when namespaces cannot be made here.
check_capable() {
  if [[ ${EUID:-$(id -u)} -ne 0 ]]; then
    echo "cluster.sh: needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create network namespaces" >&2
    exit 77
  fi
  for tool in ip unshare nsenter tc mpirun; do
    command -v "$tool" >/dev/null 2>&1 || { echo "cluster.sh: '$tool' not found" >&2; exit 77; }
  done
  local probe="gaea-probe-$$"
  if ! ip netns add "$probe" 2>/dev/null; then
    echo "cluster.sh: cannot create a network namespace here (no CAP_NET_ADMIN?)" >&2
    exit 77
  fi
  ip netns del "$probe"
}

has_netem() {
  local probe="gaea-probe-$$" ok=1
  ip netns add "$probe" 2>/dev/null || return 1
  ip netns exec "$probe" tc qdisc add dev lo root netem delay 1us 2>/dev/null && ok=0
  ip netns del "$probe"
  return $ok
}

hosts() { [[ -f $state/hosts ]] && cat "$state/hosts"; }

# The CPUs this process may run on, one per line (from a list such as 0-3,6).
machine_cpus() {
  local list part
  list=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
  for part in ${list//,/ }; do
    if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
  done
}

# Every mount is made with -n: the mounts are private to the script's namespaces or state
# directory, and util-linux would otherwise make /run/mount (its utab) on the machine.

# The hosts' cpuset cgroups live in a cpuset hierarchy mounted under the state directory: the
# rsh agent runs inside a host, where 'ip netns exec' has hidden /sys/fs/cgroup behind the host's
# own /sys, and the state directory is visible everywhere.
cpuset_mount="$state/cpuset"

# Mounts the cpuset hierarchy (cgroup v1 or v2) and makes the cluster's group; prints its
# directory, or nothing when this machine has no cpuset controller to use.
make_cpuset_parent() {
  local parent="$cpuset_mount/$name-cluster"
  mkdir -p "$cpuset_mount"
  {
    if grep -qw cpuset /proc/cgroups && mount -n -t cgroup -o cpuset gaea-cpuset "$cpuset_mount"; then
      mkdir -p "$parent" && cat "$cpuset_mount/cpuset.cpus" >"$parent/cpuset.cpus" &&
        cat "$cpuset_mount/cpuset.mems" >"$parent/cpuset.mems"
    elif mount -n -t cgroup2 gaea-cpuset "$cpuset_mount"; then
      grep -qw cpuset "$cpuset_mount/cgroup.controllers" &&
        echo +cpuset >"$cpuset_mount/cgroup.subtree_control" && mkdir -p "$parent" &&
        echo +cpuset >"$parent/cgroup.subtree_control"
    else
      false
    fi
  } 2>/dev/null && echo "$parent"
  return 0
}

# Makes host H's cpuset cgroup on CPUS under PARENT; prints its directory (nothing on failure).
make_cpuset() {
  local parent=$1 h=$2 cpus=$3
  [[ -n $parent ]] || return 0
  {
    mkdir -p "$parent/$h" && echo "$cpus" >"$parent/$h/cpuset.cpus" &&
      { [[ ! -f $parent/cpuset.mems ]] || cat "$parent/cpuset.mems" >"$parent/$h/cpuset.mems"; }
  } 2>/dev/null && echo "$parent/$h"
  return 0
}

remove_cpusets() {
  local parent="$cpuset_mount/$name-cluster" d
  mountpoint -q "$cpuset_mount" 2>/dev/null || return 0
  for d in "$parent"/*/; do [[ -d $d ]] && rmdir "$d" 2>/dev/null; done
  rmdir "$parent" 2>/dev/null || true
  umount -n "$cpuset_mount" 2>/dev/null || true
}

# Host I of N's CPUs as a taskset list: a contiguous share of the machine's C CPUs, or CPU I mod C
# when there are more hosts than CPUs.
host_cpus() {
  local i=$1 n=$2 cpus
  mapfile -t cpus < <(machine_cpus)
  local c=${#cpus[@]}
  if ((n >= c)); then echo "${cpus[i % c]}"; return; fi
  local lo=$((i * c / n)) hi=$(((i + 1) * c / n)) out="" k
  for ((k = lo; k < hi; k++)); do out+="${out:+,}${cpus[k]}"; done
  echo "$out"
}

# --- Slurm on the hosts (up --slurm) ----------------------------------------------------------
# Everything Slurm and munge are given lives under $slurm_dir: the configuration (SLURM_CONF and
# -f; nothing in /etc), the munge key and socket, state, spools, logs, pid files and the PMIx
# plugin's temporary directories. slurmctld listens on gaea-h0's management address; every
# slurmd and the tasks it starts run in their host's namespaces, cpuset, /dev/shm and boot id.
slurm_dir="$state/slurm"
slurm_conf="$slurm_dir/slurm.conf"
slurm_tools=(munged slurmctld slurmd srun sinfo scontrol)

# One line and exit 77 when this machine cannot run the emulated Slurm cluster.
check_slurm() {
  local tool missing=()
  for tool in "${slurm_tools[@]}"; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "cluster.sh: --slurm needs ${missing[*]} (Debian: scripts/install-deps.sh --slurm, or apt-get install slurm-wlm munge)" >&2
    exit 77
  fi
}

# What runs Slurm on this cluster: munged and the daemons (pid files), and in the hosts'
# namespaces the daemons, the step daemons with every process under them (the jobs' tasks), and
# Slurm's clients (srun, salloc, sbatch --wait) still waiting for this cluster.
slurm_pids() {
  local f ns
  for f in "$slurm_dir"/run/*.pid; do [[ -s $f ]] && cat "$f"; done
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
    [[ $ns == "$host_prefix"[0-9]* ]] && ip netns pids "$ns" 2>/dev/null
  done | sort -u | ps -o pid=,ppid=,comm= -p "$(paste -sd, -)" 2>/dev/null | awk '
    { ppid[$1] = $2; comm[$1] = $3 }
    END {
      for (p in comm) {
        keep = comm[p] ~ /^(slurmd|slurmctld|slurmscriptd|munged|srun|salloc|sbatch)$/
        for (a = p; !keep && a in comm; a = ppid[a]) keep = comm[a] == "slurmstepd"
        if (keep) print p
      }
    }'
}

# Ends the jobs (through Slurm, while it is up), then stops every process slurm_pids lists (TERM,
# then KILL after 10 s); the files go with $state.
slurm_down() {
  local pids pid tries
  [[ -d $slurm_dir ]] || return 0
  if [[ -s $slurm_dir/run/slurmctld.pid && -f $state/hosts ]]; then
    "$self" exec "${host_prefix}0" scancel --partition="$name" >/dev/null 2>&1 || true
    for ((tries = 0; tries < 100; tries++)); do
      [[ -z $("$self" exec "${host_prefix}0" squeue -h -o %i 2>/dev/null) ]] && break
      sleep 0.1
    done
  fi
  mapfile -t pids < <(slurm_pids | sort -u)
  [[ ${#pids[@]} -gt 0 ]] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for ((tries = 0; tries < 100; tries++)); do
    local alive=()
    # A zombie has ended (its parent, perhaps the user's shell, has yet to collect it).
    for pid in "${pids[@]}"; do
      [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) =~ ^[^ZX]$ ]] && alive+=("$pid")
    done
    [[ ${#alive[@]} -gt 0 ]] || return 0
    sleep 0.1
  done
  kill -KILL "${alive[@]}" 2>/dev/null || true
}

# Writes slurm.conf for hosts 0..N-1 with PPN CPUs each.
write_slurm_conf() {
  local n=$1 ppn=$2 i
  {
    echo "# Made by scripts/cluster.sh up --slurm for the emulated cluster '$name'; removed by down."
    echo "ClusterName=$name"
    echo "SlurmctldHost=${host_prefix}0($mgmt_subnet.10)"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "AuthInfo=socket=$slurm_dir/munge/munge.socket"
    echo "StateSaveLocation=$slurm_dir/ctld"
    echo "SlurmdSpoolDir=$slurm_dir/spool/%n"
    echo "SlurmctldPidFile=$slurm_dir/run/slurmctld.pid"
    echo "SlurmdPidFile=$slurm_dir/run/slurmd.%n.pid"
    echo "SlurmctldLogFile=$slurm_dir/log/slurmctld.log"
    echo "SlurmdLogFile=$slurm_dir/log/slurmd.%n.log"
    echo "TmpFS=$slurm_dir/node-tmp"
    echo "PlugStackConfig=$slurm_dir/plugstack.conf"
    # No cgroup: the hosts' cpusets are cluster.sh's, and the namespaces hide /sys/fs/cgroup.
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/none"
    echo "SchedulerType=sched/backfill"
    echo "MailProg=/bin/true"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "MpiDefault=none"
    # A host's CPUs are what this file says (K slots), not what slurmd finds in its cpuset.
    echo "SlurmdParameters=config_overrides"
    echo "ReturnToService=2"
    echo "InactiveLimit=0"
    echo "KillWait=5"
    echo "SlurmdTimeout=60"
    for ((i = 0; i < n; i++)); do
      echo "NodeName=$host_prefix$i NodeAddr=$mgmt_subnet.$((10 + i)) CPUs=$ppn State=UNKNOWN"
    done
    echo "PartitionName=$name Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } >"$slurm_conf"
  : >"$slurm_dir/plugstack.conf"
  # slurmd loads a cgroup plugin whatever the other plugins are, and autodetection looks at
  # /sys/fs/cgroup, which the host's namespace hides; v1 on an empty directory of ours is loaded
  # and never used (proctrack/linuxproc, task/none), so nothing is made in the machine's cgroups.
  {
    echo "CgroupPlugin=cgroup/v1"
    echo "CgroupMountpoint=$slurm_dir/cgroup"
    echo "CgroupAutomount=no"
  } >"$slurm_dir/cgroup.conf"
  # The PMIx plugin's directories for the tasks (default TmpFS, i.e. /tmp) go under ours too.
  echo "PMIxCliTmpDirBase=$slurm_dir/node-tmp" >"$slurm_dir/mpi.conf"
}

# Dies with the last lines of a daemon's log (which 'down' removes with the rest).
slurm_die() {
  local what=$1 log=$2
  [[ ! -s $log ]] || tail -n 5 "$log" | sed 's/^/  /' >&2
  die "up: $what"
}

# Starts munged, slurmctld and a slurmd per host, and waits until every node is idle.
slurm_up() {
  local n=$1 ppn=$2 i h
  mkdir -p "$slurm_dir"/{munge,ctld,spool,run,log,node-tmp,cgroup}
  # munged wants its directories owned by its user, searchable by all and writable by none else.
  chmod 755 "$slurm_dir" "$slurm_dir"/{munge,run,log}
  for ((i = 0; i < n; i++)); do mkdir -p "$slurm_dir"/{spool,tmp}/"$host_prefix$i"; done
  write_slurm_conf "$n" "$ppn"
  # One key for the cluster, made here (never /etc/munge's).
  (umask 077 && dd if=/dev/urandom of="$slurm_dir/munge/munge.key" bs=1024 count=1 status=none)
  "$self" exec "${host_prefix}0" munged --key-file="$slurm_dir/munge/munge.key" \
    --socket="$slurm_dir/munge/munge.socket" --pid-file="$slurm_dir/run/munged.pid" \
    --log-file="$slurm_dir/log/munged.log" --seed-file="$slurm_dir/munge/munged.seed" ||
    slurm_die "munged did not start" "$slurm_dir/log/munged.log"
  "$self" exec "${host_prefix}0" slurmctld -c -f "$slurm_conf" ||
    slurm_die "slurmctld did not start" "$slurm_dir/log/slurmctld.log"
  for ((i = 0; i < n; i++)); do
    h="$host_prefix$i"
    # TmpFS is node-local, as on real nodes (the PMIx plugin names its directories by job and
    # step only): in slurmd's mount namespace, node-tmp is this host's own tmp/<host>.
    "$self" exec "$h" "$(printf '%q ' mount -n --bind "$slurm_dir/tmp/$h" "$slurm_dir/node-tmp") &&
      $(printf '%q ' slurmd -f "$slurm_conf" -N "$h")" ||
      slurm_die "slurmd on $h did not start" "$slurm_dir/log/slurmd.$h.log"
  done
  local tries states
  for ((tries = 0; tries < 300; tries++)); do
    states=$("$self" exec "${host_prefix}0" sinfo -h -N -o %T 2>/dev/null | sort -u | tr '\n' ' ')
    [[ $states == "idle " ]] && break
    sleep 0.1
  done
  [[ $states == "idle " ]] ||
    slurm_die "Slurm's nodes are not idle after 30 s (states: ${states:-none})" "$slurm_dir/log/slurmctld.log"
  # Open MPI is launched by srun through PMIx; a Slurm without the plugin cannot run Gaea's jobs.
  if ! "$self" exec "${host_prefix}0" srun --mpi=list 2>&1 | grep -qw pmix; then
    echo "cluster.sh: this Slurm has no PMIx plugin (srun --mpi=list shows no pmix)" >&2
    exit 77
  fi
}

down() {
  local ns
  slurm_down
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
    case "$ns" in "$host_prefix"[0-9]* | "$switch_ns") ip netns del "$ns" 2>/dev/null || true ;; esac
  done
  remove_cpusets
  rm -rf "$state"
  rm -rf /etc/netns/"$host_prefix"[0-9]*
}

# A one-way delay as tc takes it: 5us, 1.5ms, 1s.
check_latency() {
  [[ $1 =~ ^[0-9]+(\.[0-9]+)?(us|ms|s)$ ]] || die "latency '$1' must look like 5us, 1.5ms or 1s"
}

# Joins host H to a bridge of the switch: device DEV inside H (address ADDR/24), its peer PORT
# on BRIDGE.
attach() {
  local h=$1 dev=$2 port=$3 bridge=$4 addr=$5
  ip -n "$h" link add "$dev" type veth peer name "$port" netns "$switch_ns"
  ip -n "$h" addr add "$addr/24" dev "$dev"
  ip -n "$h" link set "$dev" up
  ip -n "$switch_ns" link set "$port" master "$bridge"
  ip -n "$switch_ns" link set "$port" up
}

up() {
  local n="${1:-}" ppn=2 latency="" rate="" preset=none cpus_how=split slurm=no
  [[ $n =~ ^[0-9]+$ && $n -ge 1 && $n -le 64 ]] || die "up: N='$n' must be a host count from 1 to 64"
  shift
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --ppn) ppn="${2:-}"; shift 2 ;;
      --latency) latency="${2:-}"; shift 2 ;;
      --rate) rate="${2:-}"; shift 2 ;;
      --preset) preset="${2:-}"; shift 2 ;;
      --cpus) cpus_how="${2:-}"; shift 2 ;;
      --slurm) slurm=yes; shift ;;
      *) die "up: unknown option '$1' (see --help)" ;;
    esac
  done
  [[ $ppn =~ ^[0-9]+$ && $ppn -ge 1 ]] || die "up: --ppn '$ppn' must be a positive slot count"
  case "$preset" in
    bgq) latency=${latency:-1.45us}; rate=${rate:-14400mbit} ;;
    ib) latency=${latency:-1us}; rate=${rate:-56gbit} ;;
    none) ;;
    *) die "up: unknown preset '$preset' (bgq, ib or none)" ;;
  esac
  [[ $cpus_how == split || $cpus_how == shared ]] || die "up: --cpus '$cpus_how' must be split or shared"
  [[ -z $latency ]] || check_latency "$latency"
  [[ -z $rate || $rate =~ ^[0-9]+(\.[0-9]+)?([kmg]?bit|[kmg]?bps)$ ]] ||
    die "up: --rate '$rate' must look like 10gbit or 1800mbit"
  check_capable
  [[ $slurm == no ]] || check_slurm
  down
  # Any failure from here on (a failed command anywhere, set -e, or die) removes what was made:
  # an EXIT trap, since an ERR trap does not reach into functions and not through 'exit'.
  trap 'rc=$?; if ((rc != 0)); then echo "cluster.sh: up failed; removing what it made" >&2; down; fi' EXIT
  mkdir -p "$state"
  local applied_latency="$latency"
  if [[ -n $latency ]] && ! has_netem; then
    echo "cluster.sh: this kernel has no sch_netem: link delay $latency NOT applied (rate only)" >&2
    applied_latency=""
  fi
  ip netns add "$switch_ns"
  ip -n "$switch_ns" link set lo up
  ip -n "$switch_ns" link add br0 type bridge
  ip -n "$switch_ns" link set br0 up
  ip -n "$switch_ns" link add br1 type bridge
  ip -n "$switch_ns" link set br1 up
  : >"$state/hosts"
  : >"$state/hostfile"
  local etc_hosts="127.0.0.1 localhost"$'\n'
  local cpuset_parent=""
  [[ $cpus_how == shared ]] || cpuset_parent=$(make_cpuset_parent)
  local i h dev
  for ((i = 0; i < n; i++)); do etc_hosts+="$subnet.$((10 + i)) $host_prefix$i"$'\n'; done
  for ((i = 0; i < n; i++)); do
    h="$host_prefix$i"
    ip netns add "$h"
    ip -n "$h" link set lo up
    attach "$h" "$iface" "p$i" br0 "$subnet.$((10 + i))"
    attach "$h" "$mgmt_iface" "m$i" br1 "$mgmt_subnet.$((10 + i))"
    local qdisc=()
    if [[ -n $applied_latency ]]; then
      qdisc=(netem delay "$applied_latency")
      [[ -z $rate ]] || qdisc+=(rate "$rate")
    elif [[ -n $rate ]]; then
      qdisc=(tbf rate "$rate" burst 256kb latency 10ms)
    fi
    [[ ${#qdisc[@]} -eq 0 ]] || ip netns exec "$h" tc qdisc add dev "$iface" root "${qdisc[@]}"
    # TCP gives up on an unreachable peer after 4 retransmissions (about 6 s on this link)
    # instead of the kernel's default 15 (about 15 min), as HPC sites lower it: a host whose
    # link is down is then reported by UCX's peer-failure handling within seconds.
    ip netns exec "$h" sysctl -qw net.ipv4.tcp_retries2=4
    # Name resolution inside the hosts: 'ip netns exec' binds /etc/netns/<ns>/hosts.
    mkdir -p "/etc/netns/$h"
    printf '%s' "$etc_hosts" >"/etc/netns/$h/hosts"
    # A kernel boot id per host: UCX tells machines apart by it (shared memory and loopback
    # are "reachable" only between equal ids), so every host needs its own, as real hosts have.
    cat /proc/sys/kernel/random/uuid >"$state/boot_id.$h"
    if [[ $cpus_how == split ]]; then
      host_cpus "$i" "$n" >"$state/cpus.$h"
      make_cpuset "$cpuset_parent" "$h" "$(cat "$state/cpus.$h")" >"$state/cpuset.$h"
    fi
    echo "$h" >>"$state/hosts"
    echo "$h slots=$ppn" >>"$state/hostfile"
  done
  # The rsh agent Open MPI calls as: agent [flags] HOST command...
  cat >"$state/agent" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
exec "$self" exec "\$@"
EOF
  chmod +x "$state/agent"
  {
    echo "hosts=$n"
    echo "ppn=$ppn"
    echo "preset=$preset"
    echo "latency=${applied_latency:-none}"
    echo "latency_requested=${latency:-none}"
    echo "rate=${rate:-none}"
    echo "subnet=$subnet.0/24"
    echo "device=$iface"
    echo "management=$mgmt_subnet.0/24"
    echo "management_device=$mgmt_iface"
    echo "cpus=$cpus_how"
    echo "slurm=$slurm"
  } >"$state/config"
  # Every host link is up; there is no default route anywhere, so nothing outside is reachable.
  for h in $(hosts); do
    for dev in "$iface" "$mgmt_iface"; do
      [[ $(ip -n "$h" -o link show dev "$dev") == *"state UP"* ]] || die "up: $h's $dev is not up"
    done
    [[ -z $(ip -n "$h" route show default) ]] || die "up: $h has a default route"
  done
  [[ $slurm == no ]] || slurm_up "$n" "$ppn"
  trap - EXIT
  status
}

status() {
  [[ -f $state/config ]] || { echo "cluster.sh: no cluster is up"; return 1; }
  echo "cluster: $(tr '\n' ' ' <"$state/config")"
  local h
  for h in $(hosts); do
    local addr mgmt q
    addr=$(ip -n "$h" -4 -o addr show dev "$iface" 2>/dev/null | awk '{print $4}')
    mgmt=$(ip -n "$h" -4 -o addr show dev "$mgmt_iface" 2>/dev/null | awk '{print $4}')
    q=$(ip netns exec "$h" tc qdisc show dev "$iface" 2>/dev/null | head -n1)
    local on="all CPUs"
    if [[ -s $state/cpuset.$h ]]; then on="CPUs $(cat "$state/cpus.$h")"
    elif [[ -f $state/cpus.$h ]]; then on="CPUs $(cat "$state/cpus.$h") (taskset)"; fi
    printf '  %-10s %-18s %-24s %-12s %s\n' "$h" "${addr:-missing}" "mgmt ${mgmt:-missing}" "$on" "$q"
  done
  [[ -f $slurm_conf ]] || return 0
  echo "slurm: SLURM_CONF=$slurm_conf, munged and slurmctld on ${host_prefix}0, a slurmd per host"
  "$self" exec "${host_prefix}0" sinfo -N -o "'%16N %14P %6c %T'" 2>&1 | sed 's/^/  /'
}

# Runs a command line on HOST: its network namespace, its hostname, a private /dev/shm and its
# boot id. As with ssh, the words are joined into one shell command line (Open MPI's rsh launcher
# relies on that: it passes orted's arguments pre-quoted for a remote shell).
exec_on() {
  local h="${1:-}"
  shift || true
  grep -qx "$h" "$state/hosts" 2>/dev/null || die "exec: no host '$h' (is the cluster up?)"
  [[ $# -gt 0 ]] || die "exec: no command for $h"
  local cmd="$*"  # like ssh: the words are joined and parsed by the host's shell
  local identity=own
  # The emulated Slurm's client commands (and slurmd's tasks) read the cluster's slurm.conf.
  [[ ! -f $slurm_conf ]] || export SLURM_CONF="$slurm_conf"
  [[ ${GAEA_CLUSTER_SHARED_IDENTITY:-0} != 1 ]] || identity=shared
  # Into the host's cpuset (inherited by everything the command starts).
  local confine=()
  if [[ -s $state/cpuset.$h ]]; then
    echo $$ >"$(cat "$state/cpuset.$h")/cgroup.procs" || die "exec: cannot enter $h's cpuset"
  elif [[ -f $state/cpus.$h ]]; then
    confine=(taskset -c "$(cat "$state/cpus.$h")")
  fi
  exec "${confine[@]}" ip netns exec "$h" unshare --uts --mount --propagation private bash -c '
      hostname "$1"
      if [ "$3" = own ]; then
        mount -n -t tmpfs -o size=50% tmpfs /dev/shm
        mount -n --bind "$2" /proc/sys/kernel/random/boot_id
      fi
      exec bash -c "$4"' gaea-exec "$h" "$state/boot_id.$h" "$identity" "$cmd"
}

run_mpirun() {
  [[ -f $state/config ]] || { echo "cluster.sh: no cluster is up (scripts/cluster.sh up N)" >&2; exit 77; }
  local head
  head=$(head -n1 "$state/hosts")
  local args=(--hostfile "$state/hostfile" --mca plm_rsh_agent "$state/agent"
    --mca oob_tcp_if_include "$mgmt_iface" --mca btl_tcp_if_include "$iface"
    -x "UCX_NET_DEVICES=${UCX_NET_DEVICES:-$iface}")
  if [[ ${EUID:-$(id -u)} -eq 0 ]]; then args+=(--allow-run-as-root); fi
  export OMPI_MCA_hwloc_base_binding_policy=${OMPI_MCA_hwloc_base_binding_policy:-none}
  exec_on "$head" "$(printf '%q ' mpirun "${args[@]}" "$@")"
}

# Runs srun on gaea-h0 with the hosts' fabric as the application's network.
run_srun() {
  [[ -f $slurm_conf ]] ||
    { echo "cluster.sh: no Slurm cluster is up (scripts/cluster.sh up N --slurm)" >&2; exit 77; }
  export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-$iface}
  export UCX_NET_DEVICES=${UCX_NET_DEVICES:-$iface}
  exec_on "$(head -n1 "$state/hosts")" "$(printf '%q ' srun "$@")"
}

cmd="${1:-}"
shift || true
case "$cmd" in
  up) up "$@" ;;
  down) down; echo "cluster.sh: down" ;;
  status) status ;;
  mpirun) run_mpirun "$@" ;;
  srun) run_srun "$@" ;;
  exec) exec_on "$@" ;;
  check)
    check_capable
    if [[ ${1:-} == --slurm ]]; then
      check_slurm
      echo "cluster.sh: this machine can host an emulated cluster with Slurm"
    else
      echo "cluster.sh: this machine can host an emulated cluster"
    fi
    ;;
  -h | --help | help) usage ;;
  *) usage >&2; exit 2 ;;
esac
