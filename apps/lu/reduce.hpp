#pragma once
/// \file
/// Small reductions over ranks for the LU mini-app's checks and report.

#include <mpi.h>

#include <span>

#include "gaea/runtime/runtime.hpp"

namespace gaea::lu {

/// Collective: element-wise reduction of `v` over all ranks, in place. A Gaea barrier comes
/// first, so no rank sits in MPI while a peer still needs it to serve one-sided operations
/// (GAEA_PROGRESS=off).
inline void allreduce(std::span<double> v, MPI_Op op = MPI_SUM) {
  runtime::current().barrier();
  MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, op, MPI_COMM_WORLD);
}

inline double allreduce(double x, MPI_Op op = MPI_SUM) {
  allreduce(std::span(&x, 1), op);
  return x;
}

}  // namespace gaea::lu
