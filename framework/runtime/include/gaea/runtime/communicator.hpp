#pragma once
/// \file
/// The MPI communicator a gaea::runtime is built on: MPI_COMM_WORLD unless the program chose
/// another before constructing the runtime (e.g. GA_Initialize_comm: a runtime over half of the
/// job's ranks, while the other half waits or runs its own), and the communicator of a node's
/// ranks. Apart from runtime.hpp so that programs that use no MPI do not include <mpi.h>.

#include <mpi.h>

namespace gaea {

class runtime;

/// The communicator of the live runtime, or of the next one constructed.
MPI_Comm runtime_communicator() noexcept;
/// Builds the next runtime on `comm` (MPI_COMM_WORLD to go back); its ranks are comm's ranks.
/// Call on the ranks of `comm` before constructing the runtime there; the caller keeps `comm`
/// valid until that runtime is destroyed. Throws gaea::error while a runtime is live.
void set_runtime_communicator(MPI_Comm comm);

/// A communicator of the ranks of `rt` on this node (MPI_COMM_TYPE_SHARED; owned by the
/// runtime). For collective set-up of node-shared memory only, from the owner thread.
MPI_Comm node_comm(const runtime& rt) noexcept;

}  // namespace gaea
