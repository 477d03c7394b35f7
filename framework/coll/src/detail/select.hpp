#pragma once
// Which algorithm a call runs: the call's option, else GAEA_COLL_ALGO, else the estimator's
// cheapest (with a calibration), else the documented size rules.

#include <cstddef>

#include "detail/group_state.hpp"
#include "detail/settings.hpp"
#include "gaea/coll/options.hpp"

namespace gaea::coll::detail {

struct call_shape {
  operation op;
  std::size_t bytes = 0;  // per member: the buffer (broadcast, reduce), the block (alltoall)
  bool uniform = true;    // alltoall: same block everywhere (Bruck needs it)
};

/// Empty when `a` can run on `size` members (with equal blocks or not), else why not.
const char* cannot_run(algorithm a, int size, bool uniform) noexcept;

/// gaea::error when `requested` does not implement the operation or cannot run here (pairwise
/// on a group whose size is not a power of two, Bruck on alltoallv).
algorithm choose(const group_state& g, const call_shape& c, algorithm requested, const settings& s);

/// Empty when algorithm::shared_memory can run this call: a group within one node (alltoall with
/// equal blocks), GAEA_COLL_SHM_BYTES not 0, and the region made (or not tried yet).
std::string shm_cannot_run(const group_state& g, const call_shape& c, const settings& s);

/// The documented rules used without a calibration (framework/coll/README.md).
algorithm default_rule(const group_state& g, const call_shape& c);

}  // namespace gaea::coll::detail
