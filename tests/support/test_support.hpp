#pragma once
// Helpers shared by the multi-rank tests.

#include <cstdint>
#include <string>
#include <vector>

#include "gaea/runtime/runtime.hpp"

namespace gaea::test {

inline runtime& rt() {
  return runtime::current();
}

/// All ranks' values of `mine`, in rank order. Collective over coll::world(): its wait keeps
/// serving peers (also with GAEA_PROGRESS=off).
std::vector<std::int64_t> allgather(std::int64_t mine);
std::vector<double> allgather(double mine);

/// Logical AND over ranks (coll::world()) — use before REQUIRE so that all ranks agree on the
/// verdict.
bool all(bool mine);

}  // namespace gaea::test
