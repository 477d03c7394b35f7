// The owner's side of the active-message fall-back for unregistered memory [PGAS-BGQ eq. 8].

#include "detail/rma_fallback.hpp"

#include <cstring>
#include <span>
#include <string>

#include "detail/access.hpp"
#include "gaea/base/detail/copy.hpp"
#include "gaea/base/error.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/segment.hpp"

namespace gaea::comm::detail {

void serve_rma_request(context& ctx, const am_message& msg) {
  rma_request r{};
  if (msg.header.size() != sizeof r)
    throw error("gaea::comm: malformed RMA fall-back request from rank " +
                std::to_string(msg.source));
  std::memcpy(&r, msg.header.data(), sizeof r);
  // The segment lives at least until the barrier after the origin's last access to it.
  segment* seg = access::find_segment(ctx, r.segment);
  if (!seg)
    throw error("gaea::comm: RMA fall-back request from rank " + std::to_string(msg.source) +
                " for segment id " + std::to_string(r.segment) + ", which rank " +
                std::to_string(ctx.rank()) + " does not have");
  const std::size_t size = seg->local_size();
  if (r.offset > size || r.bytes > size - r.offset ||
      (r.op == rma_op::put && msg.data.size() != r.bytes))
    throw error("gaea::comm: RMA fall-back on segment '" + seg->name() + "': bytes [" +
                std::to_string(r.offset) + ", " + std::to_string(r.offset + r.bytes) +
                ") outside rank " + std::to_string(ctx.rank()) + "'s " + std::to_string(size) +
                " bytes");
  std::byte* at = static_cast<std::byte*>(seg->local_base()) + r.offset;
  switch (r.op) {
    case rma_op::put:
      gaea::detail::copy_bytes(at, msg.data.data(), r.bytes);
      return;
    case rma_op::get:
      msg.reply(std::span<const std::byte>(at, r.bytes));
      return;
    case rma_op::fetch_add: {
      // CPU atomics: every atomic on this memory comes here (or is this rank's own, the same).
      const std::int64_t old =
          __atomic_fetch_add(reinterpret_cast<std::int64_t*>(at), r.operand, __ATOMIC_SEQ_CST);
      msg.reply(std::as_bytes(std::span(&old, 1)));
      return;
    }
    case rma_op::compare_swap: {
      std::int64_t expected = r.operand;
      __atomic_compare_exchange_n(reinterpret_cast<std::int64_t*>(at), &expected, r.desired, false,
                                  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
      msg.reply(std::as_bytes(std::span(&expected, 1)));  // the previous value either way
      return;
    }
  }
  throw error("gaea::comm: RMA fall-back request with unknown operation from rank " +
              std::to_string(msg.source));
}

}  // namespace gaea::comm::detail
