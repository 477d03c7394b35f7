// Packed (copy-based) protocol: one active message per owner piece (split to the transfer
// limit). Puts and accumulates carry the piece packed row-major and are unpacked or applied by
// the owner's progress thread; gets ask the owner to pack the piece into the reply, which the
// origin unpacks into the user's buffer when the operation completes.
#include <algorithm>
#include <cstring>

#include "detail/op_state.hpp"
#include "detail/registry.hpp"
#include "detail/stats_counters.hpp"
#include "detail/tracker.hpp"
#include "detail/wire.hpp"
#include "gaea/base/detail/copy.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

std::vector<patch> split_to_fit(const patch& piece, std::size_t es, std::size_t limit) {
  const int n = piece.ndim();
  std::vector<patch> parts{piece};
  for (std::size_t i = 0; i < parts.size();) {
    patch& q = parts[i];
    if (static_cast<std::size_t>(q.elements()) * es <= limit || q.elements() == 1) {
      ++i;
      continue;
    }
    // Halve the leading dimension that has more than one element.
    int d = 0;
    while (d < n - 1 && q.extent(d) == 1)
      ++d;
    const auto k = static_cast<std::size_t>(d);
    patch second = q;
    const index_t mid = q.lo[k] + q.extent(d) / 2;
    q.hi[k] = mid - 1;
    second.lo[k] = mid;
    parts.push_back(second);
  }
  return parts;
}

namespace {

void check_size(const array_core& a, const patch& piece, std::size_t bytes, const char* what,
                int source) {
  if (bytes != static_cast<std::size_t>(piece.elements()) * a.elem_size())
    throw error("global_array '" + a.name() + "': " + what + " of " + piece.str() + " from rank " +
                std::to_string(source) + " has room for " + std::to_string(bytes) + " bytes");
}

void on_put_packed(const comm::am_message& m) {
  patch_header_fixed h{};
  const patch piece = read_patch_header(m.header, h);
  array_core& a = find_array(h.array_id, m.source);
  check_size(a, piece, m.data.size(), "packed put", m.source);
  a.unpack_local(piece, m.data.data());
  bump(counters().packed_served);
}

void on_get_packed(const comm::am_message& m) {
  patch_header_fixed h{};
  const patch piece = read_patch_header(m.header, h);
  array_core& a = find_array(h.array_id, m.source);
  const std::size_t bytes = static_cast<std::size_t>(piece.elements()) * a.elem_size();
  check_size(a, piece, m.reply_capacity, "packed get", m.source);
  std::vector<std::byte> out(bytes);
  a.pack_local(piece, out.data());
  m.reply(out);
  bump(counters().packed_served);
}

}  // namespace

void install_packed_handlers(runtime& rt) {
  rt.comm().register_handler(put_packed_handler, on_put_packed);
  rt.comm().register_handler(get_packed_handler, on_get_packed);
}

bool array_core::use_packed(int target, const patch& piece) {
  if (target == rank_) return false;  // local pieces are plain copies either way
  const int n = piece.ndim();
  const auto chunks = static_cast<std::size_t>(piece.elements() / piece.extent(n - 1));
  if (chunks <= 1) return false;  // contiguous: one RMA
  switch (current_strided_protocol()) {
    case strided_protocol::zero_copy:
      return false;
    case strided_protocol::packed:
      return true;
    case strided_protocol::automatic:
      break;
  }
  return model_for(target).prefer_packed(chunks,
                                         static_cast<std::size_t>(piece.elements()) * ops_.size);
}

namespace {
// Calls copy(user offset, packed offset, row bytes) for every row of `q`, in packed order.
template <class Copy>
void for_each_packed_row(const patch& q, const index& lo, const index& bs, std::size_t es,
                         Copy&& copy) {
  const std::size_t row = static_cast<std::size_t>(q.extent(q.ndim() - 1)) * es;
  const index zeros(static_cast<std::size_t>(q.ndim()), 0);
  std::size_t at = 0;
  for_each_row(q, lo, bs, zeros, zeros, [&](index_t off, index_t) {
    copy(static_cast<std::size_t>(off) * es, at, row);
    at += row;
  });
}
}  // namespace

void array_core::pack_user(const patch& q, const index& lo, const index& bs, const std::byte* in,
                           std::byte* packed) const {
  for_each_packed_row(q, lo, bs, ops_.size, [&](std::size_t off, std::size_t at, std::size_t row) {
    gaea::detail::copy_bytes(packed + at, in + off, row);
  });
}

void array_core::unpack_user(const patch& q, const index& lo, const index& bs,
                             const std::byte* packed, std::byte* out) const {
  for_each_packed_row(q, lo, bs, ops_.size, [&](std::size_t off, std::size_t at, std::size_t row) {
    gaea::detail::copy_bytes(out + off, packed + at, row);
  });
}

void array_core::get_packed(const tile& t, const patch& piece, const patch& p, const index& bs,
                            std::byte* out, op_state& st) {
  const std::size_t es = ops_.size, hsize = patch_header_size(p.ndim());
  for (const patch& q : split_to_fit(piece, es, rt_.comm().cfg().max_transfer)) {
    const std::size_t bytes = static_cast<std::size_t>(q.elements()) * es;
    std::byte* reply = st.buffer(bytes);
    std::byte* header = st.buffer(hsize);
    write_patch_header(header, id(), q, nullptr, es);
    st.w.am_send(t.rank, get_packed_handler, {header, hsize}, {}, st.done, &st.done,
                 {reply, bytes});
    st.finishers.push_back(
        [this, q, lo = p.lo, bs, reply, out] { unpack_user(q, lo, bs, reply, out); });
  }
  bump(counters().packed_transfers);
}

void array_core::send_packed(comm::handler_id h, const tile& t, const patch& piece, const patch& p,
                             const index& bs, const std::byte* in, const void* alpha,
                             std::size_t limit, op_state& st) {
  const std::size_t es = ops_.size, hsize = patch_header_size(p.ndim());
  tracker& tr = my_tracker();
  for (const patch& q : split_to_fit(piece, es, limit)) {
    const std::size_t bytes = static_cast<std::size_t>(q.elements()) * es;
    std::byte* packed = st.buffer(bytes);
    pack_user(q, p.lo, bs, in, packed);
    std::byte* header = st.buffer(hsize);
    write_patch_header(header, id(), q, alpha, es);
    // Remote completion counts on the (array, target) status, so fences and gets wait for it.
    st.w.am_send(t.rank, h, {header, hsize}, {packed, bytes}, st.done,
                 &tr.status(id(), t.rank).accs);
    tr.mark(id(), t.rank, false);
  }
}

}  // namespace gaea::ga::detail
