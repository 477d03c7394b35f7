// get and put: a patch becomes one piece per tile. Each piece goes either zero-copy (one RMA per
// contiguous chunk, posted together on the calling thread's worker) or packed (one message,
// packed.cpp), as the strided protocol setting and the calibrated model decide.
#include "detail/op_state.hpp"
#include "detail/stats_counters.hpp"
#include "detail/tracker.hpp"
#include "detail/wire.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

void array_core::get(const patch& p, user_buffer buf, op_state& st) {
  const index bs = buffer_strides(p, buf, "get");
  tracker& tr = my_tracker();
  auto* out = static_cast<std::byte*>(buf.data);
  int last = -1;
  st.bytes += static_cast<std::uint64_t>(p.elements()) * ops_.size;
  dist_.for_each_tile(p, [&](const tile& t, const patch& piece) {
    if (t.rank != last) fence_for_get(st.w, tr, t.rank);
    last = t.rank;
    if (use_packed(t.rank, piece)) {
      get_packed(t, piece, p, bs, out, st);
      return;
    }
    for_each_piece_transfer(t, piece, p, bs, [&](const transfer& x) {
      st.w.get_strided(t.rank, *seg_, x.remote_offset, x.remote_stride, out + x.local_offset,
                       x.local_stride, x.row_bytes, x.rows, st.done);
    });
    bump(counters().zero_copy_transfers);
  });
}

bool array_core::direct_row(op kind, const patch& p, const user_buffer& buf) {
  const int n = p.ndim();
  if (n == 0 || n != dist_.ndim() || p.hi.size() != p.lo.size()) return false;
  for (int d = 0; d + 1 < n; ++d)
    if (p.lo[d] != p.hi[d]) return false;
  const index_t len = p.hi[n - 1] - p.lo[n - 1] + 1;
  if (len <= 0 || buf.elems < static_cast<std::size_t>(len)) return false;
  if (!buf.ld.empty() && buf.ld.size() != static_cast<std::size_t>(n - 1)) return false;
  const bool put = kind == op::put;
  dist_.validate(p, put ? "put" : "get");
  const tile t = dist_.tile_of(p.lo);
  if (p.hi[n - 1] > t.box.hi[n - 1]) return false;  // the row crosses into another tile
  comm::worker& w = rt_.worker();
  if (!w.is_direct(t.rank, *seg_)) return false;
  const std::uint64_t t0 = op_clock();
  const auto bytes = static_cast<std::size_t>(len) * ops_.size;
  const auto offset = static_cast<std::uint64_t>(dist_.storage_offset(t, p.lo)) * ops_.size;
  tracker& tr = my_tracker();
  comm::completion unused;  // direct transfers complete before the call returns
  if (put) {
    w.put(t.rank, *seg_, offset, buf.data, bytes, unused);
    tr.mark(id(), t.rank, false);
  } else {
    fence_for_get(w, tr, t.rank);
    w.get(t.rank, *seg_, offset, buf.data, bytes, unused);
  }
  bump(counters().zero_copy_transfers);
  record(kind, bytes, op_clock() - t0);
  return true;
}

void array_core::put(const patch& p, user_buffer buf, op_state& st) {
  const index bs = buffer_strides(p, buf, "put");
  tracker& tr = my_tracker();
  const auto* in = static_cast<const std::byte*>(buf.data);
  st.bytes += static_cast<std::uint64_t>(p.elements()) * ops_.size;
  dist_.for_each_tile(p, [&](const tile& t, const patch& piece) {
    if (use_packed(t.rank, piece)) {
      send_packed(put_packed_handler, t, piece, p, bs, in, nullptr, rt_.comm().cfg().max_transfer,
                  st);
      bump(counters().packed_transfers);
      return;
    }
    for_each_piece_transfer(t, piece, p, bs, [&](const transfer& x) {
      st.w.put_strided(t.rank, *seg_, x.remote_offset, x.remote_stride, in + x.local_offset,
                       x.local_stride, x.row_bytes, x.rows, st.done);
    });
    // Direct stores (same node, rkey_ptr) are complete already; others need a flush later.
    tr.mark(id(), t.rank, !st.w.is_direct(t.rank, *seg_));
    bump(counters().zero_copy_transfers);
  });
}

}  // namespace gaea::ga::detail
