#pragma once
// Internal to the runtime: this node's hardware and where this rank's progress thread goes,
// decided with the other ranks of the node (placement.cpp).

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "gaea/runtime/topology.hpp"

namespace gaea::detail {

struct node_placement {
  std::unique_ptr<topology> topo;
  std::vector<int> own;            // this rank's main-thread binding (OS PU indices)
  progress_placement progress;     // the progress thread's PUs and why
  bool own_hw = false;             // runtime::progress_has_own_hw_thread
  bool ranks_share_cores = false;  // progress::engine_options::ranks_share_cores
};

// Loads the topology and places the progress thread from every node rank's binding. Collective
// over `node_comm` (node_rank of node_size). `bind`: GAEA_PROGRESS_BIND ("auto" or "none");
// `shared`: GAEA_SHARED_CORES ("auto", "yes" or "no").
node_placement place_on_node(MPI_Comm node_comm, int node_rank, int node_size,
                             const std::string& bind, const std::string& shared);

}  // namespace gaea::detail
