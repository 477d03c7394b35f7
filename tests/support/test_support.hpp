#pragma once
// Helpers shared by the multi-rank tests.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gaea/runtime/runtime.hpp"

namespace gaea::test {

inline runtime& rt() {
  return runtime::current();
}

/// All ranks' values of `mine`, in rank order. Starts with a progress-aware gaea barrier: a rank
/// blocked in a plain MPI collective would stop serving its peers when GAEA_PROGRESS=off.
std::vector<std::int64_t> allgather(std::int64_t mine);
std::vector<double> allgather(double mine);

/// Logical AND over ranks (also behind a gaea barrier) — use before REQUIRE so that all ranks agree
/// on the verdict.
bool all(bool mine);

}  // namespace gaea::test
