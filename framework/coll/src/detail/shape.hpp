#pragma once
// The pattern of an algorithm for any member without buffers: what the energy strategy
// classifies per round and what the estimator walks.

#include <cstddef>

#include "detail/group_state.hpp"
#include "detail/schedule.hpp"
#include "gaea/coll/options.hpp"

namespace gaea::coll::detail {

/// Shape-only schedule of `a` for member `me` of `g`, moving `bytes` per member (broadcast,
/// reduce: the buffer; allgather, gather, scatter: each member's part; alltoall: one block),
/// root 0: the registry entry's builder without buffers. `a` must implement `op`.
schedule shape_schedule(operation op, algorithm a, const group_state& g, int me, std::size_t bytes,
                        std::size_t chunk);

/// A group state with `size` members over `nodes` nodes (block or cyclic placement) for
/// predictions and tests; no runtime behind it.
std::shared_ptr<group_state> synthetic_group(int size, int nodes, bool block);

}  // namespace gaea::coll::detail
