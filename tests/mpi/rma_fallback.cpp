// The active-message fall-back for memory whose registration failed (registered here with
// GAEA_TEST_FAIL_MEM_MAP=64K: a rank's part of 64 KiB or more is not registered): put, get,
// strided transfers and atomics to such a part stay exact, through the owner's service worker.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <numeric>
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
std::uint64_t active_messages(const comm::worker& w) {
  return w.stats().count(comm::op_kind::active_message);
}
}  // namespace

TEST_CASE("rma fallback: put, get and strided transfers to unregistered parts are exact",
          "[comm][fallback]") {
  const int me = rt().rank(), n = rt().size();
  REQUIRE(rt().comm().cfg().fail_mem_map == 64 * 1024);
  // Rank 0's part is large (not registered); the others' are small (registered).
  constexpr std::size_t slot = 8 * 1024;  // doubles per rank
  const std::size_t bytes = me == 0 ? 16 * slot * sizeof(double) : 4096;
  comm::segment seg(rt().comm(), bytes, "fallback");
  CHECK(seg.packed_rkey(0).empty());
  for (int t = 1; t < n; ++t)
    CHECK_FALSE(seg.packed_rkey(t).empty());
  auto& w = rt().worker();
  const std::uint64_t before = active_messages(w);
  // Every rank writes 1024 doubles into its own 8 KiB-double slot of rank 0 (contiguous, 8 KiB),
  // and a 16x32 strided block behind it.
  std::vector<double> src(1024);
  std::iota(src.begin(), src.end(), 100000.0 * me);
  const std::uint64_t base = static_cast<std::uint64_t>(me) * slot * sizeof(double);
  comm::completion c;
  w.put(0, seg, base, src.data(), src.size() * sizeof(double), c);
  w.put_strided(0, seg, base + 1024 * sizeof(double), 64 * sizeof(double), src.data(),
                32 * sizeof(double), 32 * sizeof(double), 16, c);
  rt().wait(c);
  w.flush(0, c);
  rt().wait(c);
  rt().barrier();
  const int peer = (me + 1) % n;
  std::vector<double> got(1024, -1);
  w.get(0, seg, static_cast<std::uint64_t>(peer) * slot * sizeof(double), got.data(),
        got.size() * sizeof(double), c);
  rt().wait(c);
  for (std::size_t i = 0; i < got.size(); ++i)
    REQUIRE(got[i] == 100000.0 * peer + static_cast<double>(i));
  std::vector<double> rows(16 * 32, -1);
  w.get_strided(0, seg, static_cast<std::uint64_t>(peer) * slot * sizeof(double) + 1024 * 8,
                64 * sizeof(double), rows.data(), 32 * sizeof(double), 32 * sizeof(double), 16, c);
  rt().wait(c);
  for (std::size_t r = 0; r < 16; ++r)
    for (std::size_t k = 0; k < 32; ++k)
      REQUIRE(rows[r * 32 + k] == 100000.0 * peer + static_cast<double>(r * 32 + k));
  // Rank 0's own part is plain memory it reads directly; the others went through messages.
  CHECK(w.is_direct(0, seg) == (me == 0));
  if (me != 0) CHECK(active_messages(w) >= before + 2 + 16 + 1 + 16);
  // A 1 MiB get: the reply comes by rendezvous.
  std::vector<std::byte> big(16 * slot * sizeof(double) / 2);
  w.get(0, seg, 0, big.data(), big.size(), c);
  rt().wait(c);
  double first = -1;
  std::memcpy(&first, big.data(), sizeof first);
  CHECK(first == 0.0);
  rt().barrier();
}

TEST_CASE("rma fallback: fetch-add and compare-swap on an unregistered part are atomic",
          "[comm][fallback]") {
  const int me = rt().rank(), n = rt().size();
  comm::segment seg(rt().comm(), 64 * 1024, "fallback atomics");  // unregistered everywhere
  REQUIRE(seg.packed_rkey(me).empty());
  auto& w = rt().worker();
  constexpr int adds = 50;
  comm::completion c;
  std::vector<std::int64_t> olds(adds, -1);
  for (int t = 0; t < n; ++t) {
    for (int i = 0; i < adds; ++i)
      w.fetch_add(t, seg, 0, 1, &olds[static_cast<std::size_t>(i)], c);
    rt().wait(c);
  }
  std::int64_t prev = -1;
  w.compare_swap((me + 1) % n, seg, 8, 0, 1000 + me, &prev, c);  // only rank me-1 writes there
  rt().wait(c);
  CHECK(prev == 0);
  rt().barrier();
  const auto* mine = static_cast<const std::int64_t*>(seg.local_base());
  CHECK(mine[0] == static_cast<std::int64_t>(adds) * n);
  CHECK(mine[1] == 1000 + (me + n - 1) % n);
  rt().barrier();
}
