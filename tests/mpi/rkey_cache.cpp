// The remote-key cache (GAEA_RKEY_CACHE, registered here at 2 keys): more (segment, peer) keys
// than the cache holds stay correct, evictions happen and are counted, and a much-used key
// outlives rarely used ones (LFU, not LRU).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gaea/comm/completion.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/op_stats.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/comm/worker.hpp"
#include "test_support.hpp"

using namespace gaea;
using gaea::test::rt;

namespace {
comm::op_totals totals_of(const comm::worker& w) {
  comm::op_totals t;
  w.stats().add_to(t);
  return t;
}
}  // namespace

TEST_CASE("rkey cache: put, get and fetch-add over more keys than the cache stay exact",
          "[comm][rkey_cache]") {
  const int me = rt().rank(), n = rt().size();
  REQUIRE(rt().comm().cfg().rkey_cache == 2);
  constexpr int segments = 3, rounds = 4;
  std::vector<std::unique_ptr<comm::segment>> segs;
  for (int s = 0; s < segments; ++s)
    segs.push_back(std::make_unique<comm::segment>(
        rt().comm(), sizeof(std::int64_t) * (static_cast<std::size_t>(n) + 1),
        "cached" + std::to_string(s)));
  auto& w = rt().worker();
  const comm::op_totals before = totals_of(w);
  // Slot `me` of every rank's part of every segment: this rank's value; word n: a counter.
  comm::completion c;
  for (int r = 0; r < rounds; ++r)
    for (int s = 0; s < segments; ++s)
      for (int t = 0; t < n; ++t) {
        const std::int64_t v = 1000000LL * r + 1000LL * s + me;
        w.put(t, *segs[s], sizeof v * static_cast<std::size_t>(me), &v, sizeof v, c);
        std::int64_t old = -1;
        w.fetch_add(t, *segs[s], sizeof v * static_cast<std::size_t>(n), 1, &old, c);
        rt().wait(c);
        w.flush(t, c);
        rt().wait(c);
        std::int64_t back = -1;
        w.get(t, *segs[s], sizeof v * static_cast<std::size_t>(me), &back, sizeof back, c);
        rt().wait(c);
        REQUIRE(back == v);
      }
  rt().barrier();
  for (int s = 0; s < segments; ++s) {
    const auto* mine = static_cast<const std::int64_t*>(segs[s]->local_base());
    for (int t = 0; t < n; ++t)
      CHECK(mine[t] == 1000000LL * (rounds - 1) + 1000LL * s + t);
    CHECK(mine[n] == static_cast<std::int64_t>(rounds) * n);
  }
  // Keys without a direct pointer count against the cache: with more of them than it holds,
  // every round unpacks again.
  int evictable = 0;
  for (int s = 0; s < segments; ++s)
    for (int t = 0; t < n; ++t)
      if (!w.is_direct(t, *segs[s])) ++evictable;
  const comm::op_totals after = totals_of(w);
  const std::uint64_t misses = after.key_misses - before.key_misses;
  const std::uint64_t evictions = after.key_evictions - before.key_evictions;
  CHECK(after.key_hits > before.key_hits);
  if (evictable > 2) {
    CHECK(evictions > 0);
    CHECK(misses > static_cast<std::uint64_t>(segments * n));  // more than one per key
  } else {
    CHECK(evictions == 0);
  }
  rt().barrier();
}

TEST_CASE("rkey cache: a much-used key stays while rarely used ones take turns (LFU)",
          "[comm][rkey_cache]") {
  const int me = rt().rank(), n = rt().size();
  const int peer = (me + 1) % n;
  std::vector<std::unique_ptr<comm::segment>> segs;
  for (int s = 0; s < 3; ++s)
    segs.push_back(std::make_unique<comm::segment>(rt().comm(), 64, "lfu" + std::to_string(s)));
  auto& w = rt().worker();
  if (n > 1 && !w.is_direct(peer, *segs[0]) && !w.is_direct(peer, *segs[1]) &&
      !w.is_direct(peer, *segs[2])) {
    comm::completion c;
    std::int64_t v = 0;
    for (int i = 0; i < 20; ++i) {  // segment 0's key: used often
      w.get(peer, *segs[0], 0, &v, sizeof v, c);
      rt().wait(c);
    }
    // Two rarely used keys evict each other (or the second one evicts the first); the much-used
    // key is never the least used, so a get through it finds it still unpacked.
    for (int i = 0; i < 3; ++i)
      for (int s = 1; s < 3; ++s) {
        w.get(peer, *segs[static_cast<std::size_t>(s)], 0, &v, sizeof v, c);
        rt().wait(c);
      }
    const std::uint64_t misses = totals_of(w).key_misses;
    w.get(peer, *segs[0], 0, &v, sizeof v, c);
    rt().wait(c);
    CHECK(totals_of(w).key_misses == misses);
    CHECK(totals_of(w).key_evictions > 0);
  }
  rt().barrier();
}

TEST_CASE("rkey cache: non-blocking gets whose keys are evicted before the wait complete exactly",
          "[comm][rkey_cache]") {
  const int me = rt().rank(), n = rt().size();
  constexpr int segments = 3;
  std::vector<std::unique_ptr<comm::segment>> segs;
  for (int s = 0; s < segments; ++s) {
    segs.push_back(
        std::make_unique<comm::segment>(rt().comm(), 4096, "inflight" + std::to_string(s)));
    std::fill_n(static_cast<std::int64_t*>(segs.back()->local_base()), 512, 100 * me + s);
  }
  rt().barrier();
  auto& w = rt().worker();
  // All issued before one wait: later gets evict the keys of earlier ones still in flight.
  std::vector<std::int64_t> got(static_cast<std::size_t>(segments * n) * 512, -1);
  comm::completion c;
  for (int s = 0; s < segments; ++s)
    for (int t = 0; t < n; ++t)
      w.get(t, *segs[static_cast<std::size_t>(s)], 0,
            got.data() + static_cast<std::size_t>(s * n + t) * 512, 4096, c);
  rt().wait(c);
  for (int s = 0; s < segments; ++s)
    for (int t = 0; t < n; ++t)
      for (std::size_t i = 0; i < 512; ++i)
        REQUIRE(got[static_cast<std::size_t>(s * n + t) * 512 + i] == 100 * t + s);
  rt().barrier();
}
