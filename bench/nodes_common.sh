#!/usr/bin/env bash
# Helpers shared by the benchmarks across emulated hosts (bench/compare_rma_nodes.sh,
# bench/compare_counters.sh --hosts). Source it; it defines functions only, plus:
#   nodes_cluster   path of scripts/cluster.sh
#   GAEA_CLUSTER_NAME   exported, default "gaeab" (a cluster of the benchmarks' own, so a
#                       developer's or the tests' clusters are never touched)
#
#   nodes_up PRESET          (re)create the 2-host cluster (2 slots per host) with --preset
#                            PRESET (none, bgq, ib); no-op when it is already up with PRESET
#   nodes_down               remove it (call from an EXIT trap)
#   nodes_status             'scripts/cluster.sh status' of the cluster that is up
#   nodes_mpirun ARGS...     'scripts/cluster.sh mpirun ARGS...'
#   ga_env VARIANT           the environment (NAME=value words) that makes Global Arrays run on
#                            Open MPI: default (Open MPI's choice), pt2pt (osc/pt2pt over the
#                            ob1 pml), ucx (osc/ucx over the ucx pml, tcp allowed), nocma (one
#                            node: vader without single-copy)
#   load_now                 the 1/5/15-minute load averages (they include the benchmark's own
#                            ranks of the previous launches)
#   busy_now                 the share of all cores busy over the next 0.5 s and the programs
#                            running then, e.g. "97% gaea-lbm x4": taken between launches,
#                            this is what other jobs use
# Not meant to be run by itself.

nodes_cluster=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/cluster.sh
export GAEA_CLUSTER_NAME=${GAEA_CLUSTER_NAME:-gaeab}
nodes_preset=""

nodes_up() {
  local preset=$1
  [[ $nodes_preset == "$preset" ]] && return 0
  "$nodes_cluster" up 2 --ppn 2 --preset "$preset" >/dev/null
  nodes_preset=$preset
}

nodes_down() {
  "$nodes_cluster" down >/dev/null 2>&1 || true
  nodes_preset=""
}

nodes_status() { "$nodes_cluster" status; }

nodes_mpirun() { "$nodes_cluster" mpirun "$@"; }

ga_env() {
  case "$1" in
    default) ;;  # Debian's /etc/openmpi/openmpi-mca-params.conf excludes osc ucx and pt2pt
    pt2pt) echo "OMPI_MCA_osc=pt2pt" ;;
    ucx) echo "OMPI_MCA_pml=ucx OMPI_MCA_osc=ucx OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any" ;;
    nocma) echo "OMPI_MCA_btl_vader_single_copy_mechanism=none" ;;
    *) echo "unknown GA variant '$1' (default, pt2pt, ucx, nocma)" >&2; return 1 ;;
  esac
}

load_now() { cut -d' ' -f1-3 /proc/loadavg; }

busy_now() {
  local a b
  a=$(head -n1 /proc/stat)
  sleep 0.5
  b=$(head -n1 /proc/stat)
  awk -v a="$a" -v b="$b" 'BEGIN {
    n = split(a, x, " "); split(b, y, " "); t = 0
    for (i = 2; i <= n; i++) t += y[i] - x[i]
    idle = (y[5] - x[5]) + (y[6] - x[6])
    printf("%.0f%%", (t > 0) ? 100 * (t - idle) / t : 0) }'
  # shellcheck disable=SC2009
  ps -eo stat=,comm= | awk '$1 ~ /^R/ && $2 !~ /^(ps|awk|bash|sleep|head|sort|uniq)$/ { n[$2]++ }
    END { for (c in n) printf(" %s x%d", c, n[c]) }'
}
