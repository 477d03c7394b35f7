// This node's topology and the placement of this rank's progress thread, decided from every node
// rank's binding.

#include "detail/placement.hpp"

#include "gaea/comm/detail/bootstrap.hpp"

namespace gaea::detail {

node_placement place_on_node(MPI_Comm node_comm, int node_rank, int node_size,
                             const std::string& bind, const std::string& shared) {
  node_placement p;
  p.topo = std::make_unique<topology>();
  p.own = p.topo->thread_binding();
  const auto node_bindings = comm::detail::allgatherv(node_comm, p.own);
  p.progress = place_progress_thread(p.topo->pus_by_core(), p.topo->allowed_pus(), p.own,
                                     node_bindings, node_rank);
  if (bind == "none") {
    p.progress.cpus = p.topo->allowed_pus();
    p.progress.description = "unpinned (GAEA_PROGRESS_BIND=none)";
  }
  // Enough hardware threads for every main thread and every progress thread on the node?
  p.own_hw = p.progress.dedicated || p.topo->pus() >= 2 * node_size;
  // GAEA_SHARED_CORES=yes: other processes (other jobs, emulated hosts) use these cores too.
  p.ranks_share_cores = p.topo->pus() < node_size;
  if (shared != "auto") p.ranks_share_cores = shared == "yes";
  if (shared == "yes") p.own_hw = false;
  return p;
}

}  // namespace gaea::detail
