#pragma once
/// \file
/// The MPI communicator a gaea::runtime is built on: MPI_COMM_WORLD unless the program chose
/// another before constructing the runtime (e.g. GA_Initialize_comm: a runtime over half of the
/// job's ranks, while the other half waits or runs its own).

#include <mpi.h>

namespace gaea {

/// The communicator of the live runtime, or of the next one constructed.
MPI_Comm runtime_communicator() noexcept;
/// Builds the next runtime on `comm` (MPI_COMM_WORLD to go back); its ranks are comm's ranks.
/// Call on the ranks of `comm` before constructing the runtime there; the caller keeps `comm`
/// valid until that runtime is destroyed. Throws gaea::error while a runtime is live.
void set_runtime_communicator(MPI_Comm comm);

}  // namespace gaea
