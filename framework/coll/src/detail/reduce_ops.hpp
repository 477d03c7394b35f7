#pragma once
// Element-wise reduction kernels for every (element type, operator) pair.

#include "detail/builders.hpp"
#include "gaea/coll/collectives.hpp"

namespace gaea::coll::detail {

/// The kernel for `op` on `e`; gaea::error naming both when the pair is not defined.
reducer make_reducer(elem e, reduce_op op);
const char* to_string(elem e) noexcept;

}  // namespace gaea::coll::detail
