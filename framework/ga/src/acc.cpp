// Accumulate. Target-driven (the default): each tile piece is packed and sent in an active
// message that the owner's progress thread applies; the packed copies belong to the operation,
// so the caller's buffer is free on return. Source-driven: see acc_source.cpp.
#include "detail/op_state.hpp"
#include "detail/registry.hpp"
#include "detail/stats_counters.hpp"
#include "detail/wire.hpp"
#include "gaea/comm/context.hpp"
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
  const std::size_t es = ops_.size;
  const bool source_driven = current_acc_protocol() == acc_protocol::source_driven;
  st.bytes += static_cast<std::uint64_t>(p.elements()) * es;
  dist_.for_each_tile(p, [&](const tile& t, const patch& piece) {
    if (source_driven) {
      acc_source_driven(t, piece, p, bs, in, alpha, st);
    } else if (t.rank != rank_) {
      send_packed(acc_handler, t, piece, p, bs, in, alpha, st);
    } else {  // our own piece: applied here, without a message
      std::vector<std::byte> packed(static_cast<std::size_t>(piece.elements()) * es);
      pack_user(piece, p.lo, bs, in, packed.data());
      apply_acc(piece, packed.data(), alpha);
    }
  });
}

}  // namespace gaea::ga::detail
