// Accumulate. Target-driven (the default): each tile piece is packed and sent in an active
// message that the owner's progress thread applies; the packed copies belong to the operation,
// so the caller's buffer is free on return. Source-driven: see acc_source.cpp.
#include "detail/op_state.hpp"
#include "detail/wire.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

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
