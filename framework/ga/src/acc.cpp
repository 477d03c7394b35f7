// Target-driven accumulate: the origin packs each tile piece (split so that no message exceeds
// the transfer limit) and sends it in an active message; the owner's progress thread applies
// it. The packed copies belong to the operation, so the caller's buffer is free on return.
#include <cstring>

#include "detail/op_state.hpp"
#include "detail/wire.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/ga/array_core.hpp"
#include "gaea/runtime/runtime.hpp"
#include "tracker.hpp"

namespace gaea::ga::detail {

void array_core::acc(const patch& p, user_buffer buf, const void* alpha, op_state& st) {
  const index bs = buffer_strides(p, buf, "acc");
  tracker& tr = my_tracker();
  const auto* in = static_cast<const std::byte*>(buf.data);
  const int n = p.ndim();
  const std::size_t es = ops_.size;
  const std::size_t limit = rt_.comm().cfg().max_transfer;
  st.bytes += static_cast<std::uint64_t>(p.elements()) * es;
  dist_.for_each_tile(p, [&](const tile& t, const patch& piece) {
    // Split the piece along its leading dimensions until each message fits the transfer limit.
    std::vector<patch> parts{piece};
    for (std::size_t i = 0; i < parts.size();) {
      patch& q = parts[i];
      if (static_cast<std::size_t>(q.elements()) * es <= limit || q.elements() == 1) {
        ++i;
        continue;
      }
      int d = 0;
      while (d < n - 1 && q.extent(d) == 1)
        ++d;
      patch second = q;
      const index_t mid = q.lo[static_cast<std::size_t>(d)] + q.extent(d) / 2;
      q.hi[static_cast<std::size_t>(d)] = mid - 1;
      second.lo[static_cast<std::size_t>(d)] = mid;
      parts.push_back(second);
    }
    for (const patch& q : parts) {
      const std::size_t bytes = static_cast<std::size_t>(q.elements()) * es;
      std::byte* packed = st.buffer(bytes);
      const std::size_t row = static_cast<std::size_t>(q.extent(n - 1)) * es;
      std::size_t at = 0;
      const index zeros(static_cast<std::size_t>(n), 0);
      for_each_row(q, p.lo, bs, zeros, zeros, [&](index_t lo, index_t) {
        std::memcpy(packed + at, in + static_cast<std::size_t>(lo) * es, row);
        at += row;
      });
      if (t.rank == rt_.rank()) {
        apply_acc(q, packed, alpha);
        continue;
      }
      std::byte* header = st.buffer(patch_header_size(n));
      write_patch_header(header, id(), q, alpha, es);
      target_status& ts = tr.status(id(), t.rank);
      st.w.am_send(t.rank, acc_handler, {header, patch_header_size(n)}, {packed, bytes}, st.done,
                   ts.accs.get());
      tr.mark(id(), t.rank, false);
    }
  });
}

}  // namespace gaea::ga::detail
