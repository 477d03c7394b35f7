#pragma once
// Internal (not API): the per-process limits the transport needs, checked at start-up so that a
// low `ulimit -n` or a small /dev/shm is an error naming the limit, not a UCX assertion later.
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace gaea::comm::detail {

/// Collective over `comm`. Raises this process's open-files soft limit towards its hard limit
/// when it is below what `size` ranks need (sockets, UCX's event and memory files); then throws
/// gaea::error on every rank, naming the rank, the limit and the remedy, if any rank is still
/// short of it, or if a node whose ranks share memory has too little free in /dev/shm for their
/// message queues. `node_of[r]` is rank r's node; `shared_memory` says whether UCX may use it.
void check_process_limits(MPI_Comm comm, int rank, const std::vector<int>& node_of,
                          bool shared_memory);

}  // namespace gaea::comm::detail
