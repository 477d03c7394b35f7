#pragma once
// MPI reductions and error agreement for the collective algorithms and HDF5 I/O. Every wait
// goes through the comm layer's progress-aware MPI wait: a rank blocked in a plain MPI call
// would stop serving its peers when GAEA_PROGRESS=off.

#include <mpi.h>

#include <string>

namespace gaea {
class runtime;
}

namespace gaea::ga::detail {

/// In-place allreduce of `count` elements over all ranks of the runtime.
void allreduce(runtime& rt, void* inout, int count, MPI_Datatype type, MPI_Op op);

/// `s` as rank `root` has it, on every rank.
std::string broadcast(runtime& rt, std::string s, int root);

/// Collective verdict: `problem` is this rank's error (empty when fine). If any rank has one,
/// every rank throws gaea::Error with the lowest such rank's message, so that no rank goes on
/// into a collective that the others have left.
void agree(runtime& rt, const std::string& problem);

}  // namespace gaea::ga::detail
