// The allgather schedule builders: the ring, and Bruck's log2 P steps for small parts.

#include <algorithm>
#include <cstring>
#include <vector>

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

void allgather_bruck(schedule& s, const team& t, const std::byte* mine, std::byte* all,
                     std::span<const std::size_t> offsets, std::span<const std::size_t> sizes,
                     std::uint32_t phase) {
  const int n = t.size();
  if (t.pos < 0) return;
  const int me = t.pos;
  // Parts are gathered in a temporary in relative order (position me + j at slot j), so that
  // every step sends and receives one contiguous run of slots; a last copy puts them in place.
  auto abs = [&](int j) { return static_cast<std::size_t>((me + j) % n); };
  std::vector<std::size_t> at(static_cast<std::size_t>(n) + 1, 0);
  for (int j = 0; j < n; ++j)
    at[static_cast<std::size_t>(j) + 1] = at[static_cast<std::size_t>(j)] + sizes[abs(j)];
  const std::size_t total = at.back();
  std::byte* tmp = all ? s.temp(total) : nullptr;
  auto slot = [&](int j) { return tmp ? tmp + at[static_cast<std::size_t>(j)] : nullptr; };
  {
    round& c = s.add(step_kind::local_copy);
    const std::size_t b = sizes[static_cast<std::size_t>(me)];
    s.then(
        c,
        [tmp, mine, b] {
          if (b) std::memcpy(tmp, mine, b);
        },
        b);
  }
  std::uint32_t step = 0;
  for (int dist = 1; dist < n; dist *= 2, ++step) {
    const int cnt = std::min(dist, n - dist);
    round& x = s.add(step_kind::allgather);
    x.sends.push_back({t.member((me - dist + n) % n), tag(phase, step), slot(0),
                       at[static_cast<std::size_t>(cnt)]});
    x.recvs.push_back(
        {t.member((me + dist) % n), tag(phase, step), slot(dist),
         at[static_cast<std::size_t>(dist + cnt)] - at[static_cast<std::size_t>(dist)]});
  }
  round& out = s.add(step_kind::local_copy);
  std::vector<std::size_t> where(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j)
    where[static_cast<std::size_t>(j)] = all ? offsets[abs(j)] : 0;
  s.then(
      out,
      [tmp, all, at = std::move(at), where = std::move(where)] {
        for (std::size_t j = 0; j + 1 < at.size(); ++j)
          if (at[j + 1] > at[j]) std::memcpy(all + where[j], tmp + at[j], at[j + 1] - at[j]);
      },
      total);
}

}  // namespace gaea::coll::detail
