// The allgather schedule builder: the ring.

#include <cstring>

#include "detail/builders.hpp"

namespace gaea::coll::detail {

void allgather_ring(schedule& s, const team& t, const std::byte* mine, std::byte* all,
                    std::span<const std::size_t> offsets, std::span<const std::size_t> sizes,
                    std::uint32_t phase) {
  const int n = t.size();
  if (t.pos < 0) return;
  const int me = t.pos;
  auto at = [&](int j) { return all ? all + offsets[static_cast<std::size_t>(j)] : nullptr; };
  auto len = [&](int j) { return sizes[static_cast<std::size_t>(j)]; };
  {
    round& c = s.add(step_kind::local_copy);
    std::byte* dst = at(me);
    const std::size_t b = len(me);
    s.then(
        c,
        [=] {
          if (b && dst != mine) std::memmove(dst, mine, b);
        },
        b);
  }
  const int next = t.member((me + 1) % n), prev = t.member((me - 1 + n) % n);
  for (int i = 0; i < n - 1; ++i) {
    const int out = (me - i + n) % n, in = (me - i - 1 + n) % n;
    round& x = s.add(step_kind::allgather);
    x.sends.push_back({next, tag(phase, static_cast<std::uint32_t>(i)), at(out), len(out)});
    x.recvs.push_back({prev, tag(phase, static_cast<std::uint32_t>(i)), at(in), len(in)});
  }
}

}  // namespace gaea::coll::detail
