// Source-driven accumulate, the classic scheme kept for comparison ([PGAS-BGQ §III.D.1, Fig. 11]):
// per owner piece, take the owner's lock word with a remote compare-and-swap, get the piece, add,
// put it back, flush, release. Every step is a round trip the origin waits for, and concurrent
// accumulates to one owner serialise on its lock — the costs the target-driven default avoids.
// Pipelined in parts of acc_part_limit() bytes: while part k is added, the get of part k+1 and
// the put of part k-1 are in flight. The two staging buffers belong to the calling thread and
// are reused from call to call (no allocation or zeroing per accumulate).
#include <algorithm>
#include <thread>
#include <vector>

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

  const std::vector<patch> parts = split_to_fit(piece, es, acc_part_limit());
  std::size_t most = 0;
  for (const patch& q : parts)
    most = std::max(most, static_cast<std::size_t>(q.elements()) * es);
  thread_local std::vector<std::byte> stage[2];  // grown when needed, never shrunk
  for (auto& s : stage)
    if (s.size() < most) s.resize(most);
  // Each part, packed row-major: its strides as a buffer whose patch is the part itself (used by
  // its get and its put).
  std::vector<index> packed(parts.size(), index(static_cast<std::size_t>(n), 1));
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (int d = n - 2; d >= 0; --d)
      packed[i][static_cast<std::size_t>(d)] =
          packed[i][static_cast<std::size_t>(d) + 1] * parts[i].extent(d + 1);
  comm::completion got[2], put[2];
  auto post_get = [&](std::size_t i) {
    const patch& q = parts[i];
    std::byte* buf = stage[i % 2].data();
    for_each_piece_transfer(t, q, q, packed[i], [&](const transfer& x) {
      w.get_strided(t.rank, *seg_, x.remote_offset, x.remote_stride, buf + x.local_offset,
                    x.local_stride, x.row_bytes, x.rows, got[i % 2]);
    });
  };

  while (swap(0, me) != 0)
    std::this_thread::yield();  // held by another origin: let it (or our own progress) run
  post_get(0);
  const index zeros(static_cast<std::size_t>(n), 0);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i + 1 < parts.size()) {
      rt_.wait(put[(i + 1) % 2]);  // part i-1 has left the buffer part i+1 arrives in
      post_get(i + 1);
    }
    rt_.wait(got[i % 2]);
    const patch& q = parts[i];
    std::byte* buf = stage[i % 2].data();
    const std::size_t row = static_cast<std::size_t>(q.extent(n - 1)) * es;
    std::size_t at = 0;
    for_each_row(q, p.lo, bs, zeros, zeros, [&](index_t user, index_t) {
      ops_.acc(buf + at, in + static_cast<std::size_t>(user) * es, row / es, alpha);
      at += row;
    });
    for_each_piece_transfer(t, q, q, packed[i], [&](const transfer& x) {
      w.put_strided(t.rank, *seg_, x.remote_offset, x.remote_stride, buf + x.local_offset,
                    x.local_stride, x.row_bytes, x.rows, put[i % 2]);
    });
  }
  rt_.wait(put[0]);
  rt_.wait(put[1]);
  comm::completion flushed;
  w.flush(t.rank, flushed);  // the sums are at the owner before the lock is released
  rt_.wait(flushed);
  if (const std::int64_t held = swap(me, 0); held != me)
    throw error("global_array '" + name_ + "': source-driven accumulate found rank " +
                std::to_string(t.rank) + "'s lock held by " + std::to_string(held - 1));
}

}  // namespace gaea::ga::detail
