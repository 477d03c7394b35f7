// Accumulate, protocol chosen per owner piece (protocol.hpp): added straight into the owner's
// memory when this process sees it (same node, rkey_ptr), else target-driven — each piece
// packed and sent in an active message that the owner's progress thread applies; the packed
// copies belong to the operation, so the caller's buffer is free on return. Both take the
// owner's striped locks (detail/acc_locks.hpp). Source-driven: see acc_source.cpp.
#include <algorithm>

#include "detail/acc_locks.hpp"
#include "detail/op_state.hpp"
#include "detail/registry.hpp"
#include "detail/stats_counters.hpp"
#include "detail/tracker.hpp"
#include "detail/wire.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

namespace {
// Target-driven accumulate of one piece, applied by the owner (sent by array_core::acc below).
void on_acc(const comm::am_message& m) {
  patch_header_fixed h{};
  const patch piece = read_patch_header(m.header, h);
  array_core& a = find_array(h.array_id, m.source);
  if (m.data.size() != static_cast<std::size_t>(piece.elements()) * a.elem_size())
    throw error("global_array '" + a.name() + "': accumulate of " + piece.str() + " carries " +
                std::to_string(m.data.size()) + " bytes");
  a.apply_acc(piece, m.data.data(), h.alpha);
  bump(counters().accs_served);
}
}  // namespace

void install_acc_handlers(runtime& rt) {
  rt.comm().register_handler(acc_handler, on_acc);
}

void array_core::acc(const patch& p, user_buffer buf, const void* alpha, op_state& st) {
  const index bs = buffer_strides(p, buf, "acc");
  const auto* in = static_cast<const std::byte*>(buf.data);
  const acc_protocol proto = current_acc_protocol();
  st.bytes += static_cast<std::uint64_t>(p.elements()) * ops_.size;
  dist_.for_each_tile(p, [&](const tile& t, const patch& piece) {
    if (proto == acc_protocol::source_driven) {
      acc_source_driven(t, piece, p, bs, in, alpha, st);
      return;
    }
    if (t.rank == rank_) {  // our own piece: added in place, without a message
      acc_direct(static_cast<std::byte*>(local_data()), t, piece, p, bs, in, alpha);
      return;
    }
    if (proto == acc_protocol::automatic) {
      if (std::byte* base = st.w.direct_base(t.rank, *seg_)) {
        // Our earlier writes there that are still in flight (a packed put, a target-driven
        // accumulate) complete first, so that a put's message cannot overwrite this sum later.
        fence_for_get(st.w, my_tracker(), t.rank);
        acc_direct(base, t, piece, p, bs, in, alpha);
        bump(counters().accs_direct);
        return;
      }
    }
    send_packed(acc_handler, t, piece, p, bs, in, alpha, acc_part_limit(), st);
  });
}

std::size_t array_core::acc_part_limit() const {
  const std::size_t chunk = current_acc_chunk_bytes(), limit = rt_.comm().cfg().max_transfer;
  return chunk == 0 ? limit : std::min(chunk, limit);
}

void array_core::acc_direct(std::byte* base, const tile& t, const patch& piece, const patch& p,
                            const index& bs, const std::byte* in, const void* alpha) {
  const std::size_t es = ops_.size;
  stripe_guard locks(base + acc_locks_offset(t.rank));
  for_each_piece_transfer(t, piece, p, bs, [&](const transfer& x) {
    for (std::size_t r = 0; r < x.rows; ++r) {
      const std::size_t off = x.remote_offset + r * x.remote_stride;
      const std::byte* src = in + x.local_offset + r * x.local_stride;
      locks.for_each_part(off, x.row_bytes, [&](std::size_t o, std::size_t bytes) {
        ops_.acc(base + o, src + (o - off), bytes / es, alpha);
      });
    }
  });
}

}  // namespace gaea::ga::detail
