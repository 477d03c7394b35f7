// Source-driven accumulate, the classic scheme kept for comparison ([PGAS-BGQ §III.D.1, Fig. 11]):
// per owner piece, take the owner's lock word with a remote compare-and-swap, get the piece, add,
// put it back, flush, release. Every step is a round trip the origin waits for, and concurrent
// accumulates to one owner serialise on its lock — the costs the target-driven default avoids.
#include <thread>

#include "detail/op_state.hpp"
#include "detail/tracker.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

void array_core::acc_source_driven(const tile& t, const patch& piece, const patch& p,
                                   const index& bs, const std::byte* in, const void* alpha,
                                   op_state& st) {
  const int n = p.ndim();
  const std::size_t es = ops_.size;
  const auto elems = static_cast<std::size_t>(piece.elements());
  comm::worker& w = st.w;
  fence_for_get(w, my_tracker(), t.rank);  // our earlier writes there come first

  const std::int64_t me = rank_ + 1, off = static_cast<std::int64_t>(lock_offset(t.rank));
  auto swap = [&](std::int64_t expected, std::int64_t desired) {
    std::int64_t old = -1;
    comm::completion c;
    w.compare_swap(t.rank, *seg_, static_cast<std::uint64_t>(off), expected, desired, &old, c);
    rt_.wait(c);
    return old;
  };
  while (swap(0, me) != 0)
    std::this_thread::yield();  // held by another origin: let it (or our own progress) run

  // The piece, packed row-major: its strides as a buffer whose patch is the piece itself.
  index ps(static_cast<std::size_t>(n), 1);
  for (int d = n - 2; d >= 0; --d)
    ps[static_cast<std::size_t>(d)] = ps[static_cast<std::size_t>(d) + 1] * piece.extent(d + 1);
  std::vector<std::byte> current(elems * es), mine(elems * es);
  {
    comm::completion got;
    for_each_piece_transfer(t, piece, piece, ps, [&](const transfer& x) {
      w.get_strided(t.rank, *seg_, x.remote_offset, x.remote_stride,
                    current.data() + x.local_offset, x.local_stride, x.row_bytes, x.rows, got);
    });
    rt_.wait(got);
  }
  pack_user(piece, p.lo, bs, in, mine.data());
  ops_.acc(current.data(), mine.data(), elems, alpha);
  {
    comm::completion put, flushed;
    for_each_piece_transfer(t, piece, piece, ps, [&](const transfer& x) {
      w.put_strided(t.rank, *seg_, x.remote_offset, x.remote_stride,
                    current.data() + x.local_offset, x.local_stride, x.row_bytes, x.rows, put);
    });
    rt_.wait(put);
    w.flush(t.rank, flushed);  // the sum is at the owner before the lock is released
    rt_.wait(flushed);
  }
  if (const std::int64_t held = swap(me, 0); held != me)
    throw error("global_array '" + name_ + "': source-driven accumulate found rank " +
                std::to_string(t.rank) + "'s lock held by " + std::to_string(held - 1));
}

}  // namespace gaea::ga::detail
