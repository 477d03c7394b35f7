#pragma once
// The active-message fall-back for memory that could not be registered [PGAS-BGQ eq. 8]: the
// request an origin sends (worker.cpp) and the owner's handler (rma_fallback.cpp).

#include <cstdint>

#include "gaea/comm/types.hpp"

namespace gaea::comm {
class context;
}

namespace gaea::comm::detail {

enum class rma_op : std::uint8_t { put, get, fetch_add, compare_swap };

/// Header of a fall-back request; a put's data follows as the message data, a get's and an
/// atomic's answer comes back as the reply.
struct rma_request {
  std::uint64_t segment;  // id
  std::uint64_t offset;   // bytes from the start of the owner's part
  std::uint64_t bytes;    // put/get length (8 for atomics)
  std::int64_t operand;   // fetch_add: addend; compare_swap: expected value
  std::int64_t desired;   // compare_swap: the value stored when the remote equals `operand`
  rma_op op;
};

/// Serves `msg` on `ctx`'s service worker: copies at the owner, or a CPU atomic on its memory.
/// Throws gaea::error (returned to the origin) for an unknown segment or a range outside it.
void serve_rma_request(context& ctx, const am_message& msg);

}  // namespace gaea::comm::detail
